// The match clocks (docs/rules.md, "Time control"; docs/web-contract.md, `clock`). The server
// owns the time: every `state` says how many milliseconds the running seat had left when it
// was sent, and this page counts down from there with performance.now() (so a wrong clock on
// this device does not matter), until the next state re-syncs it. Nothing here talks to the
// server: the sound and the vibration are local (sound.js, the player's sound setting). A
// match with no clock (preset "none") times only each player's first move: its clock shows
// only while that time runs.
import { t } from "./i18n.js";
import { byId as $, setText, show } from "./dom.js";
import { pref, savePref } from "./preferences.js";
import { buzz, play } from "./sound.js";

const WARN_MS = 10_000; // the last seconds: red, a beep and a vibration

let clock = null; // the last state's `clock`
let receivedAt = 0; // performance.now() when it came
let seats = { me: 0, op: 1 }; // which seat is shown where
let mine = null; // the viewer's seat (warnings are for their own time only)
let timer = null;
let lastWarned = null; // the whole second last warned at, for the running turn

function soundOn() {
  return pref("sound") === "on";
}

/** "1:05" for 65,000 ms (rounded up: 0:00 only once the time is out). */
function fmt(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function warn(seconds) {
  play(seconds <= 3 ? "warnHigh" : "warn");
  if (seconds === 10) buzz(200);
}

/** The time left now to `seat`: [per-move part, reserve part, running]. */
function timeOf(seat) {
  const reserve = clock.left[seat];
  if (clock.seat !== seat) return [0, reserve, false];
  const total = Math.max(0, clock.running_ms - (performance.now() - receivedAt));
  return [Math.max(0, total - reserve), Math.min(reserve, total), true];
}

function paint() {
  if (!clock) return;
  for (const [where, seat] of Object.entries(seats)) {
    const box = $(`${where}-clock`);
    if (!box) continue;
    const [move, reserve, running] = timeOf(seat);
    const total = move + reserve;
    const firstMoveOnly = clock.preset === "none";
    show(box, !firstMoveOnly || running);
    box.classList.toggle("first-move", firstMoveOnly);
    const shownMove = running ? move : clock.per_move * 1000;
    setText(box.querySelector(".clock-move"), fmt(shownMove));
    setText(box.querySelector(".clock-reserve"), fmt(reserve));
    box.dataset.ms = String(Math.round(running ? total : reserve));
    box.classList.toggle("running", running);
    box.classList.toggle("low", running && total <= WARN_MS);
    box.classList.toggle("flagged", clock.flagged === seat);
    if (running && seat === mine && total <= WARN_MS && total > 0) {
      const second = Math.ceil(total / 1000);
      if (second !== lastWarned) {
        lastWarned = second;
        warn(second);
      }
    }
  }
}

function renderSoundButton() {
  const btn = $("clock-sound");
  if (!btn) return;
  const on = soundOn();
  btn.setAttribute("aria-pressed", on ? "true" : "false");
  setText(btn, on ? t("sound_on") : t("sound_off"));
}

/** Take the `clock` of a new state (null: the match has no clock). */
export function syncClock(state) {
  clock = state.clock || null;
  receivedAt = performance.now();
  mine = state.you;
  const me = state.you ?? 0;
  seats = { me, op: 1 - me };
  if (!clock || clock.seat !== mine) lastWarned = null;
  for (const where of ["me", "op"]) show(`${where}-clock`, clock !== null);
  // the sound toggle matters to a player who has a clock, or a first move still to make
  const timed = clock !== null && (clock.preset !== "none" || clock.seat === mine);
  show("clock-sound", timed && mine !== null);
  renderSoundButton();
  clearInterval(timer);
  timer = null;
  if (clock) {
    paint();
    if (clock.seat !== null) timer = setInterval(paint, 200);
  }
}

// The table's mute toggle is the player's sound setting (/settings), kept the same way.
const soundButton = $("clock-sound");
if (soundButton) {
  soundButton.addEventListener("click", () => {
    savePref("sound", soundOn() ? "off" : "on");
    renderSoundButton();
  });
}
document.addEventListener("kva:pref", renderSoundButton);
