// The game page: one WebSocket to the server, which is the only judge of the game.
// Renders each `state` it receives (the full per-viewer view), reconnects by itself, and
// resyncs with `hello` carrying the last version seen.
import { t, tn } from "./i18n.js";
import { drawBoard, tileSVG } from "./tiles.js";
import { byId as $, h, setText, show } from "./dom.js";
import { openSocket } from "./socket.js";
import { play } from "./sound.js";
import { soundOf } from "./tablesound.js";
import { tileText } from "./tilename.js";
import { yourTurn } from "./attention.js";
import { motionAllowed, pref } from "./preferences.js";
import { newClientSeed } from "./fair.js";
import { syncClock } from "./clock.js";
import { showSpectators } from "./spectators.js";
import { renderMoves } from "./movelist.js";
import { aborted, initAbort, showAbort } from "./abort.js";
import { showCommitment, showFailure, verifyAndShow } from "./fairbadge.js";
import {
  forfeitText, initCommunity, noteState, onCommunityMessage, renderCommunity,
} from "./community.js";

const root = $("game");
const matchId = root.dataset.matchId;

let state = null; // the last `state` message
let selected = null; // tile chosen that fits several ends
let busy = false; // an action is on its way
let socket = null; // openSocket(): the one connection to the server
let toastTimer = null;
let openResult = null; // number of the finished hand whose result is on show
let seedSentAt = -1; // the state version at which this page last sent its client seed
let fairChecked = false; // the finished record was fetched and judged
let wasMyTurn = false; // whether the last render was the player's turn (sound, title)
let animatedLast = null; // the board tile that last slid in (each new tile animates once)
const finalBoards = new Map(); // hand number -> the board that hand ended with (view.last_board)
// The result the player put aside to see the board whole ("See the board"): a hand's number,
// or "match". Its dialog stays closed, and "Show the result" (outside the felt) brings it back.
let resultAside = null;

// ------------------------------------------------------------------ helpers
function you() { return state ? state.you : null; }
function bottomSeat() { return you() ?? 0; }
function topSeat() { return 1 - bottomSeat(); }

function isYou(seat) { return state !== null && seat !== null && seat === state.you; }

function nameOf(seat) {
  if (state && seat === state.you) return t("you");
  const p = state && state.players ? state.players[seat] : null;
  if (!p) return t("empty_seat");
  if (p.bot) return t(`bot_${p.bot}`);
  return p.name || t("opponent");
}

function legalByTile(view) {
  const map = new Map();
  for (const a of view.legal) {
    if (a.type !== "play") continue;
    if (!map.has(a.tile)) map.set(a.tile, []);
    map.get(a.tile).push(a.end ?? null);
  }
  return map;
}

/** A tile's name whose halves stay together on a narrow screen ("0‑5", a non-breaking hyphen). */
function pipsOf(tiles) {
  return tiles.reduce((s, name) => s + name.split("-").map(Number).reduce((x, y) => x + y, 0), 0);
}

function toast(text) {
  const box = $("toast");
  // While ends are offered the player looks at the board: no message may cover one. While a
  // finished hand's board is on show, news of the next hand would not belong to it.
  const board = $("board");
  if (board.querySelector(".end-target") || board.dataset.showing === "final") return;
  box.textContent = text;
  fitToast();
  box.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove("show"), 2600);
}

/** Keep the toast beside the open ends' sum, never over it (it is what the player reads after
 * a move): again after each render, as the sum may have grown a digit. */
function fitToast() {
  const box = $("toast");
  const felt = box.parentElement.getBoundingClientRect();
  const sum = document.querySelector(".ends-sum-box").getBoundingClientRect();
  box.style.maxWidth = `${Math.max(120, felt.right - sum.right - 16)}px`;
}

function setConnection(kind) {
  const c = $("connection");
  c.dataset.state = kind;
  const text = t(kind === "online" || kind === "closed" ? kind : "reconnecting");
  c.title = text;
  setText(c.querySelector(".conn-text"), text);
}

/** A face-down tile. */
function backTile() {
  const span = h("span", { class: "tile back" });
  span.appendChild(tileSVG("0-0", { back: true }));
  return span;
}

