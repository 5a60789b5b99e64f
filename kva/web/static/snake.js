// The board's line laid out as on a real table: each arm runs out from the opening (L, R) or
// from the stavka (U, D) until it meets the felt's edge, then turns and runs back, a snake.
// With a stavka each arm winds in its own quarter of the felt (R down and right, L up and left,
// U up and right, D down and left), so no arm can run into another. Pure geometry in units (a
// tile's short side): tiles.js draws what this returns.

const EPS = 0.01;
const INF = Number.POSITIVE_INFINITY;

/** `d` turned a quarter: clockwise on screen (y grows downwards) for side 1, else the other way. */
function rotate([dx, dy], side) {
  return side > 0 ? [-dy, dx] : [dy, -dx];
}

/** The rectangle of a piece `len` long and `across` wide whose near edge's middle is `p`. */
function rectAt([px, py], [dx, dy], len, across) {
  if (dy === 0) return { x: Math.min(px, px + dx * len), y: py - across / 2, w: len, h: across };
  return { x: px - across / 2, y: Math.min(py, py + dy * len), w: across, h: len };
}

function overlaps(r, q) {
  return r.x < q.x1 - EPS && r.x + r.w > q.x0 + EPS && r.y < q.y1 - EPS && r.y + r.h > q.y0 + EPS;
}

const region = (x0, x1, y0, y1) => ({ x0, x1, y0, y1 });

/** Where the stavka will lie on the opening's row (its centre's x), or null without one. */
function hubX(board) {
  const op = board.opening;
  if (op.stavka) return 0;
  for (const [end, sign] of [["R", 1], ["L", -1]]) {
    let x = op.double ? 0.5 : 1;
    for (const t of board.lines[end] || []) {
      if (t.stavka) return sign * (x + 0.5);
      x += t.double ? 1 : 2;
    }
  }
  return null;
}

/** The regions each arm must keep out of: the others' quarters, and for L and R the stavka's
 * column (where U and D run, `half` a unit wide each side of its centre: a whole unit when a
 * double lies across it), for U and D the opening's row. */
function keepOut(hub, half) {
  if (hub === null) {
    return { R: [region(-INF, INF, -INF, -1)], L: [region(-INF, INF, 1, INF)], U: [], D: [] };
  }
  const [w0, w1] = [hub - half, hub + half];
  const quarter = {
    R: region(w1, INF, 1, INF), L: region(-INF, w0, -INF, -1),
    U: region(w1, INF, -INF, -1), D: region(-INF, w0, 1, INF),
  };
  const column = [region(w0, w1, -INF, -1), region(w0, w1, 1, INF)];
  const row = region(-INF, INF, -1, 1);
  const others = (arm) => Object.keys(quarter).filter((k) => k !== arm).map((k) => quarter[k]);
  return {
    R: [...others("R"), ...column], L: [...others("L"), ...column],
    U: [...others("U"), row], D: [...others("D"), row],
  };
}

/**
 * Lay out `board` ({opening, lines}) inside `box` ({x0, x1, y0, y1} in units, the opening's
 * centre at 0, 0). `wings`: whether U and D need their room (they hold tiles or are offered).
 * Returns {tiles: [{tile, a, b, x, y, horizontal, stavka, end, lineDir}], slots: {end: {x, y,
 * horizontal}}, stavka, empty}, or null when the line does not fit the box.
 */
