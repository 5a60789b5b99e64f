// The table's spectator count: the server sends {"type": "spectators", "count": n} after each
// hello and whenever someone starts or stops watching; the eye and the number show while at
// least one spectator watches (players and spectators alike see it).
import { byId as $, setText, show } from "./dom.js";
import { formatNumber } from "./i18n.js";

/** Show the count of a `spectators` message. */
export function showSpectators(msg) {
  const box = $("spectators");
  if (!box || !Number.isInteger(msg.count)) return;
  box.dataset.count = String(msg.count);
  setText($("spectators-count"), formatNumber(msg.count));
  show(box, msg.count > 0);
}