// ------------------------------------------------------------------ rendering
function render() {
  if (!state) return;
  const view = state.view;
  document.dispatchEvent(new CustomEvent("kva:view", { detail: { view } })); // counting.js
  const me = bottomSeat();
  const op = topSeat();
  root.dataset.status = state.status;
  root.classList.toggle("my-turn", view.turn !== null && view.turn === you() && !view.over);

  $("me-name").textContent = nameOf(me);
  $("opp-name").textContent = nameOf(op);
  // Points count as soon as they are scored: the match score plus this hand's points so far.
  const scoreOf = (seat) => view.scores[seat] + (view.over ? 0 : view.hand_points[seat]);
  $("me-score").textContent = scoreOf(me);
  $("opp-score").textContent = scoreOf(op);
  $("score-you").textContent = scoreOf(me);
  $("score-opp").textContent = scoreOf(op);
  const score = $("score");
  score.dataset.you = scoreOf(me);
  score.dataset.opponent = scoreOf(op);

  // Opponent's tiles, face down (none while the seat is still empty).
  const oppHand = $("opp-hand");
  const seatEmpty = state.status === "waiting" || state.status === "cancelled";
  const oppCount = seatEmpty ? 0 : view.hand_counts[op];
  show(oppHand, !seatEmpty);
  oppHand.dataset.count = oppCount;
  oppHand.replaceChildren();
  for (let i = 0; i < oppCount; i++) oppHand.appendChild(backTile());
  oppHand.appendChild(h("span", { class: "count-badge", text: oppCount }));

  // Bazaar.
  const bazaar = $("bazaar");
  bazaar.dataset.drawable = view.bazaar_counts.drawable;
  bazaar.dataset.protected = view.bazaar_counts.out_of_play;
  $("bazaar-drawable").textContent = view.bazaar_counts.drawable;
  $("bazaar-protected").textContent = view.bazaar_counts.out_of_play;

  // Board.
  const legal = legalByTile(view);
  if (selected && !legal.has(selected)) selected = null;
  const points = {};
  let last = null;
  for (const m of view.moves) {
    if ((m.kind === "play" || m.kind === "open") && m.tile) {
      last = m.tile;
      if (m.points) points[m.tile] = m.points;
    }
  }
  const targets = selected ? legal.get(selected).filter((e) => e) : [];
  const asks = Object.fromEntries(view.board.ends.map((e) => [e.end, e.asks]));
  const board = $("board");
  // While a finished hand's result is on show, the board is the one that hand ended with.
  const result = resultToShow(view);
  const finalBoard = result ? finalBoards.get(result.number) : null;
  // The felt's sum and hand number belong to the board on it: the finished hand's, while
  // that is on show (the next hand may already have begun).
  const shown = finalBoard || view.board;
  setText("ends-sum", shown.ends_sum);
  fitToast();
  setText("hand-no", t("hand_label", { n: finalBoard ? result.number : view.hand_number }));
  if (finalBoard) {
    drawBoard(board, finalBoard, { size: pref("board") });
    board.dataset.showing = "final";
    $("toast").classList.remove("show");
  } else {
    drawBoard(board, view.board, {
      points, last, targets, size: pref("board"), onTarget: (end) => sendPlay(selected, end),
      targetLabel: (end) => t(`end_ask_${end}`, { n: asks[end] ?? "?" }),
    });
    board.dataset.showing = "current";
    if (targets.length) {
      $("toast").classList.remove("show");
      // A long line scrolls inside the felt: the first end offered comes into its view.
      const first = board.querySelector(".end-target");
      if (board.dataset.grows === "1" && first) first.scrollIntoView({ block: "nearest" });
    }
  }
  board.setAttribute("aria-label", boardDescription({ ...view, board: finalBoard || view.board }));
  if (last !== animatedLast) {
    const placed = board.querySelector(`.tile-svg.last`);
    if (placed && animatedLast !== null && motionAllowed()) placed.classList.add("enter");
    animatedLast = last;
  }

  // My hand.
  const hand = $("hand");
  hand.replaceChildren();
  const myTurn = view.turn === you() && !view.over && state.status === "active";
  if (myTurn !== wasMyTurn) {
    if (myTurn && view.legal.length > 1) play("turn");
    yourTurn(myTurn, t("your_turn"));
    wasMyTurn = myTurn;
  }
  if (you() === null) {
    for (let i = 0; i < view.hand_counts[me]; i++) hand.appendChild(backTile());
  } else {
    for (const name of view.hand) {
      // data-testid is for the tests; the code finds a tile by data-tile.
      const key = view.hand.indexOf(name) + 1;
      const btn = h("button", { type: "button", class: "tile", "data-testid": "tile",
        "aria-label": name, "aria-keyshortcuts": key <= 9 ? String(key) : null,
        "aria-pressed": name === selected ? "true" : "false",
        dataset: { tile: name }, on: { click: () => onTile(name) } });
      btn.classList.toggle("legal", legal.has(name));
      btn.classList.toggle("selected", name === selected);
      btn.classList.toggle("pending", name === view.pending);
      btn.classList.toggle("dim", myTurn && !legal.has(name));
      btn.appendChild(tileSVG(name));
      hand.appendChild(btn);
    }
  }

  // Turn and status lines.
  const turn = $("turn");
  const status = $("status");
  turn.classList.toggle("mine", myTurn);
  if (state.status === "waiting") {
    turn.textContent = "";
    // An open table waits for anyone (the lobby), a closed one for the friend with the link.
    const friend = you() === 0 && root.dataset.open !== "1";
    status.textContent = friend ? t("waiting_friend") : t("waiting_table");
  } else if (state.status === "cancelled") {
    turn.textContent = "";
    status.textContent = aborted(state) ? t("aborted") : t("cancelled");
  } else if (view.over) {
    turn.textContent = "";
    status.textContent = "";
  } else if (view.turn === null) { // both seats taken, waiting for the client seeds
    turn.textContent = "";
    status.textContent = t("dealing");
  } else {
    turn.textContent = myTurn ? t("your_turn") : t("their_turn", { name: nameOf(view.turn) });
    if (myTurn) {
      const only = view.legal.length === 1 ? view.legal[0].type : null;
      if (only === "draw") status.textContent = t("drawing");
      else if (only === "pass") status.textContent = t("passing");
      else if (selected && legal.get(selected).every((e) => e === null)) {
        status.textContent = t("confirm_tile", { tile: tileText(selected) });
      } else if (selected) status.textContent = t("choose_end", { tile: tileText(selected) });
      else if (view.forced_opening) {
        status.textContent = t("must_open", { tile: tileText(view.forced_opening) });
      }
      else status.textContent = t("choose_tile");
    } else if (you() === null) {
      status.textContent = t("watching");
    } else {
      status.textContent = "";
    }
  }
  show($("share-box"), state.status === "waiting");
  const resign = $("resign");
  if (resign) resign.disabled = view.over || state.status !== "active";
  showAbort(state);
  renderResults();
  renderCommunity();
}

