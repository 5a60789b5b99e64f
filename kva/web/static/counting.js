// The counting aid on the game page: for each number 0–6, how many of its seven tiles are
// still unseen by you, from your own view only (your hand and the board). Offered in casual
// and bot matches, never in rated ones (the server says which: /learn/aid/{match}); off
// until the player switches it on (remembered in this browser).
import { byId as $, h } from "./dom.js";

const root = $("game");
const KEY = "kva-counting-aid";
const S = JSON.parse($("counting-strings").textContent);
let allowed = null; // null: not asked yet
let panel = null;
let lastView = null;

function tilesSeen(view) {
  const seen = new Set(view.hand);
  const board = view.board;
  if (board.opening) seen.add(board.opening.tile);
  for (const line of Object.values(board.lines || {})) for (const t of line) seen.add(t.tile);
  return seen;
}

/** unseen[n]: tiles carrying n that this player has not seen. */
export function unseenByNumber(view) {
  const seen = tilesSeen(view);
  const out = [0, 0, 0, 0, 0, 0, 0];
  for (let a = 0; a <= 6; a++) {
    for (let b = a; b <= 6; b++) {
      if (seen.has(`${a}-${b}`)) continue;
      out[a] += 1;
      if (b !== a) out[b] += 1;
    }
  }
  return out;
}

function build() {
  const box = h("input", { type: "checkbox", id: "counting-toggle", "data-testid": "counting-toggle" });
  box.checked = localStorage.getItem(KEY) === "1";
  box.addEventListener("change", () => {
    localStorage.setItem(KEY, box.checked ? "1" : "0");
    update();
  });
  const row = h("span", { class: "aid-row", id: "counting-row", "data-testid": "counting-row" });
  panel = h("div", { class: "counting-aid", id: "counting-aid", "data-testid": "counting-aid" },
    h("label", {}, box, " ", S.label), row);
  const anchor = document.querySelector(".my-row");
  anchor.after(panel);
}

function update() {
  if (!panel || !lastView) return;
  const row = $("counting-row");
  row.replaceChildren();
  if (!$("counting-toggle").checked) { row.hidden = true; return; }
  row.hidden = false;
  row.title = S.title;
  unseenByNumber(lastView).forEach((n, i) => {
    row.appendChild(h("span", { class: "aid-cell", dataset: { number: String(i), unseen: String(n) } },
      String(i), h("b", { text: `×${n}` })));
  });
}

document.addEventListener("kva:view", async (event) => {
  const { view } = event.detail;
  if (view.player === null || view.player === undefined) return; // spectators: no aid
  lastView = view;
  if (allowed === null) {
    allowed = false;
    const resp = await fetch(`/learn/aid/${encodeURIComponent(root.dataset.matchId)}`);
    allowed = resp.ok && (await resp.json()).allowed;
    if (allowed) build();
  }
  update();
});
