// Domino tiles and the board as SVG: ivory tiles with pips, the stavka marked, lines L/R
// through the opening, U/D vertically from the stavka. Pure drawing: no game logic here.
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

/**
 * Place one line of tiles from `start` (the middle of the near edge of its first slot) along
 * the unit vector `dir`. Ordinary tiles lie lengthwise, doubles crosswise. Once the line would
 * reach `limit` units from the centre along its axis it turns a corner (clockwise for R,
 * counter-clockwise for L), so a long hand stays compact on a narrow screen.
 */
function placeLine(line, start, dir, end, limit, turn, out) {
  let [cx, cy] = start;
  let [dx, dy] = dir;
  let turned = !limit;
  for (const t of line) {
    const len = t.double ? 1 : 2;
    if (!turned && (cx * dx + cy * dy) + len > limit) {
      const [nx, ny] = turn === "cw" ? [-dy, dx] : [dy, -dx];
      cx += dx * 0.5 - nx * 0.5;
      cy += dy * 0.5 - ny * 0.5;
      [dx, dy] = [nx, ny];
      turned = true;
    }
    const horizontalLine = dy === 0;
    // The tile's rectangle: `len` along the line, 1 (2 for a double) across it.
    const across = t.double ? 2 : 1;
    const w = horizontalLine ? len : across;
    const h = horizontalLine ? across : len;
    const x0 = Math.min(cx, cx + dx * len) - (horizontalLine ? 0 : across / 2);
    const y0 = Math.min(cy, cy + dy * len) - (horizontalLine ? across / 2 : 0);
    // Which half is drawn first (left or top): the touching half faces where the line comes from.
    const towardStart = dx + dy < 0; // the line runs left or up: the touching half is drawn second
    const [a, b] = towardStart ? [t.outer, t.touch] : [t.touch, t.outer];
    out.tiles.push({ tile: t.tile, a, b, x: x0, y: y0, horizontal: w > h,
      stavka: t.stavka, end, lineDir: [dx, dy] });
    if (t.stavka) out.stavka = { x: x0 + w / 2, y: y0 + h / 2, dir: [dx, dy] };
    cx += dx * len;
    cy += dy * len;
  }
  const horizontalLine = dy === 0;
  out.slots[end] = {
    x: horizontalLine ? Math.min(cx, cx + dx * 2) : cx - 0.5,
    y: horizontalLine ? cy - 0.5 : Math.min(cy, cy + dy * 2),
    horizontal: horizontalLine,
  };
}

/**
 * Lay out a board ({opening, lines}) as rectangles in units: L and R run out from the opening
 * (turning a corner past `limit`), U and D from the stavka's free sides. Returns
 * {tiles: [{tile, a, b, x, y, horizontal, stavka, end}], slots: {L,R,U,D: {x,y,horizontal}}}.
 */
export function layoutBoard(board, limit = 0) {
  const out = { tiles: [], slots: {}, stavka: null, empty: false };
  const op = board.opening;
  if (!op) return { ...out, empty: true };
  if (op.double) {
    out.tiles.push({ tile: op.tile, a: op.left, b: op.right, x: -0.5, y: -1, horizontal: false,
      stavka: op.stavka, end: null, lineDir: [1, 0] });
    if (op.stavka) out.stavka = { x: 0, y: 0, dir: [1, 0] };
  } else {
    out.tiles.push({ tile: op.tile, a: op.left, b: op.right, x: -1, y: -0.5, horizontal: true,
      stavka: false, end: null, lineDir: [1, 0] });
  }
  const half = op.double ? 0.5 : 1;
  placeLine(board.lines.R || [], [half, 0], [1, 0], "R", limit, "cw", out);
  placeLine(board.lines.L || [], [-half, 0], [-1, 0], "L", limit, "cw", out);
  if (out.stavka) {
    const { x, y, dir } = out.stavka;
    const horizontalLine = dir[1] === 0;
    const up = horizontalLine ? [0, -1] : [-1, 0];
    const down = horizontalLine ? [0, 1] : [1, 0];
    placeLine(board.lines.U || [], [x + up[0], y + up[1]], up, "U", 0, "cw", out);
    placeLine(board.lines.D || [], [x + down[0], y + down[1]], down, "D", 0, "cw", out);
  }
  return out;
}

/**
 * Draw `board` into `svg`. `options`: points (tile name -> points scored), last (tile name),
 * targets (ends to offer as clickable slots), onTarget(end), targetLabel(end) (a target's
 * accessible name), emptyText.
 */
export function drawBoard(svg, board, options = {}) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const box = svg.getBoundingClientRect();
  const aspect = box.height > 0 ? box.width / box.height : 2;
  const limit = options.limit ?? (aspect < 1.4 ? 8 : aspect < 2.2 ? 11 : 15);
  const { tiles, slots, empty } = layoutBoard(board, limit);
  let minX = -3; let maxX = 3; let minY = -2.6; let maxY = 2.6;
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
  const free = (bx, by) => taken.every((r) => bx + BW / 2 <= r.x + 0.02 || bx - BW / 2 >= r.x + r.w - 0.02
    || by + BH / 2 <= r.y + 0.02 || by - BH / 2 >= r.y + r.h - 0.02);
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
  const pad = 0.5;
  const vx = (minX - pad) * U;
  const vy = (minY - pad) * U;
  const vw = (maxX - minX + 2 * pad) * U;
  const vh = (maxY - minY + 2 * pad) * U;
  svg.setAttribute("viewBox", `${vx} ${vy} ${vw} ${vh}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
}
