// The data of the replay's win-chance graph. Each analysed decision carries the first
// player's chance as its mover estimated it from their own tiles; the two players' estimates
// disagree (each sees only their own hand), so drawing both makes the line zig-zag. The graph
// is drawn from one side: that player's own decisions, as their chance, then the match's end
// (100 or 0). Pure, so that Node can test it.

/** The side the graph is drawn from: the viewer's seat, or the first player for a spectator. */
export function graphSide(seat) {
  return seat === 0 || seat === 1 ? seat : 0;
}

/** The graph's points for `side`: [{hand, move, chance, mark, end}] in match order, the last
 * one the match's result (`winner`: the winning seat; none while it is unknown). */
export function graphPoints(decisions, side, winner, lastHand) {
  const points = decisions
    .filter((d) => typeof d.chance === "number" && d.player === side)
    .map((d) => ({ hand: d.hand, move: d.move, mark: d.mark || null, end: false,
      chance: side === 0 ? d.chance : 100 - d.chance }));
  if (winner === 0 || winner === 1) {
    points.push({ hand: lastHand, move: null, mark: null, end: true,
      chance: winner === side ? 100 : 0 });
  }
  return points;
}
