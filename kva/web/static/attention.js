// "Your turn" where a player looks when the game is not in front of them: the tab's title
// (always, like a chess site's), and a system notification while the tab is hidden, when the
// player turned notifications on (/settings) and the browser allows them.
import { pref } from "./preferences.js";

const plainTitle = document.title;
let notice = null;

/** Say (or stop saying) that it is the player's turn; `text` is the translated "Your turn". */
export function yourTurn(mine, text) {
  document.title = mine ? `● ${text} · ${plainTitle}` : plainTitle;
  if (!mine) {
    if (notice) notice.close();
    notice = null;
    return;
  }
  const allowed = "Notification" in window && Notification.permission === "granted";
  if (document.hidden && allowed && pref("notify") === "on") {
    notice = new Notification(text, { tag: "kva-turn", icon: "/static/icon-192.png" });
    notice.addEventListener("click", () => { window.focus(); notice.close(); });
  }
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && notice) { notice.close(); notice = null; }
});
