// The Kozel table (templates/kozel_table.html; docs/kozel.md): renders each `state` frame of
// /ws/m/{id} (the seat view of kva.kozel.view_to_json) and sends the player's action frames the
// way the Georgian table does. Scores are per side (one seat a side, or a pair at four).
import { t as shared, tn } from "../i18n.js";
import { tileSVG } from "../tiles.js";
import { drawLine, endText, scoreNode as sideScore, t } from "./pieces.js";
import { byId as $, h, setText, show } from "../dom.js";
import { openSocket } from "../socket.js";
import { newClientSeed } from "../fair.js";
import { verifyAndShow } from "../fairbadge.js";
import { clockFace, isLow, timeRuns, warningDue } from "../clockface.js";
import { showMoves } from "../movelist.js";
import { play, warnClock } from "../sound.js";
import { kozelSoundOf } from "../tablesound.js";
import { yourTurn } from "../attention.js";
import "../soundbutton.js";

const root = $("kozel");
const matchId = root.dataset.matchId;
let state = null; // the last `state` frame
let socket = null;
let busy = false; // an action is on its way
let selected = null; // the tile whose end the player is choosing
let handShown = 0; // the number of the hand whose end the player has seen (0: none)
let seedSentAt = -1; // the version a client seed was sent at (kva-fair/1)
let clockAt = 0; // performance.now() when the last state (and its clock) came
let lastWarned = null; // the whole second the player was last warned at, this turn
let handEndSince = 0; // performance.now() when the hand's summary last opened
let ratings = null; // a rated match's Kozel rating changes, one per seat (its end shows them)
let fairChecked = false; // the finished record's deals were sent for checking
let rematch = { state: "none", by: null, match_id: null, agreed: [] };
let wasMyTurn = false; // whether the last render was the player's turn (sound, title)
// How long a hand's summary stays before the player's running time may close it.
const READING_MS = 4000;

function plainName(seat) {
  if (state && seat === state.you) return shared("you");
  const p = state && state.players ? state.players[seat] : null;
  if (!p) return shared("empty_seat");
  if (p.bot) return shared(`bot_${p.bot}`);
  return p.name || shared("opponent");
}

/** A seat's name, with its number when another seat has the same one (two easy bots). */
function nameOf(seat) {
  const name = plainName(seat);
  const seats = state && state.players ? state.players.length : 0;
  for (let other = 0; other < seats; other += 1) {
    if (other !== seat && state.players[other] && plainName(other) === name) {
      return `${name} ${seat + 1}`;
    }
  }
  return name;
}

const sideOf = (view, seat) => view.sides.findIndex((side) => side.includes(seat));

/** The seats that knocked since the last placed tile: a run of knocks, shown as marks. */
function knockers(view) {
  const marks = new Set();
  for (let i = view.moves.length - 1; i >= 0; i -= 1) {
    const move = view.moves[i];
    if (move.play) break;
    if (move.knock) marks.add(move.p);
  }
  return marks;
}

/** An open score, or remembered points ("+N") while the account is not open. */
const scoreNode = (view, side) => sideScore(view.score, view.remembered, side);

/** A seat's clock (filled by paintClocks), when the match has one: a match with no clock
 * times only each player's first move, so its clock shows only while that time runs. */
function clockNode(seat) {
  const clock = state.clock;
  if (!clock || (clock.preset === "none" && clock.seat !== seat)) return null;
  return h("span", { class: "k-clock", "data-testid": "kozel-clock", "data-seat": String(seat) });
}

/** The clocks counted down from the last state's, red in their last seconds, the player's
 * own with a beep each of those seconds (as at the Georgian table). Once the summary has been
 * up for a reading time, the player's own time running closes the hand's summary, so that it
 * never runs unseen behind it. */