function handResultKey(n) { return `kva:${matchId}:hand-result:${n}`; }

/** The board in words, for screen readers: how many tiles, and what each open end asks. */
function boardDescription(view) {
  const lines = view.board.lines || {};
  const count = Object.values(lines).reduce((n, line) => n + line.length, 0)
    + (view.board.opening ? 1 : 0);
  if (!view.board.ends.length) return t("board_empty_desc");
  const ends = view.board.ends.map((e) => t(`end_ask_${e.end}`, { n: e.asks }));
  return t("board_desc", { tiles: tn("tiles", count), ends: ends.join("; "), sum: view.board.ends_sum });
}

/** Move the focus into a dialog that just opened (a keyboard or screen-reader player is
 * taken to it), remembering where it was so closing the dialog can bring it back. */
let focusBefore = null;
function focusInto(target) {
  if (!target || target.contains(document.activeElement)) return;
  focusBefore = document.activeElement;
  target.focus({ preventScroll: true });
}
function focusBack() {
  const back = focusBefore && document.contains(focusBefore) ? focusBefore
    : $("hand").querySelector(".tile.legal") || $("hand").querySelector(".tile");
  focusBefore = null;
  if (back) back.focus({ preventScroll: true });
}

/** The sentence that says how hand `summary` ended, with the verb agreeing with "you". */
function handResultText(summary) {
  const { winner, points } = summary;
  if (winner === null) return t("hand_fish_draw");
  if (summary.end === "domino") {
    return isYou(winner) ? t("hand_domino_you", { points })
      : t("hand_domino", { name: nameOf(winner), points });
  }
  return isYou(winner) ? t("hand_fish_you", { points })
    : t("hand_fish", { name: nameOf(winner), points });
}

