// Domino tiles and the board as SVG: ivory tiles with pips, the stavka marked, the line laid
// out by snake.js at the biggest size that fits. Pure drawing: no game logic here.
import { snakeLayout, boxesFor } from "./snake.js";

const NS = "http://www.w3.org/2000/svg";
const U = 40; // one unit (a tile's short side) in SVG user units
const GAP = 0.08;

const PIPS = {
  0: [],
  1: [[0.5, 0.5]],
  2: [[0.27, 0.27], [0.73, 0.73]],
  3: [[0.25, 0.25], [0.5, 0.5], [0.75, 0.75]],
  4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
  5: [[0.25, 0.25], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0.75, 0.75]],
  6: [[0.27, 0.22], [0.27, 0.5], [0.27, 0.78], [0.73, 0.22], [0.73, 0.5], [0.73, 0.78]],
};

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function pips(g, n, x, y, size, transpose) {
  for (const [px, py] of PIPS[n] || []) {
    const [qx, qy] = transpose ? [py, px] : [px, py];
    el("circle", { cx: x + qx * size, cy: y + qy * size, r: size * 0.095, class: "pip" }, g);
  }
}

/**
 * One tile as an SVG group at (x, y) in units, `horizontal` (2x1, `a` left) or vertical
 * (1x2, `a` on top). `cls` adds classes (stavka, last, ghost...).
 */
export function tileGroup(a, b, x, y, horizontal, cls = "") {
  const w = horizontal ? 2 : 1;
  const h = horizontal ? 1 : 2;
  const g = el("g", { class: `tile-svg ${cls}`.trim() });
  const inset = GAP / 2;
  el("rect", {
    x: (x + inset) * U, y: (y + inset) * U, width: (w - GAP) * U, height: (h - GAP) * U,
    rx: U * 0.14, class: "tile-body",
  }, g);
  const size = U - GAP * U;
  if (horizontal) {
    el("line", { x1: (x + 1) * U, y1: (y + 0.18) * U, x2: (x + 1) * U, y2: (y + 0.82) * U,
      class: "tile-divider" }, g);
    pips(g, a, (x + inset) * U, (y + inset) * U, size, true);
    pips(g, b, (x + 1 + inset - GAP / 2) * U, (y + inset) * U, size, true);
  } else {
    el("line", { x1: (x + 0.18) * U, y1: (y + 1) * U, x2: (x + 0.82) * U, y2: (y + 1) * U,
      class: "tile-divider" }, g);
    pips(g, a, (x + inset) * U, (y + inset) * U, size, false);
    pips(g, b, (x + inset) * U, (y + 1 + inset - GAP / 2) * U, size, false);
  }
  return g;
}

/** A standalone tile (hand, revealed hands): an <svg> element, vertical unless `horizontal`. */
export function tileSVG(name, { horizontal = false, back = false } = {}) {
  const svg = el("svg", {
    viewBox: horizontal ? `0 0 ${2 * U} ${U}` : `0 0 ${U} ${2 * U}`,
    class: back ? "tile-back-svg" : "tile-face-svg", "aria-hidden": "true",
  });
  if (back) {
    const w = horizontal ? 2 : 1;
    const h = horizontal ? 1 : 2;
    el("rect", { x: GAP / 2 * U, y: GAP / 2 * U, width: (w - GAP) * U, height: (h - GAP) * U,
      rx: U * 0.14, class: "tile-back" }, svg);
    el("circle", { cx: (w / 2) * U, cy: (h / 2) * U, r: U * 0.16, class: "tile-back-mark" }, svg);
    return svg;
  }
  const [a, b] = name.split("-").map(Number);
  svg.appendChild(tileGroup(a, b, 0, 0, horizontal));
  return svg;
}

/** How big the board's tiles are, by the player's board-size setting (pixels per unit, a
 * tile's short side; its body is 0.92 of that): the biggest at which the whole line fits the
 * felt is taken, down to `least`; where it does not fit even then, a board that may `grow`
 * keeps `least` and grows downwards (the felt scrolls it), else the tiles shrink further. */