function paintClocks() {
  if (!state || !state.clock) return;
  const elapsed = performance.now() - clockAt;
  let mine = null;
  for (const box of root.querySelectorAll(".k-clock")) {
    const seat = Number(box.dataset.seat);
    const face = clockFace(state.clock, seat, elapsed);
    box.textContent = `${face.move} + ${face.reserve}`;
    box.classList.toggle("k-running", face.running);
    box.classList.toggle("k-low", isLow(face));
    if (seat === state.you) mine = face;
  }
  const due = mine ? warningDue(mine, lastWarned) : null;
  if (due !== null) {
    lastWarned = due;
    warnClock(due);
  }
  const read = performance.now() - handEndSince >= READING_MS;
  if (state.you !== null && !$("k-hand-end").hidden && read
      && timeRuns(state.clock, state.you, elapsed)) {
    closeHandEnd();
  }
}

function renderOthers(view) {
  const list = $("k-others");
  list.replaceChildren();
  const knocked = knockers(view);
  const me = state.you ?? 0;
  for (let step = 1; step <= view.seats; step += 1) {
    const seat = (me + step) % view.seats;
    if (seat === state.you) continue;
    const item = h("li", { class: `k-player${view.turn === seat ? " k-on-turn" : ""}`,
      "data-testid": "kozel-player", "data-seat": String(seat) });
    item.append(h("span", { class: "k-name", text: nameOf(seat) }));
    const backs = h("span", { class: "k-backs", title: t("tiles_face_down", { n: view.held[seat] }),
      "data-testid": "kozel-held" }, h("b", { text: String(view.held[seat]) }));
    item.append(backs, scoreNode(view, sideOf(view, seat)));
    const clock = clockNode(seat);
    if (clock) item.append(clock);
    if (knocked.has(seat)) item.append(h("span", { class: "k-knock", text: t("knocked") }));
    list.append(item);
  }
}

function renderLine(view) {
  drawLine($("k-line"), view.line);
  setText("k-bazaar", String(view.bazaar));
  setText("k-limit", String(view.options.limit));
  setText("k-hand-no", shared("hand_label", { n: view.hand }));
  const carry = $("k-carry");
  show(carry, view.carry > 0);
  carry.textContent = `\u{1F41F} +${view.carry}`; // the fish sign
  carry.title = t("carry_title");
}

/** The legal placements of each tile: tile name -> the ends it may go on ([] to open). */
function placements(view) {
  const byTile = new Map();
  for (const action of view.legal || []) {
    if (action.type !== "play") continue;
    const ends = byTile.get(action.tile) || [];
    if (action.end) ends.push(action.end);
    byTile.set(action.tile, ends);
  }
  return byTile;
}

function renderHand(view) {
  const hand = $("k-hand");
  hand.replaceChildren();
  const playable = placements(view);
  for (const name of view.tiles) {
    const can = playable.has(name) && !busy;
    const button = h("button", { type: "button", class: `k-tile${can ? " k-playable" : ""}`
      + `${selected === name ? " k-selected" : ""}`, "data-tile": name,
    "data-playable": can ? "1" : "0", "aria-label": name, disabled: !can });
    button.append(tileSVG(name));
    button.addEventListener("click", () => chooseTile(name));
    hand.append(button);
  }
  const ends = $("k-ends");
  const choices = selected ? playable.get(selected) || [] : [];
  show(ends, choices.length > 1);
  for (const button of ends.querySelectorAll("button")) {
    const end = button.dataset.end;
    const n = view.ends ? view.ends[end] : "";
    button.textContent = `${t(end === "L" ? "left_end" : "right_end")} · ${n}`;
  }
}

function renderMe(view) {
  const me = $("k-me");
  me.replaceChildren();
  if (state.you === null) return;
  me.append(h("span", { class: "k-name", text: shared("you") }), " ",
    scoreNode(view, sideOf(view, state.you)));
  const clock = clockNode(state.you);
  if (clock) me.append(" ", clock);
}

