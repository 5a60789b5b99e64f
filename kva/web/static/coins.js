// Domino Coin: the balance in the header (registered players), and on a coin match's page
// what the match did to my wallet once the match dialog opens ("+100" / "−100").
import { byId } from "./dom.js";
import { formatNumber } from "./i18n.js";

async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(String(response.status));
  return response.json();
}

function formatDelta(n) {
  return (n > 0 ? "+" : n < 0 ? "−" : "±") + formatNumber(Math.abs(n));
}

const balance = byId("coin-balance");
async function refreshBalance() {
  if (!balance) return;
  try {
    const msg = await getJSON("/wallet/balance.json");
    if (typeof msg.balance === "number") balance.textContent = formatNumber(msg.balance);
  } catch (_err) { /* the header keeps its last figure */ }
}
refreshBalance();

const stakeBadge = byId("coin-stake");
if (stakeBadge) {
  getJSON(`/wallet/match/${encodeURIComponent(stakeBadge.dataset.match)}.json`).then((msg) => {
    if (msg.stake > 0) {
      stakeBadge.textContent = stakeBadge.dataset.label.replace("{stake}", formatNumber(msg.stake));
      stakeBadge.dataset.stake = String(msg.stake);
      stakeBadge.hidden = false;
    }
  }).catch(() => {});
}

const change = byId("coin-change");
const dialog = byId("match-result");
if (change && dialog) {
  let shown = false;
  const fill = async () => {
    if (dialog.hidden || shown) return;
    for (let i = 0; i < 20; i++) { // the payout is committed with the last move: a few tries
      try {
        const msg = await getJSON(`/wallet/match/${encodeURIComponent(change.dataset.match)}.json`);
        if (!msg.stake) return; // not a coin match
        if (msg.paid) {
          shown = true;
          change.textContent = change.dataset.label.replace("{delta}", formatDelta(msg.delta));
          change.dataset.delta = String(msg.delta);
          change.hidden = false;
          refreshBalance();
          return;
        }
      } catch (_err) { /* try again */ }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  new MutationObserver(fill).observe(dialog, { attributes: true, attributeFilter: ["hidden"] });
  fill();
}
