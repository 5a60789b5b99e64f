// Post-game analysis on the replay page: ask for it, show its progress, then the summary per
// player, the list of marked moves (each a link to its position) and, on a marked move's
// position, the mark and the best move drawn on the board.
import { formatNumber, t } from "./i18n.js";
import { byId as $, h, setText, show } from "./dom.js";
import { drawBoard } from "./tiles.js";

const record = JSON.parse($("kva-record").textContent);
const matchId = $("replay").dataset.matchId;
const S = JSON.parse($("analysis-strings").textContent);
const fmt = (key, vars) => S[key].replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
const box = $("analysis");

// The replay's step index of each move: every hand has a start step, one step per move and a
// result step (replay.js builds them in this order).
const stepOf = {};
let k = 0;
record.hands.forEach((hand, hi) => {
  k += 1;
  hand.moves.forEach((_m, i) => { stepOf[`${hi + 1}:${i}`] = k; k += 1; });
  if (hand.result) k += 1;
});

let byStep = {};

function actionText(a) {
  if (a.type === "draw") return S.draw;
  if (a.type === "pass") return S.pass;
  return a.end ? fmt("play", { tile: a.tile, end: t(`end_${a.end}`) }) : a.tile;
}

// Points to one decimal; a match-win chance in whole percentage points (the search's own
// noise is larger than a tenth of a point, so more digits would be false precision).
const pointsText = (n) => fmt("points", { n: formatNumber(Math.round(n * 10) / 10) });
const winText = (n) => fmt("win", { n: formatNumber(Math.round(n)) });

function lossText(d) {
  return d.unit === "points" ? pointsText(d.loss) : winText(d.loss);
}

// A player's average loss: in points far from the target, in win chance near it, or both.
function averageLossText(s) {
  const parts = [];
  if (s.points_lost_per_decision > 0) parts.push(pointsText(s.points_lost_per_decision));
  if (s.win_lost_per_decision > 0) parts.push(winText(s.win_lost_per_decision));
  return parts.length ? parts.join(" · ") : pointsText(0);
}

function playerName(p) {
  const el = $(`r-name${p}`);
  return el ? el.textContent : `${p}`;
}

function lineText(d) {
  return fmt("line", { hand: d.hand, move: d.move + 1, name: playerName(d.player), mark: S[d.mark],
    played: actionText(d.played), best: actionText(d.best), loss: lossText(d) });
}

function showCurrent(pos) {
  const d = byStep[pos];
  if (!d) { show("analysis-current", false); return; }
  show("analysis-current", true);
  const current = $("analysis-current");
  current.dataset.mark = d.mark;
  current.dataset.best = d.best_board ? "board" : "none";
  setText("analysis-current-text", lineText(d));
  show("analysis-best-wrap", Boolean(d.best_board));
  if (d.best_board) drawBoard($("analysis-best-board"), d.best_board, { limit: 11, last: d.best.tile });
}

function render(analysis) {
  box.dataset.state = "done";
  show("analyse", false);
  show("analysis-progress", false);
  const table = $("analysis-summary");
  const body = table.querySelector("tbody");
  // Each cell carries its column's name: on a phone the table is one block per player.
  const labels = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  const cell = (i, text) => h("td", { text, dataset: { label: labels[i] } });
  body.replaceChildren();
  for (const s of analysis.summary) {
    body.appendChild(h("tr", { dataset: { player: String(s.player) } },
      h("th", { text: playerName(s.player), scope: "row" }), cell(1, `${s.accuracy}%`),
      cell(2, averageLossText(s)), cell(3, String(s.inaccuracy)),
      cell(4, String(s.mistake)), cell(5, String(s.blunder))));
  }
  show("analysis-summary", true);
  const list = $("analysis-marks");
  list.replaceChildren();
  byStep = {};
  const marked = analysis.decisions.filter((d) => d.mark);
  for (const d of marked) {
    const step = stepOf[`${d.hand}:${d.move}`];
    byStep[step] = d;
    list.appendChild(h("li", { class: `mark-${d.mark}` }, h("a", {
      href: "#", "data-testid": "analysis-mark", dataset: { mark: d.mark, step: String(step) },
      text: lineText(d),
      on: { click: (e) => { e.preventDefault(); document.dispatchEvent(new CustomEvent("kva:replay-go", { detail: step })); } },
    })));
  }
  if (!marked.length) list.appendChild(h("li", { text: S.none }));
  showCurrent(Number($("replay").dataset.position || 0));
}

async function poll() {
  const resp = await fetch(`/m/${encodeURIComponent(matchId)}/analysis`);
  if (!resp.ok) return;
  const state = await resp.json();
  box.dataset.state = state.status;
  if (state.status === "done") { render(state.analysis); return; }
  if (state.status === "none") return;
  show("analyse", false);
  show("analysis-progress", true);
  if (state.status === "failed") { setText("analysis-progress", S.failed); return; }
  setText("analysis-progress", state.status === "running"
    ? fmt("progress", { done: state.done, total: state.total })
    : fmt("queued", { ahead: state.ahead }));
  setTimeout(poll, 600);
}

$("analyse").addEventListener("click", async () => {
  $("analyse").disabled = true;
  await fetch(`/m/${encodeURIComponent(matchId)}/analysis`, { method: "POST" });
  poll();
});
document.addEventListener("kva:replay-step", (e) => showCurrent(e.detail.pos));
poll();