function renderStatus(view) {
  const mine = state.you !== null && view.turn === state.you && view.legal.length > 0;
  signalTurn(mine && !view.over && state.status === "active", view);
  let text = "";
  if (state.status === "waiting") text = waitingText();
  else if (view.over) text = shared("err_over");
  else if (mine) text = shared("your_turn");
  else if (view.turn !== null) text = shared("their_turn", { name: nameOf(view.turn) });
  setText("k-status", text);
  const kinds = new Set(view.legal.map((a) => a.type));
  show("k-draw", mine && kinds.has("draw"));
  show("k-knock", mine && kinds.has("knock"));
  for (const id of ["k-draw", "k-knock"]) $(id).disabled = busy;
  show("k-resign", !view.over && state.status === "active");
}

/** The player's turn, once as it comes: the turn sound when there is a choice to make (the
 * game makes a forced draw or knock itself), and the tab's title (attention.js). */
function signalTurn(mine, view) {
  if (mine === wasMyTurn) return;
  if (mine && view.legal.length > 1) play("turn");
  yourTurn(mine, shared("your_turn"));
  wasMyTurn = mine;
}

/** The hand's moves in the move list (movelist.js), each as that list has it. */
function renderMoveList(view) {
  const moves = view.dealt === false ? [] : view.moves.map((m) => {
    if (m.draw) return { p: m.p, kind: "draw" };
    if (m.knock) return { p: m.p, kind: "knock" };
    return { p: m.p, kind: m.end ? "play" : "open", tile: m.play, end: m.end };
  });
  showMoves(view.hand ?? 0, moves, state.you, nameOf);
}

/** How many seats are still free at a waiting table. */
const freeSeats = () => (state.players || []).filter((p) => p === null).length;

/** What a waiting table says it waits for: its free seats, counted. */
function waitingText() {
  return tn("kozel_waiting", freeSeats());
}

/** A waiting table's seats: who sits in each, and which are free. */
function renderSeats() {
  const waiting = state.status === "waiting";
  show("k-seats", waiting);
  if (!waiting) return;
  const players = state.players || [];
  setText("k-seats-title", tn("kozel_seats_free", freeSeats()));
  $("k-seat-list").replaceChildren(...players.map((p, seat) => h("li", {
    class: p === null ? "k-seat k-free" : "k-seat", "data-testid": "kozel-seat",
    "data-seat": String(seat), "data-free": p === null ? "1" : "0",
    text: p === null ? t("free_seat") : nameOf(seat) })));
}

/** The hand's end: every side's count and what it scored, until the player closes it. */
function renderHandEnd(view) {
  const box = $("k-hand-end");
  const last = view.last;
  const finished = view.over ? view.hand : view.hand - 1; // the hand `last` belongs to
  if (!last || finished < 1 || handShown >= finished) { show(box, false); return; }
  setText("k-hand-end-title", shared("hand_over", { n: finished }));
  setText("k-hand-end-how", endText(last, nameOf, state.you));
  setText("k-col-count", t("count"));
  setText("k-col-scored", t("scored"));
  setText("k-col-score", t("score"));
  const rows = $("k-hand-end-rows");
  rows.replaceChildren();
  view.sides.forEach((side, i) => {
    const names = side.map(nameOf).join(" + ");
    rows.append(h("tr", { "data-testid": "kozel-hand-end-row" },
      h("th", { text: names }), h("td", { text: String(last.counts[i]) }),
      h("td", { text: last.scored[i] > 0 ? `+${last.scored[i]}` : String(last.scored[i]) }),
      h("td", {}, scoreNode(view, i))));
  });
  if (box.hidden) handEndSince = performance.now();
  show(box, true);
}

/** The match's end: the козёл named, the others ranked by score, lowest first. */
function renderMatchEnd(view) {
  const box = $("k-match-end");
  const handOpen = !$("k-hand-end").hidden;
  show(box, view.over && !handOpen);
  if (!view.over) return;
  const mine = state.you !== null && view.losers.includes(state.you);
  setText("k-goat", mine ? t("you_goat") : t("goat_named", { names: view.losers.map(nameOf).join(", ") }));
  const order = view.sides.map((side, i) => i).sort((a, b) => view.score[a] - view.score[b]);
  const list = $("k-standings");
  list.replaceChildren(...order.map((i) => h("li", {},
    `${view.sides[i].map(nameOf).join(" + ")} · ${view.score[i]}`)));
  renderRatings();
}

