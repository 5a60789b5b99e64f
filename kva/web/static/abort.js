// Abort, as lichess has it: until both players have moved in the first hand, a player may
// call the match off (no winner, no rating, stakes back). The server decides (it refuses a
// late abort with `too_late_to_abort`); the button only follows the state it was sent.
import { byId as $, show } from "./dom.js";
import { t } from "./i18n.js";

const button = $("abort");

/** Whether `state` is a match called off after its deal (both seats were taken). */
export function aborted(state) {
  return state.status === "cancelled" && state.players.length === 2 &&
    state.players.every((p) => p !== null);
}

/** Whether the match in `state` may still be aborted: in its first hand, at most one of the
 *  two players has moved. */
export function mayAbort(state) {
  const view = state.view;
  if (state.status !== "active" || view.over || view.hand_number !== 1) return false;
  return new Set(view.moves.map((m) => m.p)).size < 2;
}

/** Show the Abort button while the match may be aborted (a seated player's page only). */
export function showAbort(state) {
  if (!button) return;
  const may = mayAbort(state);
  show(button, may);
  button.disabled = !may;
}

/** Wire the button: a confirm, then the `abort` message through `send`. */
export function initAbort(send) {
  if (!button) return;
  button.addEventListener("click", () => {
    if (window.confirm(t("abort_confirm"))) send({ type: "abort" });
  });
}
