// The move list of both tables (templates/_move_list.html): the current hand's actions,
// newest last, made only from the viewer's own state, where another player's draw never
// carries its tile. Consecutive draws of one player are one line with their count; the
// viewer's own drawn tiles are named when the state has them. Each move is
// {p, kind: open|play|draw|pass|knock, tile, end, points}. Beside the board on a wide
// screen; folded under the hand (a <details>) on a phone.
import { byId as $, h, setText } from "./dom.js";

const box = $("move-list");
const strings = $("move-list-strings");
const S = strings ? JSON.parse(strings.textContent) : {};
const WIDE = window.matchMedia("(min-width: 1100px) and (min-height: 521px)");

function fill(key, vars) {
  return (S[key] || key).replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

// "0-5" with a non-breaking hyphen, so a tile's halves stay together on a narrow line.
const tileText = (tile) => tile.replace("-", "\u2011");

/** The hand's moves as lines: a run of draws by one player becomes one line. */
export function moveLines(moves) {
  const lines = [];
  for (const move of moves) {
    const last = lines[lines.length - 1];
    if (move.kind === "draw" && last && last.kind === "draw" && last.p === move.p) {
      last.count += 1;
      if (move.tile) last.tiles.push(move.tile);
      continue;
    }
    lines.push({ p: move.p, kind: move.kind, tile: move.tile, end: move.end,
                 points: move.points || 0, count: 1, tiles: move.tile ? [move.tile] : [] });
  }
  return lines;
}

function describe(line) {
  if (line.kind === "open") return fill("open", { tile: tileText(line.tile) });
  if (line.kind === "play") return fill(`play_${line.end}`, { tile: tileText(line.tile) });
  if (line.kind === "pass") return fill("pass", {});
  if (line.kind === "knock") return fill("knock", {});
  if (line.tiles.length) return fill("drew_tiles", { tiles: line.tiles.map(tileText).join(", ") });
  return fill("drew_count", { count: line.count });
}

let shown = ""; // what the list shows now, to rebuild it only when the moves change

/** Show the moves of the Georgian state `msg` (names from `nameOf(seat)`). */
export function renderMoves(msg, nameOf) {
  if (msg.view) showMoves(msg.view.hand_number, msg.view.moves || [], msg.you, nameOf);
}

/** Show `moves`, hand number `hand`'s, to the viewer in seat `you` (names from `nameOf`). */
export function showMoves(hand, moves, you, nameOf) {
  if (!box) return;
  const lines = moveLines(moves);
  const key = JSON.stringify([hand, lines, you]);
  if (key === shown) return;
  shown = key;
  const list = $("move-list-items");
  list.replaceChildren(...lines.map((line) => h("li", {
    class: `ml-${line.kind}`,
    dataset: { p: String(line.p), kind: line.kind, count: String(line.count),
               ...(line.tiles.length ? { tiles: line.tiles.join(" ") } : {}) },
  }, h("span", { class: "ml-who", text: nameOf(line.p) }),
     h("span", { class: "ml-what", text: describe(line) }),
     line.points ? h("b", { class: "ml-points", text: `+${line.points}` }) : null)));
  box.dataset.count = String(lines.length);
  setText($("move-list-count"), String(lines.length));
  setText($("move-list-empty"), lines.length ? "" : S.empty || "");
  list.scrollTop = list.scrollHeight; // the newest move in view
}

// Open beside the board on a wide screen; folded on a phone until the player opens it. A
// folded list's lines are hidden outright, not only left unpainted by <details>.
function folded() { $("move-list-body").hidden = !box.open; }
function fitOpen() { box.open = WIDE.matches; folded(); }
if (box) {
  box.addEventListener("toggle", folded);
  fitOpen();
  WIDE.addEventListener("change", fitOpen);
}
