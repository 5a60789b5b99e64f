// Lobby: keep the list of open tables live over /ws/lobby (the server sends the whole list,
// already cut for this viewer, at once and after every change).
import { byId, h, show } from "./dom.js";
import { openSocket } from "./socket.js";
import { formatNumber } from "./i18n.js";

const list = byId("lobby-list");
const empty = byId("lobby-empty");
const live = byId("lobby-live");
const S = JSON.parse(byId("lobby-strings").textContent);

// data-testid attributes on the rows are for the tests; this code never looks them up.
function action(t) {
  if (t.mine) {
    return h("form", { method: "post", action: `/lobby/${encodeURIComponent(t.id)}/cancel` },
      h("button", { type: "submit", class: "button danger", "data-testid": "cancel-table", text: S.cancel }));
  }
  if (t.can_join) {
    return h("form", { method: "post", action: `/lobby/${encodeURIComponent(t.id)}/join` },
      h("button", { type: "submit", class: "button primary", "data-testid": "join-table", text: S.play }));
  }
  return h("a", { class: "small-link", href: "/register?next=/lobby",
                  text: t.stake ? S.register_coins : S.register });
}

function row(t) {
  return h("li", { class: "lobby-row" + (t.mine ? " mine" : ""), "data-testid": "lobby-table",
                   dataset: { match: t.id, creator: t.creator } },
    h("span", { class: "lt-who" },
      h("b", { class: "lt-creator", text: t.creator }), " ",
      h("span", { class: "lt-rating", text: `${t.rating}${t.provisional ? "?" : ""}` })),
    h("span", { class: "lt-what" },
      h("span", { class: "lt-target", text: S.points.replace("{points}", t.target) }), " ",
      h("span", { class: "lt-rules", text: t.bazaar === "pass-only" ? S.pass_only : S.standard }), " ",
      h("span", { class: "lt-mode" + (t.rated ? " rated" : ""), text: t.rated ? S.rated : S.casual }), " ",
      h("span", { class: "lt-clock", "data-testid": "lobby-clock", dataset: { clock: t.clock || "none" },
                  text: S.clocks[t.clock || "none"] || S.clocks.none }),
      ...(t.stake ? [" ", h("span", { class: "lt-stake", "data-testid": "lobby-stake", dataset: { stake: String(t.stake) },
                                      text: S.coins.replace("{coins}", formatNumber(t.stake)) })] : [])),
    h("span", { class: "lt-act" }, action(t)));
}

// My own open tables: when one leaves the list while I wait here, someone took the seat (or I
// cancelled it elsewhere): its game page says which.
let mine = new Set();

function render(tables) {
  const now = new Set(tables.filter((t) => t.mine).map((t) => t.id));
  const gone = [...mine].find((id) => !now.has(id));
  mine = now;
  if (gone) {
    location.assign(`/m/${encodeURIComponent(gone)}`);
    return;
  }
  list.replaceChildren(...tables.map(row));
  show(empty, tables.length === 0);
}

if (list) {
  openSocket("/ws/lobby", {
    minDelay: 500,
    onState: (kind) => { live.dataset.state = kind === "online" ? "online" : "offline"; },
    on: { lobby: (msg) => { if (Array.isArray(msg.tables)) render(msg.tables); } },
  });
}
