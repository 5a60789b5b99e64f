// The game page: one WebSocket to the server, which is the only judge of the game.
// Renders each `state` it receives (the full per-viewer view), reconnects by itself, and
// resyncs with `hello` carrying the last version seen.
import { t } from "./i18n.js";
import { drawBoard, tileSVG } from "./tiles.js";
import {
  forfeitText, initCommunity, noteState, onCommunityMessage, renderCommunity,
} from "./community.js";

const root = document.getElementById("game");
const matchId = root.dataset.matchId;
const $ = (id) => document.getElementById(id);
const q = (testid) => document.querySelector(`[data-testid="${testid}"]`);

let state = null; // the last `state` message
let selected = null; // tile chosen that fits several ends
let busy = false; // an action is on its way
let socket = null;
let retry = 0;
let retryTimer = null;
let pingTimer = null;
let toastTimer = null;
let openResult = null; // number of the finished hand whose result is on show

// ------------------------------------------------------------------ helpers
function you() { return state ? state.you : null; }
function bottomSeat() { return you() ?? 0; }
function topSeat() { return 1 - bottomSeat(); }

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

function pipsOf(tiles) {
  return tiles.reduce((s, name) => s + name.split("-").map(Number).reduce((x, y) => x + y, 0), 0);
}

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove("show"), 2600);
}

function setConnection(kind) {
  const c = q("connection");
  c.dataset.state = kind;
  c.querySelector(".conn-text").textContent = kind === "online" ? t("online") : t("reconnecting");
}

// ------------------------------------------------------------------ rendering
function render() {
  if (!state) return;
  const view = state.view;
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
  const score = q("score");
  score.dataset.you = scoreOf(me);
  score.dataset.opponent = scoreOf(op);
  $("hand-no").textContent = `#${view.hand_number}`;

  // Opponent's tiles, face down (none while the seat is still empty).
  const oppHand = q("opponent-hand");
  const seatEmpty = state.status === "waiting" || state.status === "cancelled";
  const oppCount = seatEmpty ? 0 : view.hand_counts[op];
  oppHand.hidden = seatEmpty;
  oppHand.dataset.count = oppCount;
  oppHand.replaceChildren();
  for (let i = 0; i < oppCount; i++) {
    const span = document.createElement("span");
    span.className = "tile back";
    span.appendChild(tileSVG("0-0", { back: true }));
    oppHand.appendChild(span);
  }
  const count = document.createElement("span");
  count.className = "count-badge";
  count.textContent = oppCount;
  oppHand.appendChild(count);

  // Bazaar.
  const bazaar = q("bazaar");
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
  drawBoard($("board"), view.board, {
    points, last, targets, onTarget: (end) => sendPlay(selected, end),
  });
  q("ends-sum").textContent = view.board.ends_sum;

  // My hand.
  const hand = q("hand");
  hand.replaceChildren();
  const myTurn = view.turn === you() && !view.over && state.status === "active";
  if (you() === null) {
    for (let i = 0; i < view.hand_counts[me]; i++) {
      const span = document.createElement("span");
      span.className = "tile back";
      span.appendChild(tileSVG("0-0", { back: true }));
      hand.appendChild(span);
    }
  } else {
    for (const name of view.hand) {
      const btn = document.createElement("button");
      btn.type = "button";
      btn.className = "tile";
      btn.dataset.testid = "tile";
      btn.setAttribute("data-testid", "tile");
      btn.dataset.tile = name;
      btn.setAttribute("aria-label", name);
      if (legal.has(name)) btn.classList.add("legal");
      if (name === selected) btn.classList.add("selected");
      if (name === view.pending) btn.classList.add("pending");
      if (myTurn && !legal.has(name)) btn.classList.add("dim");
      btn.appendChild(tileSVG(name));
      btn.addEventListener("click", () => onTile(name));
      hand.appendChild(btn);
    }
  }

  // Turn and status lines.
  const turn = q("turn");
  const status = q("status");
  if (state.status === "waiting") {
    turn.textContent = "";
    // An open table waits for anyone (the lobby), a closed one for the friend with the link.
    const friend = you() === 0 && root.dataset.open !== "1";
    status.textContent = friend ? t("waiting_friend") : t("waiting_table");
  } else if (state.status === "cancelled") {
    turn.textContent = "";
    status.textContent = t("cancelled");
  } else if (view.over) {
    turn.textContent = "";
    status.textContent = "";
  } else {
    turn.textContent = myTurn ? t("your_turn") : t("their_turn", { name: nameOf(view.turn) });
    turn.classList.toggle("mine", myTurn);
    if (myTurn) {
      const only = view.legal.length === 1 ? view.legal[0].type : null;
      if (only === "draw") status.textContent = t("drawing");
      else if (only === "pass") status.textContent = t("passing");
      else if (selected) status.textContent = t("choose_end", { tile: selected });
      else if (view.forced_opening) status.textContent = t("must_open", { tile: view.forced_opening });
      else status.textContent = t("choose_tile");
    } else if (you() === null) {
      status.textContent = t("watching");
    } else {
      status.textContent = "";
    }
  }
  const box = $("share-box");
  if (box) box.hidden = state.status !== "waiting";
  const resign = q("resign");
  if (resign) resign.disabled = view.over || state.status !== "active";
  renderResults();
  renderCommunity();
}