export const BOARD_SIZES = {
  small: { most: 30, least: 8, grow: false },
  normal: { most: 40, least: 27, grow: true },
  large: { most: 52, least: 36, grow: true },
};
const PAD = 0.5; // units of felt around the line
const SMALLEST = 8;
const SCROLLBAR = 16; // px a growing board leaves for the felt's scroll bar

function fitting(board, w, h, wings) {
  for (const box of boxesFor(board, w, h)) {
    const layout = snakeLayout(board, box, wings);
    if (layout) return { layout, box };
  }
  return null;
}

/** The layout of `board` on a felt `bw` x `bh` pixels, and whether it grows past `bh` (never
 * unless `mayGrow`). */
export function layoutFor(board, bw, bh, size = "normal", wings = true, mayGrow = true) {
  const { most, least, grow: sizeGrows } = BOARD_SIZES[size] || BOARD_SIZES.normal;
  const grow = sizeGrows && mayGrow;
  for (let px = most; px >= least; px *= 0.94) {
    const found = fitting(board, bw / px - 2 * PAD, bh / px - 2 * PAD, wings);
    if (found) return { ...found, grows: false };
  }
  for (let px = least; px >= SMALLEST; px *= 0.94) {
    // Each arm in its own quarter where it can be, else wherever the line finds room.
    for (const quarters of grow ? [true, false] : []) {
      const found = fitting(board, (bw - SCROLLBAR) / px - 2 * PAD, Number.POSITIVE_INFINITY,
        wings && quarters);
      if (found) return { ...found, px, grows: true };
    }
    const found = fitting(board, bw / px - 2 * PAD, bh / px - 2 * PAD, wings);
    if (found) return { ...found, grows: false };
  }
  return { ...fitting(board, 1e4, 1e4, wings), grows: false }; // one straight line: always fits
}

/**
 * Draw `board` into `svg`. `options`: points (tile name -> points scored), last (tile name),
 * targets (ends to offer as clickable slots), onTarget(end), targetLabel(end) (a target's
 * accessible name), emptyText, size (a key of BOARD_SIZES: the board-size setting).
 */
