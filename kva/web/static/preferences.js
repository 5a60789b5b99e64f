// Reading and changing the player's preferences from the pages' modules (static/prefs.js has
// already put them on <html> as data-pref-*). See kva/service/accounts/preferences.py for the choices.
const root = document.documentElement;
const KEY = "kva:prefs";
const DEFAULTS = {
  sound: "off", motion: "system", theme: "system", confirm: "off", notify: "off", board: "normal",
};

/** The current value of preference `name`. */
export function pref(name) {
  return root.getAttribute(`data-pref-${name}`) || DEFAULTS[name];
}

/** Whether tiles may move: not when the player or the device asks for stillness. */
export function motionAllowed() {
  if (pref("motion") === "off") return false;
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Set preference `name` to `value` here at once (and in this browser's storage); the caller
 * stores it with the account when there is one. */
export function setPref(name, value) {
  root.setAttribute(`data-pref-${name}`, value);
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { stored = {}; }
  stored[name] = value;
  try { localStorage.setItem(KEY, JSON.stringify(stored)); } catch { /* private mode */ }
  document.dispatchEvent(new CustomEvent("kva:pref", { detail: { name, value } }));
}

/** Set preference `name` here, and with the account when the player has one (the page carries
 * the account's set on <html data-account-prefs> only then). Resolves to whether it was kept
 * where it should be. */
export async function savePref(name, value) {
  setPref(name, value);
  if (!root.dataset.accountPrefs) return true;
  try {
    const resp = await fetch("/settings", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ [name]: value }),
    });
    return resp.ok;
  } catch {
    return false;
  }
}
