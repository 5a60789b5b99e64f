// The player's preferences (sound, motion, theme, move confirmation, notifications) on <html>
// as data-pref-* before the page paints, so a dark theme never flashes light. A registered
// player's stored set arrives on <html data-account-prefs> and wins over this browser's copy;
// a guest's lives in localStorage only. A classic script, loaded blocking in <head>.
(function () {
  var root = document.documentElement;
  var KEY = "kva:prefs";
  var prefs = {};
  try { prefs = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch (e) { prefs = {}; }
  if (root.dataset.accountPrefs) {
    try { prefs = JSON.parse(root.dataset.accountPrefs); } catch (e) { /* keep the browser's */ }
    try { localStorage.setItem(KEY, JSON.stringify(prefs)); } catch (e) { /* private mode */ }
  }
  Object.keys(prefs).forEach(function (name) {
    if (typeof prefs[name] === "string" && /^[a-z]+$/.test(name)) {
      root.setAttribute("data-pref-" + name, prefs[name]);
    }
  });
})();
