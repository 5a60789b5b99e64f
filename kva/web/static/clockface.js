// What one player's clock shows, from the last state's `clock` (docs/web-contract.md, `clock`)
// and the milliseconds since it came. Pure, so that Node can test it (tests/web).

/** "1:05" for 65,000 ms (rounded up: 0:00 only once the time is out). */
export function fmt(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The face of `seat`'s clock `elapsed` ms after `clock` came: the texts of the per-move and
 * reserve parts, the time left in ms, and whether it runs, is flagged. A flagged clock's time
 * is all spent: it reads 0:00 + 0:00, not the next move's full allowance. */
export function clockFace(clock, seat, elapsed) {
  const flagged = clock.flagged === seat;
  const reserve = flagged ? 0 : clock.left[seat];
  if (clock.seat !== seat) {
    const move = flagged ? 0 : clock.per_move * 1000;
    return { move: fmt(move), reserve: fmt(reserve), ms: reserve, running: false, flagged };
  }
  const total = Math.max(0, clock.running_ms - elapsed);
  const part = Math.min(reserve, total);
  return { move: fmt(total - part), reserve: fmt(part), ms: Math.round(total), running: true,
    flagged };
}

/** Whether `seat`'s time is really running `elapsed` ms after `clock` came: its turn, and past
 * the pause at a new hand's start (until then the time left is more than a whole move and the
 * reserve). The table closes the last hand's result then, so the time never runs unseen. */
export function timeRuns(clock, seat, elapsed) {
  if (clock.seat !== seat) return false;
  return clock.running_ms - elapsed <= clock.per_move * 1000 + clock.left[seat];
}

/** The last milliseconds of a running clock: it shows red, and its own player is warned once
 * a second (a beep, higher in the last three; a vibration at ten). */
export const WARN_MS = 10_000;

/** Whether `face` (a clockFace) is a running clock in its last seconds. */
export function isLow(face) {
  return face.running && face.ms <= WARN_MS;
}

/** The whole second to warn the clock's own player at now, or null: none is due, or
 * `lastWarned` (the second last warned at, this turn; null for none) is this one. */
export function warningDue(face, lastWarned) {
  if (!isLow(face) || face.ms <= 0) return null;
  const second = Math.ceil(face.ms / 1000);
  return second === lastWarned ? null : second;
}