/** Fill `box` (a hand-result panel or the match dialog's last-hand part) with hand `summary`. */
function fillHandResult(box, summary) {
  const me = bottomSeat();
  const winner = summary.winner;
  setText(box.querySelector(".hr-title"), t("hand_over", { n: summary.number }));
  setText(box.querySelector(".hr-text"), handResultText(summary));
  box.dataset.end = summary.end;
  box.dataset.winner = winner === null ? "none" : isYou(winner) ? "you" : "opponent";
  const rows = [me, 1 - me].map((seat) => {
    const tiles = summary.left_in_hand[seat];
    const list = h("span", { class: "mini-hand" }, tiles.length ? null : t("hand_no_tiles"));
    for (const name of tiles) {
      const s = h("span", { class: "tile mini", dataset: { revealed: name } });
      s.appendChild(tileSVG(name));
      list.appendChild(s);
    }
    return h("div", { class: "revealed-row" },
      h("span", { class: "revealed-name",
        text: `${nameOf(seat)} · ${tn("hand_pips", pipsOf(tiles))}` }),
      list);
  });
  box.querySelector(".revealed").replaceChildren(...rows);
}

function showHandResult(summary) {
  const me = bottomSeat();
  const panel = $("hand-result");
  fillHandResult(panel, summary);
  const [a, b] = [summary.score_after[me], summary.score_after[1 - me]];
  setText("hr-score", t("score_after", { a, b }));
  const view = state.view;
  const opener = view.moves.length ? view.moves[0].p : view.turn;
  if (!view.over && opener !== null) {
    setText("hr-next", isYou(opener) ? t("next_opener_you")
      : t("next_opener_other", { name: nameOf(opener) }));
  } else {
    setText("hr-next", "");
  }
  const opening = panel.hidden;
  show(panel);
  if (opening) focusInto($("hr-close"));
}

/** The finished hand whose result the page shows now, or null: the last one, until the player
 * moves on (at the match's end it is part of the match dialog instead). */
function resultToShow(view) {
  const last = view.previous.length ? view.previous[view.previous.length - 1] : null;
  const show = last && !view.over && last.end !== "forfeit"
    && !sessionStorage.getItem(handResultKey(last.number))
    && (openResult === last.number || view.moves.length === 0);
  return show ? last : null;
}

function renderResults() {
  const view = state.view;
  const last = view.previous.length ? view.previous[view.previous.length - 1] : null;
  const showHand = resultToShow(view);
  if (showHand) openResult = last.number;
  const handAside = showHand !== null && resultAside === last.number;
  if (showHand && !handAside) showHandResult(last);
  else show("hand-result", false);

  const panel = $("match-result");
  const matchAside = view.over && resultAside === "match";
  show("result-reopen", handAside || matchAside);
  if (!view.over || matchAside) {
    show(panel, false);
    show("match-result-backdrop", false);
    return;
  }
  const me = bottomSeat();
  const winner = view.winner;
  panel.dataset.winner = winner === me ? "you" : "opponent";
  let title;
  if (you() === null) title = t("match_winner", { name: nameOf(winner) });
  else title = winner === you() ? t("match_won") : t("match_lost");
  if (view.forfeit_reason === "resign") {
    const loser = 1 - winner;
    title = `${isYou(loser) ? t("resigned_you") : t("resigned_other", { name: nameOf(loser) })} ${title}`;
  }
  const forfeit = forfeitText(view);
  if (forfeit) title = `${forfeit} ${title}`;
  setText("mr-title", title);
  const lastHand = $("mr-hand");
  const played = last && last.end !== "forfeit";
  if (played) fillHandResult(lastHand, last);
  show(lastHand, played);
  if (panel.hidden) show("match-result-backdrop");
  setText("mr-score", t("final_score", { a: view.scores[me], b: view.scores[1 - me] }));
  const opening = panel.hidden;
  show(panel);
  if (opening) focusInto($("mr-title"));
}

/** The sound of `event`: a tile placed (and points), or the match won or lost, on the board,
 * by resignation or on time. */
function sound(event) {
  const name = soundOf(event, you(), state.view.winner);
  if (name) play(name);
}

/** The toast for `event`: whole sentences for you and for the other player. */
function announce(event) {
  if (!event) return;
  const move = event.move || event;
  const mine = isYou(move.p);
  const args = { name: nameOf(move.p), tile: tileText(move.tile) };
  if (move.kind === "open") toast(mine ? t("opened_you", args) : t("opened", args));
  else if (move.kind === "play") {
    toast((mine ? t("played_you", args) : t("played", args))
      + (move.points ? `  ${t("scored", { points: move.points })}` : ""));
  } else if (move.kind === "draw") {
    toast(move.tile ? t("drew_you", args) : t("drew_other", args));
  } else if (move.kind === "pass") toast(mine ? t("passed_you") : t("passed", args));
  else if (event.kind === "join") toast(t("joined", { name: nameOf(event.p) }));
}

