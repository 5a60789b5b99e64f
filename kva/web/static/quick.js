// Quick game: the search lives as long as /ws/quick is open. The server reports the wait and
// the rating range every second, offers a bot after a while, and says "paired" with the match.
const box = document.querySelector('[data-testid="quick"]');
const status = document.querySelector('[data-testid="quick-status"]');
const offer = document.querySelector('[data-testid="quick-bot-offer"]');
const error = document.querySelector('[data-testid="quick-error"]');
const cancel = document.querySelector('[data-testid="quick-cancel"]');
const S = JSON.parse(document.getElementById("quick-strings").textContent);

let ws = null;
let finished = false;
let delay = 500;

function connect() {
  const q = new URLSearchParams({ target: box.dataset.target, bazaar: box.dataset.bazaar,
                                  rated: box.dataset.rated });
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/quick?${q}`);
  ws.addEventListener("open", () => { delay = 500; });
  ws.addEventListener("message", (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (msg.type === "waiting") {
      status.textContent = S.searching.replace("{range}", msg.range).replace("{waited}", msg.waited);
      offer.hidden = !msg.offer_bot;
    } else if (msg.type === "paired") {
      finished = true;
      status.textContent = S.paired;
      location.assign(msg.url);
    } else if (msg.type === "error") {
      finished = msg.code !== "failed";  // a server hiccup: try again; a refusal: stop
      error.textContent = S[msg.code] || S.refused;
      error.hidden = false;
    }
  });
  ws.addEventListener("close", (e) => {
    if (finished) return;
    if (e.code === 4400 || e.code === 4401 || e.code === 1008) {
      error.textContent = S.failed;
      error.hidden = false;
      return;
    }
    status.textContent = S.reconnecting;
    setTimeout(connect, delay);
    delay = Math.min(delay * 2, 10000);
  });
}

cancel.addEventListener("click", () => {
  finished = true;
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "cancel" }));
});
if (box) connect();