function handResultKey(n) { return `kva:${matchId}:hand-result:${n}`; }

function showHandResult(summary) {
  const me = bottomSeat();
  const panel = q("hand-result");
  const winner = summary.winner;
  $("hr-title").textContent = t("hand_over", { n: summary.number });
  let text;
  const mine = winner !== null && winner === you();
  if (winner === null) text = t("hand_fish_draw");
  else if (summary.end === "domino") {
    text = mine ? t("hand_domino_you", { points: summary.points })
      : t("hand_domino", { name: nameOf(winner), points: summary.points });
  } else {
    text = mine ? t("hand_fish_you", { points: summary.points })
      : t("hand_fish", { name: nameOf(winner), points: summary.points });
  }
  $("hr-text").textContent = text;
  panel.dataset.end = summary.end;
  panel.dataset.winner = winner === null ? "none" : winner === you() ? "you" : "opponent";
  const hands = $("hr-hands");
  hands.replaceChildren();
  for (const seat of [me, 1 - me]) {
    const row = document.createElement("div");
    row.className = "revealed-row";
    const label = document.createElement("span");
    label.className = "revealed-name";
    const tiles = summary.left_in_hand[seat];
    label.textContent = `${nameOf(seat)} · ${t("hand_pips", { pips: pipsOf(tiles) })}`;
    row.appendChild(label);
    const list = document.createElement("span");
    list.className = "mini-hand";
    if (!tiles.length) list.textContent = t("hand_no_tiles");
    for (const name of tiles) {
      const s = document.createElement("span");
      s.className = "tile mini";
      s.dataset.revealed = name;
      s.appendChild(tileSVG(name));
      list.appendChild(s);
    }
    row.appendChild(list);
    hands.appendChild(row);
  }
  const [a, b] = [summary.score_after[me], summary.score_after[1 - me]];
  $("hr-score").textContent = t("score_after", { a, b });
  const view = state.view;
  const opener = view.moves.length ? view.moves[0].p : view.turn;
  if (!view.over && opener !== null) {
    $("hr-next").textContent = opener === you() ? t("next_opener_you")
      : t("next_opener_other", { name: nameOf(opener) });
  } else {
    $("hr-next").textContent = "";
  }
  $("hr-close").hidden = view.over;
  panel.hidden = false;
}

function renderResults() {
  const view = state.view;
  const handPanel = q("hand-result");
  const last = view.previous.length ? view.previous[view.previous.length - 1] : null;
  const show = last && last.end !== "forfeit" && !sessionStorage.getItem(handResultKey(last.number))
    && (openResult === last.number || view.over || view.moves.length === 0);
  if (show) {
    openResult = last.number;
    showHandResult(last);
  } else {
    handPanel.hidden = true;
  }

  const panel = q("match-result");
  if (!view.over) {
    panel.hidden = true;
    q("match-result-backdrop").hidden = true;
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
    title = `${loser === you() ? t("resigned_you") : t("resigned_other", { name: nameOf(loser) })} ${title}`;
  }
  const forfeit = forfeitText(view);
  if (forfeit) title = `${forfeit} ${title}`;
  $("mr-title").textContent = title;
  if (panel.hidden && !panel.classList.contains("docked")) q("match-result-backdrop").hidden = false;
  $("mr-score").textContent = t("final_score", { a: view.scores[me], b: view.scores[1 - me] });
  panel.hidden = false;
}