export function snakeLayout(board, box, wings = true) {
  const out = { tiles: [], slots: {}, stavka: null, empty: false };
  const op = board.opening;
  if (!op) return { ...out, empty: true };
  const taken = [];
  const hub = hubX(board);
  // Without wings (U and D empty and not offered, or no room for quarters) L and R only keep
  // to their own halves.
  const crossed = ["U", "D"].some((e) => (board.lines[e] || []).some((t) => t.double));
  const forbidden = keepOut(wings ? hub : null, crossed ? 1 : 0.5);
  const inside = (r) => r.x >= box.x0 - EPS && r.x + r.w <= box.x1 + EPS
    && r.y >= box.y0 - EPS && r.y + r.h <= box.y1 + EPS;
  const free = (r, arm) => inside(r) && taken.every((o) => !overlaps(r, region(o.x, o.x + o.w, o.y, o.y + o.h)))
    && forbidden[arm].every((q) => !overlaps(r, q));

  const first = op.double
    ? { x: -0.5, y: -1, w: 1, h: 2 }
    : { x: -1, y: -0.5, w: 2, h: 1 };
  if (!inside(first)) return null;
  taken.push(first);
  out.tiles.push({ tile: op.tile, a: op.left, b: op.right, x: first.x, y: first.y,
    horizontal: !op.double, stavka: op.stavka, end: null, lineDir: [1, 0] });
  if (op.stavka) out.stavka = { x: 0, y: 0, dir: [1, 0] };

  /** One arm from `start` along `dir`, each tile straight on where it fits, else turning: a
   * turn (clockwise first) is followed by a second one the same way, so the arm runs back
   * beside itself, and the next pair of turns goes the other way. The open end's slot (where
   * a tile would go next) is kept free like a tile. */
  const run = (end, start, dir) => {
    let cur = start;
    let d = dir;
    let turns = 0;
    let lastAcross = 1;
    for (const t of [...(board.lines[end] || []), null]) {
      const dbl = t !== null && t.double;
      const len = dbl ? 1 : 2;
      const across = dbl ? 2 : 1;
      const side = Math.floor(turns / 2) % 2 === 0 ? 1 : -1;
      const straight = { p: cur, d, turn: false };
      // Round the corner: the tile lies beyond the last one's end ...
      const corner = (s) => {
        const n = rotate(d, s);
        return { p: [cur[0] + d[0] * across / 2 - n[0] * 0.5, cur[1] + d[1] * across / 2 - n[1] * 0.5],
          d: n, turn: true };
      };
      // ... or, where the edge leaves no room for that, beside the last one's end.
      const beside = (s) => {
        const n = rotate(d, s);
        return { p: [cur[0] - d[0] * across / 2 + n[0] * lastAcross / 2,
          cur[1] - d[1] * across / 2 + n[1] * lastAcross / 2], d: n, turn: true };
      };
      const back = turns % 2 === 1; // half-way through a pair of turns
      const order = back
        ? [corner(side), beside(side), straight, corner(-side), beside(-side)]
        : [straight, corner(side), beside(side), corner(-side), beside(-side)];
      let chosen = null;
      for (const c of order) {
        const r = rectAt(c.p, c.d, len, across);
        if (free(r, end)) { chosen = { ...c, r }; break; }
      }
      if (!chosen) return false;
      const { r } = chosen;
      taken.push(r);
      if (chosen.turn) turns += 1;
      d = chosen.d;
      cur = [chosen.p[0] + d[0] * len, chosen.p[1] + d[1] * len];
      lastAcross = across;
      if (t === null) {
        out.slots[end] = { x: r.x, y: r.y, horizontal: d[1] === 0 };
        break;
      }
      // The touching half faces where the line comes from: drawn second when it runs left or up.
      const [a, b] = d[0] + d[1] < 0 ? [t.outer, t.touch] : [t.touch, t.outer];
      out.tiles.push({ tile: t.tile, a, b, x: r.x, y: r.y, horizontal: r.w > r.h,
        stavka: t.stavka, end, lineDir: d });
      if (t.stavka) out.stavka = { x: r.x + r.w / 2, y: r.y + r.h / 2, dir: d };
    }
    return true;
  };

  const half = op.double ? 0.5 : 1;
  if (!run("R", [half, 0], [1, 0]) || !run("L", [-half, 0], [-1, 0])) return null;
  if (out.stavka) {
    const { x, y, dir } = out.stavka;
    // U and D leave the stavka's long sides; the quarters assume it lies on the opening's row.
    if (wings && (dir[1] !== 0 || Math.abs(x - hub) > EPS)) return null;
    const up = dir[1] === 0 ? [0, -1] : [-1, 0];
    const down = dir[1] === 0 ? [0, 1] : [1, 0];
    if (!run("U", [x + up[0], y + up[1]], up) || !run("D", [x + down[0], y + down[1]], down)) {
      return null;
    }
  }
  return out;
}

/** Boxes to try for a felt `w` x `h` units (h may be infinite), best first: centred between
 * the opening and the stavka, then shifted a unit at a time; each also narrowed by a unit or
 * two on either side, so a line that would reach the edge with no room to turn turns earlier. */
export function boxesFor(board, w, h) {
  const hub = board.opening ? hubX(board) ?? 0 : 0;
  const centres = [hub / 2];
  for (let k = 1; k <= 8; k++) centres.push(hub / 2 + k, hub / 2 - k);
  const boxes = [];
  for (const [a, b] of [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [2, 2]]) {
    for (const cx of centres) boxes.push(region(cx - w / 2 + a, cx + w / 2 - b, -h / 2, h / 2));
  }
  return boxes;
}
