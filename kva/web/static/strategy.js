// The strategy guide's diagrams: each worked position drawn with the game's tile renderer,
// before the recommended move (with the player's hand) and after it (the move marked).
import { drawBoard, tileSVG } from "./tiles.js";

const examples = JSON.parse(document.getElementById("guide-examples").textContent);
const bySlug = Object.fromEntries(examples.map((e) => [e.slug, e]));

for (const fig of document.querySelectorAll("figure[data-example]")) {
  const ex = bySlug[fig.dataset.example];
  if (!ex) continue;
  drawBoard(fig.querySelector("[data-role=before]"), ex.before.board, { limit: 9 });
  const hand = fig.querySelector("[data-role=hand]");
  for (const name of ex.before.hand) {
    const span = document.createElement("span");
    span.className = "tile mini";
    span.dataset.tile = name;
    if (ex.tile === name) span.classList.add("recommended");
    span.appendChild(tileSVG(name));
    hand.appendChild(span);
  }
  if (ex.after) {
    const after = fig.querySelector("[data-role=after]");
    after.parentElement.hidden = false;
    const points = ex.points ? { [ex.tile]: ex.points } : {};
    drawBoard(after, ex.after.board, { limit: 9, last: ex.tile, points });
  }
  fig.dataset.drawn = "1";
}
