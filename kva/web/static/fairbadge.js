// The provably-fair badge of the game and replay pages (docs/fairness.md): "deal committed:
// 3f9a1b2c…" from the first state, then, once the match is over, "all N deals verified" from
// the finished record, or a loud warning saying why not. data-state: committed | verifying |
// verified | failed | unavailable (WebCrypto needs HTTPS or localhost).
import { t, tn } from "./i18n.js";
import { verifyRecord } from "./fair.js";
import { setText, show } from "./dom.js";

/** Whether this page can check deals: crypto.subtle exists only in secure contexts. */
export function canVerify() {
  return Boolean(window.isSecureContext && globalThis.crypto && globalThis.crypto.subtle);
}

function set(badge, state, text, title = "") {
  // The game page mirrors the verdict in the match dialog (data-mirror), where it is seen.
  const mirror = badge.dataset.mirror ? document.getElementById(badge.dataset.mirror) : null;
  for (const el of [badge, mirror]) {
    if (!el) continue;
    el.dataset.state = state;
    setText(el.querySelector(".fair-text"), text);
    el.title = title;
    show(el);
  }
}

/** "deal committed: 3f9a1b2c…", the whole commitment in the tooltip. */
export function showCommitment(badge, commitment) {
  if (badge.dataset.state && badge.dataset.state !== "none" && badge.dataset.state !== "committed") {
    return; // already verifying or judged
  }
  set(badge, "committed", t("fair_committed", { short: commitment.slice(0, 8) }),
    t("fair_committed_title", { commitment }));
}

/** A loud warning with the reason. */
export function showFailure(badge, reason) {
  set(badge, "failed", t("fair_failed", { reason }), reason);
  badge.setAttribute("role", "alert");
}

/**
 * Judge a finished record: `expect.commitment` (the one this page saw, or null) must be the
 * record's, `expect.seed` (the seed this browser sent for seat `expect.seat`, or null) its
 * seat's, and every deal must be the one kva-fair/1 derives. Resolves to the state shown.
 */
export async function verifyAndShow(badge, record, expect = {}) {
  if (!canVerify()) {
    set(badge, "unavailable", t("fair_unavailable"));
    return "unavailable";
  }
  set(badge, "verifying", t("fair_verifying"));
  const fair = record && record.meta ? record.meta.fair : null;
  if (fair && expect.commitment && fair.commitment !== expect.commitment) {
    showFailure(badge, t("fair_wrong_commitment"));
    return "failed";
  }
  if (fair && expect.seed && expect.seat !== null && expect.seat !== undefined
      && Array.isArray(fair.client_seeds) && fair.client_seeds[expect.seat] !== expect.seed) {
    showFailure(badge, t("fair_wrong_seed"));
    return "failed";
  }
  let result;
  try {
    result = await verifyRecord(record);
  } catch (err) {
    result = { ok: false, error: String(err && err.message ? err.message : err) };
  }
  if (!result.ok) {
    showFailure(badge, result.error);
    return "failed";
  }
  set(badge, "verified", tn("fair_verified", result.hands),
    fair ? t("fair_committed_title", { commitment: fair.commitment }) : "");
  return "verified";
}