function announce(event) {
  if (!event) return;
  const move = event.move || event;
  const who = nameOf(move.p);
  if (move.kind === "open") toast(t("opened", { name: who, tile: move.tile }));
  else if (move.kind === "play") {
    toast(t("played", { name: who, tile: move.tile })
      + (move.points ? `  ${t("scored", { points: move.points })}` : ""));
  } else if (move.kind === "draw") {
    toast(move.tile ? t("drew_you", { tile: move.tile }) : t("drew_other", { name: who }));
  } else if (move.kind === "pass") toast(t("passed", { name: who }));
  else if (event.kind === "join") toast(t("joined", { name: nameOf(event.p) }));
}

// ------------------------------------------------------------------ acting
function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
    return true;
  }
  return false;
}

function sendPlay(tile, end) {
  if (busy || !state) return;
  const action = { type: "play", tile };
  if (end) action.end = end;
  if (send({ type: "action", version: state.version, action })) {
    busy = true;
    selected = null;
  }
}

function dismissHandResult() {
  const last = state.view.previous[state.view.previous.length - 1];
  if (last) sessionStorage.setItem(handResultKey(last.number), "1");
  openResult = null;
  q("hand-result").hidden = true;
}

function onTile(name) {
  if (!state || busy) return;
  // Playing on is the answer to the last hand's result: it makes way for the board.
  if (!q("hand-result").hidden) dismissHandResult();
  const view = state.view;
  const legal = legalByTile(view);
  const ends = legal.get(name);
  if (!ends) {
    const btn = q("hand").querySelector(`[data-tile="${name}"]`);
    if (btn) { btn.classList.remove("nope"); void btn.offsetWidth; btn.classList.add("nope"); }
    return;
  }
  if (ends.length === 1) {
    sendPlay(name, ends[0]);
    return;
  }
  selected = selected === name ? null : name;
  render();
}

// ------------------------------------------------------------------ the socket
function connect() {
  clearTimeout(retryTimer);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/m/${encodeURIComponent(matchId)}`);
  socket = ws;
  ws.addEventListener("open", () => {
    retry = 0;
    setConnection("online");
    ws.send(JSON.stringify({ type: "hello", version: state ? state.version : 0 }));
    clearInterval(pingTimer);
    pingTimer = setInterval(() => send({ type: "ping" }), 25000);
  });
  ws.addEventListener("message", (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (msg.type === "state") {
      if (state && msg.version < state.version) return;
      const event = msg.event;
      state = msg;
      busy = false;
      if (event && (event.kind === "hand_end" || event.kind === "match_end")) {
        openResult = event.hand;
      }
      noteState(msg);
      announce(event);
      render();
    } else if (msg.type === "rematch" || msg.type === "presence" || msg.type === "ratings") {
      onCommunityMessage(msg);
    } else if (msg.type === "error") {
      busy = false;
      const key = `err_${msg.code}`;
      toast(t(key) === key ? t("err_other") : t(key));
      if (msg.code === "stale") send({ type: "hello", version: state ? state.version : 0 });
      render();
    }
  });
  ws.addEventListener("close", () => {
    if (socket !== ws) return;
    clearInterval(pingTimer);
    setConnection("reconnecting");
    busy = false;
    const delay = Math.min(5000, 300 * 2 ** retry) + Math.random() * 200;
    retry += 1;
    retryTimer = setTimeout(connect, delay);
  });
}

window.addEventListener("online", () => {
  if (!socket || socket.readyState !== WebSocket.OPEN) connect();
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && socket && socket.readyState === WebSocket.OPEN) {
    send({ type: "hello", version: state ? state.version : 0 });
  }
});

$("hr-close").addEventListener("click", dismissHandResult);
$("mr-close").addEventListener("click", () => {
  q("match-result").classList.add("docked");
  q("match-result-backdrop").hidden = true;
});
const resignBtn = q("resign");
if (resignBtn) {
  resignBtn.addEventListener("click", () => {
    if (window.confirm(t("resign_confirm"))) send({ type: "resign" });
  });
}
const copy = $("copy-link");
if (copy) {
  copy.addEventListener("click", async () => {
    const input = q("share-link");
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
    toast(t("copied"));
  });
}

initCommunity({ send, nameOf, you, toast, getState: () => state });
setConnection("reconnecting");
connect();
