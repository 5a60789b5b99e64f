// The match clocks (docs/rules.md, "Time control"; docs/web-contract.md, `clock`). The server
// owns the time: every `state` says how many milliseconds the running seat had left when it
// was sent, and this page counts down from there with performance.now() (so a wrong clock on
// this device does not matter), until the next state re-syncs it. Nothing here talks to the
// server: the sound and the vibration are local (sound.js, the player's sound setting). A
// match with no clock (preset "none") times only each player's first move: its clock shows
// only while that time runs.
import { byId as $, setText, show } from "./dom.js";
import { warnClock } from "./sound.js";
import { clockFace, isLow, timeRuns, warningDue } from "./clockface.js";
import { renderSoundButton } from "./soundbutton.js";

let clock = null; // the last state's `clock`
let receivedAt = 0; // performance.now() when it came
let seats = { me: 0, op: 1 }; // which seat is shown where
let mine = null; // the viewer's seat (warnings are for their own time only)
let timer = null;
let lastWarned = null; // the whole second last warned at, for the running turn
let runTold = false; // whether the page was told that the viewer's time now runs, this turn

function paint() {
  if (!clock) return;
  for (const [where, seat] of Object.entries(seats)) {
    const box = $(`${where}-clock`);
    if (!box) continue;
    const elapsed = performance.now() - receivedAt;
    const face = clockFace(clock, seat, elapsed);
    if (seat === mine && !runTold && timeRuns(clock, seat, elapsed)) {
      // The hand's start pause is over: whatever covers the hand must go (game.js).
      runTold = true;
      document.dispatchEvent(new CustomEvent("kva:my-time-runs"));
    }
    const { running } = face;
    const total = face.ms;
    const firstMoveOnly = clock.preset === "none";
    show(box, !firstMoveOnly || running);
    box.classList.toggle("first-move", firstMoveOnly);
    setText(box.querySelector(".clock-move"), face.move);
    setText(box.querySelector(".clock-reserve"), face.reserve);
    box.dataset.ms = String(total);
    box.classList.toggle("running", running);
    box.classList.toggle("low", isLow(face));
    box.classList.toggle("flagged", face.flagged);
    const due = seat === mine ? warningDue(face, lastWarned) : null;
    if (due !== null) {
      lastWarned = due;
      warnClock(due);
    }
  }
}

/** Take the `clock` of a new state (null: the match has no clock). */
export function syncClock(state) {
  clock = state.clock || null;
  receivedAt = performance.now();
  mine = state.you;
  const me = state.you ?? 0;
  seats = { me, op: 1 - me };
  if (!clock || clock.seat !== mine) { lastWarned = null; runTold = false; }
  for (const where of ["me", "op"]) show(`${where}-clock`, clock !== null);
  renderSoundButton();
  clearInterval(timer);
  timer = null;
  if (clock) {
    paint();
    if (clock.seat !== null) timer = setInterval(paint, 200);
  }
}