/** A rated match's end: each seat's Kozel rating after it, with the change (+N / −N). */
function renderRatings() {
  const list = $("k-ratings");
  show(list, ratings !== null);
  if (ratings === null) return;
  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0");
  list.replaceChildren(...ratings.map((r) => h("li", {},
    t("kozel_rating_line", { name: nameOf(r.seat), after: r.after, change: signed(r.change) }))));
}

/** The rating changes of the end (the finishing state's event, or the `ratings` message a
 * page opened later gets): Kozel entries carry their seat. */
function onRatings(list) {
  if (!Array.isArray(list) || !list.every((r) => typeof r.seat === "number")) return;
  ratings = list;
  render();
}

/** A table not dealt yet (waiting for a player, or for the seeds of its deal): no tiles. */
function renderUndealt() {
  for (const id of ["k-others", "k-line", "k-hand", "k-me"]) $(id).replaceChildren();
  setText("k-status", state.status === "waiting" ? waitingText() : "");
  for (const id of ["k-draw", "k-knock", "k-ends", "k-hand-end", "k-match-end", "k-resign",
    "move-list"]) show(id, false);
}

function render() {
  if (!state) return;
  const view = state.view;
  root.dataset.status = state.status;
  // The waiting table's own controls (seat a bot, leave) go once the last seat is taken.
  if ($("k-waiting")) show("k-waiting", state.status === "waiting");
  renderSeats();
  renderMoveList(view);
  if (view.dealt === false) { renderUndealt(); return; }
  show("move-list", true);
  root.dataset.hand = String(view.hand);
  root.dataset.over = view.over ? "1" : "0";
  renderOthers(view);
  renderLine(view);
  renderHand(view);
  renderMe(view);
  renderStatus(view);
  renderHandEnd(view);
  renderMatchEnd(view);
  paintClocks();
}

function send(message) {
  return socket !== null && socket.send(message);
}

function act(action) {
  if (busy || !state) return;
  if (send({ type: "action", version: state.version, action })) {
    busy = true;
    selected = null;
    render();
  }
}

function chooseTile(name) {
  const ends = placements(state.view).get(name);
  if (!ends) return;
  if (ends.length > 1) { // both ends fit: the player picks one
    selected = selected === name ? null : name;
    render();
    return;
  }
  act(ends.length ? { type: "play", tile: name, end: ends[0] } : { type: "play", tile: name });
}

/** kva-fair/1: the player's client seed, sent once the commitment is in (docs/fairness.md). */
function sendSeed(msg) {
  const fair = msg.fair;
  const seat = msg.you;
  if (!fair || seat === null || msg.view.over || fair.client_seeds[seat] !== null) return;
  if (!(msg.status === "waiting" || msg.status === "active") || seedSentAt === msg.version) return;
  const key = `kva:${matchId}:fair`;
  let memory = {};
  try { memory = JSON.parse(sessionStorage.getItem(key)) || {}; } catch { /* a fresh tab */ }
  if (!memory.seed) {
    memory = { ...memory, commitment: memory.commitment || fair.commitment, seed: newClientSeed() };
    sessionStorage.setItem(key, JSON.stringify(memory));
  }
  if (send({ type: "seed", seed: memory.seed })) seedSentAt = msg.version;
}

/** The match's end: its record's deals checked against the commitment this tab saw and the
 * seed it sent (kva-fair/1, docs/fairness.md), shown on the fair-deal badge. */
async function checkFair(msg) {
  if (fairChecked || !msg.view.over || !msg.fair || !msg.fair.server_seed) return;
  fairChecked = true;
  let memory = {};
  try { memory = JSON.parse(sessionStorage.getItem(`kva:${matchId}:fair`)) || {}; } catch { /* none */ }
  try {
    const resp = await fetch(`/m/${encodeURIComponent(matchId)}/record.json`);
    if (!resp.ok) throw new Error(String(resp.status));
    await verifyAndShow($("fair-badge"), await resp.json(), {
      commitment: memory.commitment || null, seed: memory.seed || null, seat: msg.you });
  } catch {
    fairChecked = false; // try again with the next state
  }
}

