// What the Kozel table (table.js) and the Kozel replay (replay.js) draw alike: the pages'
// Kozel words, a side's score with its remembered points, and the line of tiles.
import { t as shared } from "../i18n.js";
import { tileSVG } from "../tiles.js";
import { byId as $, h } from "../dom.js";

const blob = $("kozel-strings");
const WORDS = blob ? JSON.parse(blob.textContent) : {};

/** The Kozel word `key` (else the shared text of that key), `{name}` filled from `vars`. */
export function t(key, vars = {}) {
  if (!(key in WORDS)) return shared(key, vars);
  return WORDS[key].replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

/** How a hand ended, in the table's words, a forfeit as what it was (a time loss, a
 * resignation; a player who left, "left the match"): `nameOf(seat)` names a seat, `you` is the
 * page's own seat (null: none). */
export function endText(result, nameOf, you) {
  const forfeit = { time: "time", resign: "resigned" }[result.reason];
  if (result.end === "forfeit" && forfeit) {
    return result.by === you ? shared(`${forfeit}_you`)
      : shared(`${forfeit}_other`, { name: nameOf(result.by) });
  }
  const key = { out: "end_out", fish: "end_fish", "drawn-fish": "end_drawn_fish",
    forfeit: "end_forfeit" }[result.end] || "end_out";
  return t(key, { name: nameOf(result.by) });
}

/** An open score, and remembered points ("+N") beside it while the account is not open. */
export function scoreNode(score, remembered, side) {
  const box = h("span", { class: "k-score", "data-testid": "kozel-score" });
  box.append(h("span", { class: "k-open", text: String(score[side]), title: t("score") }));
  if (remembered[side] > 0) {
    box.append(" ", h("span", { class: "k-remembered", text: `+${remembered[side]}`,
      title: t("remembered_title") }));
  }
  return box;
}

/** The line of tiles into `line`, left to right, its two end tiles marked (and the tile at
 * index `last`, when given, as the last placed). */
export function drawLine(line, names, last = null) {
  line.replaceChildren();
  names.forEach((name, i) => {
    const at = i === 0 ? "k-at-L" : i === names.length - 1 ? "k-at-R" : "";
    const tile = h("span", { class: `k-placed ${at} ${i === last ? "k-last" : ""}`.trim(),
      "data-tile": name });
    tile.append(tileSVG(name, { horizontal: true }));
    line.append(tile);
  });
}
