// The settings page: each choice takes effect at once, is kept in this browser, and for a
// registered player is stored with the account (POST /settings).
import { byId, setText } from "./dom.js";
import { pref, savePref } from "./preferences.js";

const form = byId("settings");
const S = JSON.parse(byId("settings-strings").textContent);
const registered = form.dataset.registered === "1";

// The browser's copy may differ from what the server rendered (a guest's choices live only
// here): show what is in force.
for (const input of form.querySelectorAll("input[type=radio]")) {
  input.checked = pref(input.name) === input.value;
}

async function store(name, value) {
  const kept = await savePref(name, value);
  setText("settings-status", !kept ? S.failed : registered ? S.saved : S.saved_here);
}

form.addEventListener("change", async (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.type !== "radio") return;
  if (input.name === "notify" && input.value === "on" && "Notification" in window) {
    const answer = await Notification.requestPermission();
    if (answer !== "granted") {
      form.querySelector('input[name=notify][value=off]').checked = true;
      setText("settings-status", S.denied);
      return;
    }
  }
  store(input.name, input.value);
});
