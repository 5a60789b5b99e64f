// Which table sound an event makes (sound.js plays it). Pure, so that Node can test it.

// Every way a match ends: the last hand's result, a resignation, a flag or an abandoned seat.
const MATCH_ENDS = new Set(["match_end", "resign", "forfeit"]);

/** The sound of `event` for the player in seat `you` (null: a spectator): the win or loss
 * sound for a match that ends however it ends (`winner`: the winning seat), the placing or
 * scoring sound for a tile played, else none (null). */
export function soundOf(event, you, winner) {
  if (!event) return null;
  if (MATCH_ENDS.has(event.kind)) {
    if (you === null || you === undefined || winner === null || winner === undefined) return null;
    return winner === you ? "win" : "lose";
  }
  const move = event.move || event;
  if (move.kind === "play" || move.kind === "open") return move.points ? "score" : "place";
  return null;
}

/** The sound of a Kozel state for the player in seat `you` (null: a spectator): `event` is
 * the state's, `before` and `view` the views before and after it (`before` null at first).
 * The match's end: win, or lose for the goat; a hand's end: win when the player's side scored
 * nothing, else lose (a spectator hears the move that ended it); a tile placed; a knock. */
export function kozelSoundOf(event, before, view, you) {
  if (!event || !view || view.dealt === false) return null;
  const seated = you !== null && you !== undefined;
  if (view.over) {
    if (!seated || !before || before.over) return null;
    return view.losers.includes(you) ? "lose" : "win";
  }
  if (seated && before && before.dealt !== false && view.hand > before.hand && view.last) {
    const side = view.sides.findIndex((s) => s.includes(you));
    return view.last.scored[side] > 0 ? "lose" : "win";
  }
  const type = event.action ? event.action.type : null;
  if (type === "play") return "place";
  if (type === "knock") return "knock";
  return null;
}
