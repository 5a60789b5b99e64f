// The game page's community parts: the rematch box in the match result, the banner shown
// while the opponent is disconnected (with the countdown to claiming the win), the rating
// change of a rated match, and the titles of matches lost on time or by abandonment.
// game.js owns the socket and the state; it hands messages and renders over to here.
import { showProvisional } from "./provisional.js";
import { t } from "./i18n.js";
import { byId as $, setText, show } from "./dom.js";

/** The button that sends a message of `type` (its `data-send`), if this viewer has one. */
const button = (type) => document.querySelector(`button[data-send="${type}"]`);

let ctx = null; // { send, nameOf, you, getState }
let rematch = { state: "none", by: null, match_id: null };
let away = null; // { seat, deadline (ms, performance.now) } while the opponent is away
let awayTimer = null;
let ratings = null; // the match_end event's rating change, when the match was rated

/** Wire the buttons; `c` gives access to game.js's socket and state. */
export function initCommunity(c) {
  ctx = c;
  for (const btn of document.querySelectorAll("button[data-send]")) {
    btn.addEventListener("click", () => { btn.disabled = true; ctx.send({ type: btn.dataset.send }); });
  }
}

/** Every `state` message: keep the rating change of a rated match's end. */
export function noteState(msg) {
  const event = msg.event;
  if (event && Array.isArray(event.ratings)) ratings = event.ratings;
  if (msg.view && msg.view.over) stopAway();
}

/** A `rematch`, `presence` or `ratings` message from the server. */
export function onCommunityMessage(msg) {
  if (msg.type === "ratings") {
    if (Array.isArray(msg.ratings)) ratings = msg.ratings;
    renderCommunity();
  } else if (msg.type === "rematch") {
    rematch = msg;
    if (msg.state === "accepted" && msg.match_id && ctx.you() !== null) {
      renderRematch();
      window.location.assign(`/m/${encodeURIComponent(msg.match_id)}`);
      return;
    }
    renderRematch();
  } else if (msg.type === "presence") {
    if (msg.seat === ctx.you()) return;
    if (msg.online) {
      if (away) ctx.toast(t("opponent_back", { name: ctx.nameOf(msg.seat) }));
      stopAway();
    } else {
      away = { seat: msg.seat, deadline: performance.now() + 1000 * (msg.claim_in || 0) };
      clearInterval(awayTimer);
      awayTimer = setInterval(renderAway, 250);
      renderAway();
    }
  }
}

function stopAway() {
  away = null;
  clearInterval(awayTimer);
  awayTimer = null;
  renderAway();
}

function renderAway() {
  const box = $("opponent-away");
  if (!box) return;
  const state = ctx && ctx.getState();
  if (!away || !state || state.view.over || state.status !== "active") {
    box.hidden = true;
    return;
  }
  const left = Math.max(0, Math.ceil((away.deadline - performance.now()) / 1000));
  const name = ctx.nameOf(away.seat);
  const claim = button("claim_win");
  box.hidden = false;
  box.dataset.claimIn = String(left);
  if (left > 0) {
    $("away-text").textContent = ctx.you() === null ? t("away_watch", { name })
      : t("away_wait", { name, seconds: left });
    if (claim) claim.hidden = true;
  } else {
    $("away-text").textContent = t("away_gone", { name });
    if (claim) { claim.hidden = ctx.you() === null; claim.disabled = false; }
  }
}

function renderRematch() {
  const box = $("rematch");
  const state = ctx && ctx.getState();
  if (!box || !state) return;
  box.hidden = !state.view.over;
  if (!state.view.over) return;
  const me = ctx.you();
  const mine = rematch.by !== null && rematch.by === me;
  const other = rematch.by === null ? null : ctx.nameOf(rematch.by);
  const visible = { rematch_offer: false, rematch_accept: false, rematch_decline: false,
    rematch_withdraw: false };
  let text = "";
  if (rematch.state === "offered") {
    if (me === null) text = t("rematch_offered_other", { name: other });
    else if (mine) { text = t("rematch_offered_you"); visible.rematch_withdraw = true; }
    else {
      text = t("rematch_offered_other", { name: other });
      visible.rematch_accept = true;
      visible.rematch_decline = true;
    }
  } else if (rematch.state === "accepted") {
    text = t("rematch_accepted");
  } else {
    if (rematch.state === "declined") {
      text = mine ? t("rematch_declined_other", { name: ctx.nameOf(1 - rematch.by) })
        : (me === null ? "" : t("rematch_declined_you"));
    } else if (rematch.state === "withdrawn") {
      text = mine ? "" : t("rematch_withdrawn", { name: other });
    }
    visible.rematch_offer = me !== null;
  }
  setText("rematch-status", text);
  box.dataset.state = rematch.state;
  for (const [type, on] of Object.entries(visible)) {
    const btn = button(type);
    if (btn) { show(btn, on); btn.disabled = false; }
  }
}

/** The first words of the match result's title for a forfeit on time or by abandonment. */
export function forfeitText(view) {
  if (!view.over || view.winner === null) return "";
  const loser = 1 - view.winner;
  const lost = loser === ctx.you();
  if (view.forfeit_reason === "timeout") {
    const state = ctx.getState();
    const clock = state && state.clock;
    if (clock && clock.preset !== "none" && clock.flagged === loser) { // the clock ran out
      return lost ? t("time_you") : t("time_other", { name: ctx.nameOf(loser) });
    }
    return lost ? t("timeout_you") : t("timeout_other", { name: ctx.nameOf(loser) });
  }
  if (view.forfeit_reason === "abandon") {
    return lost ? t("abandon_you") : t("abandon_other", { name: ctx.nameOf(loser) });
  }
  return "";
}

/** Refresh everything of ours after game.js rendered a state. */
export function renderCommunity() {
  const state = ctx && ctx.getState();
  if (!state) return;
  const line = $("rating-change");
  const seat = ctx.you();
  if (line) {
    const mine = ratings && seat !== null ? ratings[seat] : null;
    line.hidden = !mine;
    if (mine) {
      const delta = mine.after - mine.before;
      line.textContent = t("rating_change", {
        before: mine.before, after: mine.after, delta: delta >= 0 ? `+${delta}` : `−${-delta}` });
      line.dataset.before = mine.before;
      line.dataset.after = mine.after;
    }
    showProvisional(mine);
  }
  renderRematch();
  renderAway();
}
