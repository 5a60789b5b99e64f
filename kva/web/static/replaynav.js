// The step controls of both games' replays (templates/_replay_controls.html): first, previous,
// next and last, the arrow keys, the position's words ("3 / 40") and the buttons disabled at
// either end. Each replay only draws a step. Other scripts follow it by two events:
// "kva:replay-step" (detail {pos}) after each step is shown, and "kva:replay-go" (detail: a
// step) moves it (replay_analysis.js).
import { t } from "./i18n.js";
import { byId as $, setText } from "./dom.js";

/** Wire the controls over `count` steps, each drawn by `draw(pos)`, and show the first. */
export function replayNavigation(count, draw) {
  let pos = 0;
  function go(to) {
    pos = Math.max(0, Math.min(count - 1, to));
    draw(pos);
    setText("replay-pos", t("replay_position", { i: pos + 1, n: count }));
    $("replay-prev").disabled = pos === 0;
    $("replay-first").disabled = pos === 0;
    $("replay-next").disabled = pos === count - 1;
    $("replay-last").disabled = pos === count - 1;
    $("replay").dataset.position = String(pos);
    document.dispatchEvent(new CustomEvent("kva:replay-step", { detail: { pos } }));
  }
  $("replay-prev").addEventListener("click", () => go(pos - 1));
  $("replay-next").addEventListener("click", () => go(pos + 1));
  $("replay-first").addEventListener("click", () => go(0));
  $("replay-last").addEventListener("click", () => go(count - 1));
  document.addEventListener("kva:replay-go", (e) => go(e.detail));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") go(pos - 1);
    if (e.key === "ArrowRight") go(pos + 1);
  });
  go(0);
}