// ------------------------------------------------------------------ acting
function send(message) {
  return socket !== null && socket.send(message);
}

function sendPlay(tile, end) {
  if (busy || !state) return;
  const action = { type: "play", tile };
  if (end) action.end = end;
  if (send({ type: "action", version: state.version, action })) {
    busy = true;
    selected = null;
    // The tile leaves the hand at once; the server's state (a few ms later) redraws the hand.
    const btn = $("hand").querySelector(`[data-tile="${tile}"]`);
    if (btn) btn.classList.add("leaving");
  }
}

function dismissHandResult(refocus = true) {
  const last = state.view.previous[state.view.previous.length - 1];
  if (last) sessionStorage.setItem(handResultKey(last.number), "1");
  openResult = null;
  resultAside = null;
  show("hand-result", false);
  render(); // the current hand's board comes back in place of the finished one
  if (refocus) focusBack();
}

function onTile(name) {
  if (!state || busy) return;
  // Playing on is the answer to the last hand's result: it makes way for the board.
  if (!$("hand-result").hidden) dismissHandResult(false);
  const view = state.view;
  const legal = legalByTile(view);
  const ends = legal.get(name);
  if (!ends) {
    const btn = $("hand").querySelector(`[data-tile="${name}"]`);
    if (btn) { btn.classList.remove("nope"); void btn.offsetWidth; btn.classList.add("nope"); }
    return;
  }
  // One end: the tile goes there at once, unless the player asked to confirm each move (then
  // the end is offered like any other, and a second tap or Enter plays it).
  if (ends.length === 1 && pref("confirm") !== "on") {
    sendPlay(name, ends[0]);
    return;
  }
  // An opening has no end to tap: confirming it is a second tap on the tile itself.
  if (ends.length === 1 && ends[0] === null && selected === name) {
    sendPlay(name, null);
    return;
  }
  selected = selected === name ? null : name;
  render();
  if (selected) focusTarget(0);
}

/** Keyboard focus on the `i`-th offered end (wrapping around), so arrows pick and Enter plays. */
function focusTarget(i) {
  const targets = [...$("board").querySelectorAll(".end-target")];
  if (!targets.length) return;
  const n = ((i % targets.length) + targets.length) % targets.length;
  targets[n].focus({ preventScroll: true });
}

// Keyboard play: a digit picks that tile of the hand (1 is the leftmost), the arrows move
// between the ends it may go to, Enter plays, Escape puts it back.
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || !state) return;
  const field = e.target instanceof HTMLElement && e.target.closest("input, textarea, select");
  if (field) return;
  if (/^[1-9]$/.test(e.key)) {
    const tiles = [...$("hand").querySelectorAll(".tile[data-tile]")];
    const btn = tiles[Number(e.key) - 1];
    if (!btn) return;
    e.preventDefault();
    btn.focus({ preventScroll: true });
    onTile(btn.dataset.tile);
  } else if (selected && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) {
    e.preventDefault();
    const targets = [...$("board").querySelectorAll(".end-target")];
    const at = targets.indexOf(document.activeElement);
    focusTarget(at + (e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 1));
  } else if (e.key === "Escape" && selected) {
    const tile = selected;
    selected = null;
    render();
    const btn = $("hand").querySelector(`[data-tile="${tile}"]`);
    if (btn) btn.focus({ preventScroll: true });
  }
});

// ------------------------------------------------------------------ fair deals
// kva-fair/1 (docs/fairness.md): keep the commitment this page saw first and the seed it sent
// (per match, for this tab), send the seed only after the commitment has arrived, and judge
// the finished record against both.
const fairKey = `kva:${matchId}:fair`;

function fairMemory() {
  try { return JSON.parse(sessionStorage.getItem(fairKey)) || {}; } catch { return {}; }
}