export function drawBoard(svg, board, options = {}) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const wrap = svg.parentElement;
  svg.style.height = "";
  if (wrap) wrap.style.maxHeight = "";
  const rect = svg.getBoundingClientRect();
  const [bw, bh] = rect.height > 0 ? [rect.width, rect.height] : [600, 300];
  const lines = board.lines || {};
  const wings = Boolean((lines.U || []).length || (lines.D || []).length
    || (options.targets || []).some((e) => e === "U" || e === "D"));
  // Two ends offered at once must both be in view: the whole line fits the felt meanwhile.
  const mayGrow = (options.targets || []).length < 2;
  const { layout, box, px, grows } = layoutFor(board, bw, bh, options.size, wings, mayGrow);
  const { tiles, slots, empty } = layout;
  // A short line keeps some felt around it (within the box it was laid out in).
  let minX = Math.max(-3, box.x0); let maxX = Math.min(3, box.x1);
  let minY = Math.max(-2.6, box.y0); let maxY = Math.min(2.6, box.y1);
  const grow = (x, y, w, h) => {
    minX = Math.min(minX, x); maxX = Math.max(maxX, x + w);
    minY = Math.min(minY, y); maxY = Math.max(maxY, y + h);
  };
  const layer = el("g", {}, svg);
  if (empty && options.emptyText) {
    const text = el("text", { x: 0, y: 0.2 * U, class: "board-empty", "text-anchor": "middle" },
      layer);
    text.textContent = options.emptyText;
  }
  const badges = [];
  for (const t of tiles) {
    const w = t.horizontal ? 2 : 1;
    const h = t.horizontal ? 1 : 2;
    grow(t.x, t.y, w, h);
    const cls = [t.stavka ? "stavka" : "", t.tile === options.last ? "last" : ""].join(" ");
    const g = tileGroup(t.a, t.b, t.x, t.y, t.horizontal, cls);
    g.setAttribute("data-tile", t.tile);
    if (t.end) g.setAttribute("data-end", t.end);
    layer.appendChild(g);
    const pts = options.points ? options.points[t.tile] : 0;
    if (pts) badges.push({ t, w, h, pts });
  }
  // Points next to the tile that scored, in the first free place around it (beside a tile of
  // a vertical line, above one of a horizontal line, else below, the other side or a corner):
  // never on a neighbouring tile or another badge. Drawn after every tile so none covers them.
  const BW = 1.1;
  const BH = 0.56;
  const taken = tiles.map((t) => ({ x: t.x, y: t.y, w: t.horizontal ? 2 : 1, h: t.horizontal ? 1 : 2 }));
  const inBox = (bx, by) => bx - BW / 2 >= box.x0 && bx + BW / 2 <= box.x1
    && by - BH / 2 >= box.y0 && by + BH / 2 <= box.y1;
  const free = (bx, by) => inBox(bx, by) && taken.every((r) => bx + BW / 2 <= r.x + 0.02
    || bx - BW / 2 >= r.x + r.w - 0.02 || by + BH / 2 <= r.y + 0.02 || by - BH / 2 >= r.y + r.h - 0.02);
  for (const { t, w, h, pts } of badges) {
    const above = [t.x + w / 2, t.y - 0.36];
    const below = [t.x + w / 2, t.y + h + 0.36];
    const right = [t.x + w + 0.62, t.y + h / 2];
    const left = [t.x - 0.62, t.y + h / 2];
    const corners = [[t.x + w + 0.5, t.y - 0.26], [t.x - 0.5, t.y - 0.26],
      [t.x + w + 0.5, t.y + h + 0.26], [t.x - 0.5, t.y + h + 0.26]];
    const order = t.lineDir[1] !== 0 ? [right, left, above, below] : [above, below, right, left];
    const [bx, by] = [...order, ...corners].find(([x, y]) => free(x, y)) || order[0];
    taken.push({ x: bx - BW / 2, y: by - BH / 2, w: BW, h: BH });
    const badge = el("g", { class: "points-badge", "data-for": t.tile }, layer);
    el("rect", { x: (bx - BW / 2) * U, y: (by - BH / 2) * U, width: BW * U, height: BH * U,
      rx: 0.28 * U }, badge);
    const text = el("text", { x: bx * U, y: (by + 0.13) * U, "text-anchor": "middle" }, badge);
    text.textContent = `+${pts}`;
    grow(bx - 0.6, by - 0.3, 1.2, 0.6);
  }
  for (const end of options.targets || []) {
    const s = slots[end];
    if (!s) continue;
    const w = s.horizontal ? 2 : 1;
    const h = s.horizontal ? 1 : 2;
    grow(s.x, s.y, w, h);
    const g = el("g", { class: "end-target", "data-testid": "end-target", "data-end": end,
      role: "button", tabindex: "0" }, layer);
    // "+" alone says nothing to a screen reader: the end is named by side and number.
    if (options.targetLabel) g.setAttribute("aria-label", options.targetLabel(end));
    el("rect", { x: (s.x + GAP) * U, y: (s.y + GAP) * U, width: (w - 2 * GAP) * U,
      height: (h - 2 * GAP) * U, rx: U * 0.14 }, g);
    const label = el("text", { x: (s.x + w / 2) * U, y: (s.y + h / 2 + 0.14) * U,
      "text-anchor": "middle" }, g);
    label.textContent = "+";
    if (options.onTarget) {
      g.addEventListener("click", () => options.onTarget(end));
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") options.onTarget(end);
      });
    }
  }
  const vx = (minX - PAD) * U;
  const vy = (minY - PAD) * U;
  const vw = (maxX - minX + 2 * PAD) * U;
  const vh = (maxY - minY + 2 * PAD) * U;
  svg.setAttribute("viewBox", `${vx} ${vy} ${vw} ${vh}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  // A long line at a readable size is taller than the felt: the board grows and the felt
  // scrolls it (the styles keep the height through the CSSOM, which the CSP allows).
  const tall = (vh / U) * px;
  if (grows && tall > bh) {
    svg.style.height = `${Math.ceil(tall)}px`;
    if (wrap) wrap.style.maxHeight = `${Math.floor(bh)}px`;
  }
  svg.dataset.grows = grows && tall > bh ? "1" : "0";
}