/** The rematch box: who agreed, and this player's buttons. At more than two seats the
 * message lists every seat that agreed; the match starts once every person has. */
function renderRematch() {
  const me = state ? state.you : null;
  const agreed = rematch.agreed || (rematch.by === null ? [] : [rematch.by]);
  const visible = { rematch_offer: false, rematch_accept: false, rematch_decline: false,
    rematch_withdraw: false };
  let text = "";
  if (rematch.state === "offered") {
    const others = agreed.filter((seat) => seat !== me).map(nameOf).join(", ");
    if (me !== null && agreed.includes(me)) {
      text = shared("rematch_offered_you");
      visible.rematch_withdraw = true;
    } else {
      text = shared("rematch_offered_other", { name: others });
      visible.rematch_accept = me !== null;
      visible.rematch_decline = me !== null;
    }
  } else if (rematch.state === "accepted") {
    text = shared("rematch_accepted");
  } else { // none, declined or withdrawn: anyone seated may offer (again)
    visible.rematch_offer = me !== null;
  }
  setText("rematch-status", text);
  $("rematch").dataset.state = rematch.state;
  for (const [type, on] of Object.entries(visible)) {
    const button = root.querySelector(`button[data-send="${type}"]`);
    if (button) { show(button, on); button.disabled = false; }
  }
}

function onRematch(msg) {
  rematch = msg;
  renderRematch();
  if (msg.state === "accepted" && msg.match_id && state && state.you !== null) {
    window.location.assign(`/m/${encodeURIComponent(msg.match_id)}`);
  }
}

for (const button of root.querySelectorAll("button[data-send]")) {
  button.addEventListener("click", () => {
    button.disabled = true;
    send({ type: button.dataset.send });
  });
}

function onState(msg) {
  if (state && msg.version < state.version) return;
  if (state === null && msg.view.last && !msg.view.over) {
    handShown = msg.view.hand - 1; // a reload: the hands already over were seen
  }
  const before = state ? state.view : null;
  state = msg;
  clockAt = performance.now();
  if (!msg.clock || msg.clock.seat !== msg.you) lastWarned = null;
  const sound = kozelSoundOf(msg.event, before, msg.view, msg.you);
  if (sound) play(sound);
  busy = false;
  if (selected && !placements(msg.view).has(selected)) selected = null;
  sendSeed(msg); // first: the deal waits for it
  if (msg.event && msg.event.ratings) onRatings(msg.event.ratings);
  render();
  renderRematch();
  checkFair(msg);
}

function onError(msg) {
  busy = false;
  if (msg.code === "stale") send({ type: "hello", version: state ? state.version : 0 });
  const key = `err_${msg.code}`;
  setText("k-status", shared(key) === key ? shared("err_other") : shared(key));
  render();
}

$("k-ends").addEventListener("click", (e) => {
  const end = e.target.closest("button")?.dataset.end;
  if (end && selected) act({ type: "play", tile: selected, end });
});
$("k-draw").addEventListener("click", () => act({ type: "draw" }));
$("k-knock").addEventListener("click", () => act({ type: "knock" }));
function closeHandEnd() {
  handShown = state.view.over ? state.view.hand : state.view.hand - 1;
  render();
}

$("k-hand-end-close").addEventListener("click", closeHandEnd);
setInterval(paintClocks, 250);
const resign = $("k-resign");
if (resign) {
  resign.addEventListener("click", () => {
    if (window.confirm(shared("resign_confirm"))) send({ type: "resign" });
  });
}

socket = openSocket(`/ws/m/${encodeURIComponent(matchId)}`, {
  hello: () => ({ type: "hello", version: state ? state.version : 0 }),
  resyncOnVisible: true,
  maxDelay: 5000,
  reconnect: (e) => e.code !== 4409,
  onState: (kind) => { if (kind !== "online") busy = false; },
  on: { state: onState, error: onError, ratings: (msg) => onRatings(msg.ratings),
        rematch: onRematch },
});
