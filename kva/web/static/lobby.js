// Lobby: keep the list of open tables live over /ws/lobby (the server sends the whole list,
// already cut for this viewer, at once and after every change).
const list = document.querySelector('[data-testid="lobby"]');
const empty = document.querySelector('[data-testid="lobby-empty"]');
const live = document.querySelector('[data-testid="lobby-live"]');
const S = JSON.parse(document.getElementById("lobby-strings").textContent);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function action(t) {
  if (t.mine) {
    return el("form", { method: "post", action: `/lobby/${encodeURIComponent(t.id)}/cancel` },
      el("button", { type: "submit", class: "button danger", "data-testid": "cancel-table", text: S.cancel }));
  }
  if (t.can_join) {
    return el("form", { method: "post", action: `/lobby/${encodeURIComponent(t.id)}/join` },
      el("button", { type: "submit", class: "button primary", "data-testid": "join-table", text: S.play }));
  }
  return el("a", { class: "small-link", href: "/register?next=/lobby", text: S.register });
}

function row(t) {
  return el("li", { class: "lobby-row" + (t.mine ? " mine" : ""), "data-testid": "lobby-table",
                    "data-match": t.id, "data-creator": t.creator },
    el("span", { class: "lt-who" },
      el("b", { class: "lt-creator", text: t.creator }), " ",
      el("span", { class: "lt-rating", text: `${t.rating}${t.provisional ? "?" : ""}` })),
    el("span", { class: "lt-what" },
      el("span", { class: "lt-target", text: S.points.replace("{points}", t.target) }), " ",
      el("span", { class: "lt-rules", text: t.bazaar === "pass-only" ? S.pass_only : S.standard }), " ",
      el("span", { class: "lt-mode" + (t.rated ? " rated" : ""), text: t.rated ? S.rated : S.casual })),
    el("span", { class: "lt-act" }, action(t)));
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
  empty.hidden = tables.length > 0;
}

let delay = 500;
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
  ws.addEventListener("open", () => { delay = 500; live.dataset.state = "online"; });
  ws.addEventListener("message", (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (msg.type === "lobby" && Array.isArray(msg.tables)) render(msg.tables);
  });
  ws.addEventListener("close", () => {
    live.dataset.state = "offline";
    setTimeout(connect, delay);
    delay = Math.min(delay * 2, 10000);
  });
}
if (list) connect();
