// Quick game: the search lives as long as /ws/quick is open. The server reports the wait and
// the rating range every second, offers a bot after a while, and says "paired" with the match.
import { byId, setText, show } from "./dom.js";
import { openSocket } from "./socket.js";

const box = byId("quick");
const status = byId("quick-status");
const offer = byId("quick-bot-offer");
const error = byId("quick-error");
const cancel = byId("quick-cancel");
const S = JSON.parse(byId("quick-strings").textContent);

let finished = false; // paired, refused or cancelled: no reconnecting

function fail(text) {
  setText(error, text);
  show(error);
}

if (box) {
  // A Kozel search names its table (seats, fish rule); a Georgian one its match settings.
  const params = box.dataset.game === "kozel"
    ? new URLSearchParams({ game: "kozel", seats: box.dataset.seats, fish: box.dataset.fish })
    : new URLSearchParams({ target: box.dataset.target, bazaar: box.dataset.bazaar,
                            rated: box.dataset.rated, stake: box.dataset.stake || "0",
                            clock: box.dataset.clock || "" });
  const socket = openSocket(`/ws/quick?${params}`, {
    ping: 0, // the server speaks every second
    minDelay: 500,
    reconnect: (e) => {
      if (finished) return false;
      if (e.code === 4400 || e.code === 4401 || e.code === 1008) {
        fail(S.failed);
        return false;
      }
      return true;
    },
    onState: (kind) => { if (kind === "reconnecting") setText(status, S.reconnecting); },
    on: {
      waiting: (msg) => {
        const searching = S.searching.replace("{range}", msg.range).replace("{waited}", msg.waited);
        // A Kozel search also says how many players its table has found (the searcher too).
        const found = S.found && msg.found !== undefined ? S.found[msg.found] : "";
        setText(status, found ? `${found} · ${searching}` : searching);
        show(offer, Boolean(msg.offer_bot));
      },
      paired: (msg) => {
        finished = true;
        setText(status, S.paired);
        location.assign(msg.url);
      },
      error: (msg) => {
        if (msg.code === "too_early" || msg.code === "not_searching") { // a bots click too soon
          fail(S[msg.code] || S.refused);
          return;
        }
        finished = msg.code !== "failed"; // a server hiccup: try again; a refusal: stop
        fail(S[msg.code] || S.refused);
      },
    },
  });
  const bots = byId("quick-bots"); // Kozel: fill the free seats with bots once offered
  if (bots) bots.addEventListener("click", () => socket.send({ type: "bots" }));
  cancel.addEventListener("click", () => {
    finished = true;
    socket.send({ type: "cancel" });
  });
}
