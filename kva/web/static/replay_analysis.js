// Post-game analysis on the replay page: ask for it, show its progress, then the summary per
// player, the list of marked moves (each a link to its position) and, on a marked move's
// position, the mark and the best move drawn on the board.
import { formatPercent, t, tn } from "./i18n.js";
import { byId as $, h, setText, show } from "./dom.js";
import { drawBoard } from "./tiles.js";
import { graphPoints, graphSide } from "./wingraph.js";
import { tileText } from "./tilename.js";

const record = JSON.parse($("kva-record").textContent);
const matchId = $("replay").dataset.matchId;
const seatText = $("replay").dataset.seat;
const seat = seatText === "" || seatText === undefined ? null : Number(seatText);
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
  return a.end ? fmt("play", { tile: tileText(a.tile), end: t(`end_${a.end}`) }) : tileText(a.tile);
}

// Points to one decimal; a match-win chance in whole percentage points (the search's own
// noise is larger than a tenth of a point, so more digits would be false precision).
const pointsText = (n) => tn("analysis_points", Math.round(n * 10) / 10);
const winText = (n) => tn("win_chance", Math.round(n));

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
      h("th", { text: playerName(s.player), scope: "row" }), cell(1, formatPercent(s.accuracy)),
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
  renderGraph(analysis.decisions);
  showCurrent(Number($("replay").dataset.position || 0));
}

// The match's win-chance graph (wingraph.js): one player's chance after each of their analysed
// decisions and at the match's end, 100% at the top; the hands divided by faint lines; a marked move is a dot to tap.
const SVG = "http://www.w3.org/2000/svg";
function svg(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function renderGraph(decisions) {
  const side = graphSide(seat);
  const points = graphPoints(decisions, side, record.winner ?? null, record.hands.length);
  const figure = $("win-graph");
  if (points.length < 2) { show(figure, false); return; }
  const chart = $("win-graph-svg");
  chart.replaceChildren();
  show(figure, true);
  // The drawing's width is the element's own, so a dot stays round at any width.
  const W = Math.max(200, Math.round(chart.clientWidth || 600)); const H = 140; const pad = 6;
  chart.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const x = (i) => pad + (i * (W - 2 * pad)) / (points.length - 1);
  const y = (c) => pad + ((100 - c) * (H - 2 * pad)) / 100;
  svg("line", { x1: 0, x2: W, y1: y(50), y2: y(50), class: "wg-mid" }, chart);
  points.forEach((d, i) => {
    if (i > 0 && d.hand !== points[i - 1].hand) {
      const at = (x(i - 1) + x(i)) / 2;
      svg("line", { x1: at, x2: at, y1: 0, y2: H, class: "wg-hand" }, chart);
    }
  });
  const line = points.map((d, i) => `${x(i).toFixed(1)},${y(d.chance).toFixed(1)}`).join(" ");
  svg("polygon", { points: `${x(0)},${y(50)} ${line} ${x(points.length - 1)},${y(50)}`,
    class: "wg-area" }, chart);
  svg("polyline", { points: line, class: "wg-line" }, chart);
  const first = playerName(side);
  points.forEach((d, i) => {
    if (!d.mark) return;
    const step = stepOf[`${d.hand}:${d.move}`];
    const dot = svg("circle", { cx: x(i), cy: y(d.chance), r: 5, tabindex: 0, role: "button",
      class: `wg-dot mark-${d.mark}`, "data-step": step,
      "aria-label": fmt("graph_point", { hand: d.hand, move: d.move + 1, chance: formatPercent(d.chance),
        name: first }) }, chart);
    const go = () => document.dispatchEvent(new CustomEvent("kva:replay-go", { detail: step }));
    dot.addEventListener("click", go);
    dot.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") go(); });
  });
  setText("win-graph-caption", fmt("graph", { top: first, bottom: playerName(1 - side) }));
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
  const resp = await fetch(`/m/${encodeURIComponent(matchId)}/analysis`, { method: "POST" });
  if (resp.status === 429 || resp.status === 503) { // refused: say why, let them ask later
    const body = await resp.json().catch(() => ({}));
    show("analysis-progress", true);
    setText("analysis-progress", body.message || "");
    $("analyse").disabled = false;
    return;
  }
  poll();
});
document.addEventListener("kva:replay-step", (e) => showCurrent(e.detail.pos));
poll();
