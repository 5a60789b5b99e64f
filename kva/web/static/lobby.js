// Lobby: keep the list of open tables live over /ws/lobby (the server sends the whole list,
// already cut for this viewer, at once and after every change).
import { byId, h, show } from "./dom.js";
import { openSocket } from "./socket.js";
import { formatNumber } from "./i18n.js";
import { watchGameFields } from "./gamefields.js";

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
  if (t.seated) {
    const id = encodeURIComponent(t.id);
    return h("span", {},
      h("a", { class: "button", href: `/m/${id}`, "data-testid": "open-my-table", text: S.open_table }),
      h("form", { method: "post", action: `/lobby/${id}/leave` },
        h("button", { type: "submit", class: "button danger", "data-testid": "leave-table", text: S.leave })));
  }
  if (t.can_join) {
    return h("form", { method: "post", action: `/lobby/${encodeURIComponent(t.id)}/join` },
      h("button", { type: "submit", class: "button primary", "data-testid": "join-table", text: S.play }));
  }
  return h("a", { class: "small-link", href: "/register?next=/lobby",
                  text: t.stake ? S.register_coins : S.register });
}

// What is played: Kozel's fish rule and pair game, or the Georgian target and rules.
function terms(t) {
  if (t.game === "kozel") {
    const options = t.options || {};
    return [
      h("span", { class: "lt-game", "data-testid": "lobby-game", dataset: { game: "kozel" }, text: S.kozel }), " ",
      h("span", { class: "lt-fish", dataset: { fish: options.fish }, text: options.fish === "one" ? S.fish_one : S.fish_all }),
      ...(options.pairs ? [" ", h("span", { class: "lt-pairs", "data-testid": "lobby-pairs", text: S.pairs })] : []),
    ];
  }
  return [
    h("span", { class: "lt-target", text: S.points.replace("{points}", t.target) }), " ",
    h("span", { class: "lt-rules", text: t.bazaar === "pass-only" ? S.pass_only : S.standard }),
  ];
}

// Each seat in turn order: who sits there (a player, a bot) or that it is free.
function seats(t) {
  const list = Array.isArray(t.seats) ? t.seats : [];
  return h("ol", { class: "lt-seats", "data-testid": "lobby-seats",
                   dataset: { free: String(list.filter((s) => !s.taken).length) } },
    ...list.map((s) => h("li", {
      class: "lt-seat" + (s.taken ? "" : " free") + (s.you ? " you" : ""), "data-testid": "lobby-seat",
      dataset: { taken: String(Boolean(s.taken)) },
      text: s.bot ? (S.bots[s.bot] || s.bot) : (s.name || S.free_seat) })));
}

function row(t) {
  return h("li", { class: "lobby-row" + (t.mine ? " mine" : ""), "data-testid": "lobby-table",
                   dataset: { match: t.id, creator: t.creator } },
    h("span", { class: "lt-who" },
      h("b", { class: "lt-creator", text: t.creator }), " ",
      h("span", { class: "lt-rating", text: `${t.rating}${t.provisional ? "?" : ""}` })),
    h("span", { class: "lt-what" },
      ...terms(t), " ",
      h("span", { class: "lt-mode" + (t.rated ? " rated" : ""), text: t.rated ? S.rated : S.casual }), " ",
      h("span", { class: "lt-clock", "data-testid": "lobby-clock", dataset: { clock: t.clock || "none" },
                  text: S.clocks[t.clock || "none"] || S.clocks.none }),
      ...(t.stake ? [" ", h("span", { class: "lt-stake", "data-testid": "lobby-stake", dataset: { stake: String(t.stake) },
                                      text: S.coins.replace("{coins}", formatNumber(t.stake)) })] : [])),
    seats(t),
    h("span", { class: "lt-act" }, action(t)));
}

// The open tables I sit at (mine, or joined): when one leaves the list while I wait here, its
// last seat was taken (or it was cancelled, or I left it elsewhere): its game page says which.
let mine = new Set();

function render(tables) {
  const now = new Set(tables.filter((t) => t.mine || t.seated).map((t) => t.id));
  const gone = [...mine].find((id) => !now.has(id));
  mine = now;
  if (gone) {
    location.assign(`/m/${encodeURIComponent(gone)}`);
    return;
  }
  list.replaceChildren(...tables.map(row));
  show(empty, tables.length === 0);
}

const openForm = document.querySelector("[data-testid=open-table-form]");
if (openForm) watchGameFields(openForm);

if (list) {
  openSocket("/ws/lobby", {
    minDelay: 500,
    onState: (kind) => { live.dataset.state = kind === "online" ? "online" : "offline"; },
    on: { lobby: (msg) => { if (Array.isArray(msg.tables)) render(msg.tables); } },
  });
}
