// A table's mute toggle (#clock-sound, at both tables): the player's sound setting
// (/settings), kept the same way, and the button that shows it.
import { t } from "./i18n.js";
import { byId as $, setText } from "./dom.js";
import { pref, savePref } from "./preferences.js";

const soundOn = () => pref("sound") === "on";

/** Show the setting on the button (its words hide on a narrow table, the icon alone says it). */
export function renderSoundButton() {
  const btn = $("clock-sound");
  if (!btn) return;
  const on = soundOn();
  const text = on ? t("sound_on") : t("sound_off");
  btn.setAttribute("aria-pressed", on ? "true" : "false");
  btn.title = text;
  btn.setAttribute("aria-label", text);
  setText(btn.querySelector(".sound-text") || btn, text);
}

const soundButton = $("clock-sound");
if (soundButton) {
  soundButton.addEventListener("click", () => {
    savePref("sound", soundOn() ? "off" : "on");
    renderSoundButton();
  });
}
document.addEventListener("kva:pref", renderSoundButton);
renderSoundButton(); // the mute toggle shows at every table, with a clock or without
