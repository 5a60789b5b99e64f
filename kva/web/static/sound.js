// Table sounds, made with Web Audio on the spot (nothing to download, nothing to wait for): a
// tile placed, a knock, your turn, points scored, the clock's last seconds, a hand or match won
// or lost.
// Silent unless the player turned sound on (/settings). Browsers let a page make sound only
// after a gesture, so the audio context is started by the first tap or key press.
import { pref } from "./preferences.js";

let ctx = null;

function unlock() {
  if (ctx === null) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    ctx = new Context();
  }
  if (ctx.state === "suspended") ctx.resume();
}
for (const kind of ["pointerdown", "keydown"]) {
  window.addEventListener(kind, unlock, { capture: true, passive: true });
}

// Each sound: notes of [frequency Hz, start s, length s, wave, volume].
const SOUNDS = {
  place: [[330, 0, 0.05, "triangle", 0.22], [196, 0.01, 0.08, "sine", 0.12]],
  knock: [[140, 0, 0.06, "square", 0.12], [140, 0.12, 0.06, "square", 0.12]],
  turn: [[660, 0, 0.09, "sine", 0.1], [880, 0.1, 0.14, "sine", 0.1]],
  score: [[523, 0, 0.08, "triangle", 0.12], [659, 0.08, 0.08, "triangle", 0.12],
    [784, 0.16, 0.16, "triangle", 0.12]],
  warn: [[880, 0, 0.08, "square", 0.05]],
  warnHigh: [[1320, 0, 0.08, "square", 0.05]],
  win: [[392, 0, 0.14, "triangle", 0.14], [523, 0.14, 0.14, "triangle", 0.14],
    [659, 0.28, 0.3, "triangle", 0.14]],
  lose: [[392, 0, 0.18, "sine", 0.12], [311, 0.18, 0.3, "sine", 0.12]],
};

/** Play sound `name` now, if the player wants sound and the browser allows it. */
export function play(name) {
  const notes = SOUNDS[name];
  if (!notes || pref("sound") !== "on" || ctx === null || ctx.state !== "running") return;
  const now = ctx.currentTime;
  for (const [freq, start, length, wave, volume] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0, now + start);
    gain.gain.linearRampToValueAtTime(volume, now + start + 0.005);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
}

/** Vibrate (phones that allow it, after a gesture): the clock's warning felt in the pocket,
 * sound or no sound. */
export function buzz(pattern) {
  if (!navigator.vibrate) return;
  try { navigator.vibrate(pattern); } catch { /* not allowed here */ }
}

/** Warn a player that their clock reads `seconds` (clockface.js's warningDue): a beep, higher
 * in the last three seconds, and a vibration at ten. */
export function warnClock(seconds) {
  play(seconds <= 3 ? "warnHigh" : "warn");
  if (seconds === 10) buzz(200);
}