function onFair(msg) {
  const fair = msg.fair;
  const badge = $("fair-badge");
  if (!fair || !badge) return;
  const memory = fairMemory();
  if (!memory.commitment) {
    memory.commitment = fair.commitment;
    sessionStorage.setItem(fairKey, JSON.stringify(memory));
  } else if (memory.commitment !== fair.commitment) {
    showFailure(badge, t("fair_wrong_commitment"));
    return;
  }
  showCommitment(badge, memory.commitment);
  const seat = msg.you;
  const open = msg.status === "waiting" || msg.status === "active";
  if (seat !== null && open && !msg.view.over && fair.client_seeds[seat] === null
      && seedSentAt !== msg.version) {
    if (!memory.seed) {
      memory.seed = newClientSeed();
      sessionStorage.setItem(fairKey, JSON.stringify(memory));
    }
    if (send({ type: "seed", seed: memory.seed })) seedSentAt = msg.version;
  }
  if (msg.view.over && fair.server_seed && !fairChecked) {
    fairChecked = true;
    checkRecord(badge, memory, seat);
  }
}

async function checkRecord(badge, memory, seat) {
  let record;
  try {
    const resp = await fetch(`/m/${encodeURIComponent(matchId)}/record.json`);
    if (!resp.ok) throw new Error(String(resp.status));
    record = await resp.json();
  } catch {
    fairChecked = false; // try again with the next state
    showFailure(badge, t("fair_no_record"));
    return;
  }
  await verifyAndShow(badge, record, {
    commitment: memory.commitment || null, seed: memory.seed || null, seat,
  });
}

// ------------------------------------------------------------------ messages
function onState(msg) {
  if (state && msg.version < state.version) return;
  const event = msg.event;
  state = msg;
  busy = false;
  if (msg.view.last_board) finalBoards.set(msg.view.hand_number - 1, msg.view.last_board);
  if (event && (event.kind === "hand_end" || event.kind === "match_end")) openResult = event.hand;
  noteState(msg);
  announce(event);
  sound(event);
  render();
  renderMoves(msg, nameOf);
  syncClock(msg);
  onFair(msg);
}

function onError(msg) {
  busy = false;
  const key = `err_${msg.code}`;
  toast(t(key) === key ? t("err_other") : t(key));
  if (msg.code === "stale") send({ type: "hello", version: state ? state.version : 0 });
  render();
}

$("hr-close").addEventListener("click", () => dismissHandResult());
// The last hand's result covers the hand; it closes itself once the player's time runs
// (docs/rules.md, "Time control": the 10 s at a hand's start are for reading it).
// The finished hand's board, when its result was put aside, makes way for the hand too.
document.addEventListener("kva:my-time-runs", () => {
  const handAside = resultAside !== null && resultAside !== "match";
  if (state && (!$("hand-result").hidden || handAside)) dismissHandResult();
});
// "See the board" puts the result aside: no part of its dialog stays over the board (a docked
// or folded dialog still covered most of a phone's felt). "Show the result" brings it back.
function putResultAside(which) {
  resultAside = which;
  render();
  $("result-reopen").focus({ preventScroll: true });
}
$("hr-fold").addEventListener("click", () => putResultAside(openResult));
$("mr-close").addEventListener("click", () => putResultAside("match"));
$("result-reopen").addEventListener("click", () => {
  const which = resultAside;
  resultAside = null;
  render();
  focusInto(which === "match" ? $("mr-title") : $("hr-close"));
});
const resignBtn = $("resign");
if (resignBtn) {
  resignBtn.addEventListener("click", () => {
    if (window.confirm(t("resign_confirm"))) send({ type: "resign" });
  });
}
const copy = $("copy-link");
if (copy) {
  copy.addEventListener("click", async () => {
    const input = $("share-link");
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
    toast(t("copied"));
  });
}
// The phone's own share sheet for the friend's link, where the browser has one.
const share = $("share-native");
if (share && navigator.share) {
  share.hidden = false;
  share.addEventListener("click", async () => {
    try {
      await navigator.share({ title: document.title, text: t("share_text"),
        url: $("share-link").value });
    } catch { /* closed without sharing */ }
  });
}

initCommunity({ send, nameOf, you, toast, getState: () => state });
initAbort(send);
setConnection("reconnecting");
socket = openSocket(`/ws/m/${encodeURIComponent(matchId)}`, {
  hello: () => ({ type: "hello", version: state ? state.version : 0 }),
  resyncOnVisible: true,
  maxDelay: 5000,
  // 4409: a newer page of this player took this one's place (the server said `replaced`);
  // reconnecting would only take the place back, page after page.
  reconnect: (e) => e.code !== 4409,
  onState: (kind) => {
    if (kind !== "online") busy = false;
    setConnection(kind);
  },
  on: {
    state: onState,
    error: onError,
    rematch: onCommunityMessage,
    presence: onCommunityMessage,
    ratings: onCommunityMessage,
    spectators: showSpectators,
  },
});
