// Replay of a finished match from its georgian-domino/1 record: every public position, with
// the board and the open-ends sum, stepped forward and back. The record is trusted (the server
// verified every move as it was played); this only lays it out.
import { t } from "./i18n.js";
import { drawBoard, tileSVG } from "./tiles.js";
import { tileText } from "./tilename.js";

const record = JSON.parse(document.getElementById("kva-record").textContent);
const root = document.getElementById("replay");
const seat = root.dataset.seat === "" ? null : Number(root.dataset.seat);
import { byId as $, h, setText } from "./dom.js";
import { verifyAndShow } from "./fairbadge.js";
import { replayNavigation } from "./replaynav.js";
import { pref } from "./preferences.js";

const canon = (name) => {
  const [a, b] = name.split("-").map(Number);
  return a <= b ? `${a}-${b}` : `${b}-${a}`;
};
const halves = (name) => name.split("-").map(Number);

function playerName(p) {
  const raw = (record.players[p] || {}).name || "";
  if (seat === p) return t("you");
  if (raw.startsWith("bot:")) return t(`bot_${raw.slice(4)}`);
  return raw;
}

/** Every position of the match: [{hand, index, text, board, sum, scores, hands, last, points}]. */
function buildSteps() {
  const steps = [];
  let before = [0, 0];
  record.hands.forEach((hand, h) => {
    const n = h + 1;
    const held = [new Set(hand.deal.hands[0].map(canon)), new Set(hand.deal.hands[1].map(canon))];
    const board = { opening: null, lines: { L: [], R: [], U: [], D: [] } };
    const ask = { L: -1, R: -1, U: -1, D: -1 };
    let stavka = null; // {n, end, closed}
    let sum = 0;
    const scores = [...before];
    const points = {};
    const snap = (text, last) => steps.push({
      hand: n, text, last, sum, scores: [...scores], points: { ...points },
      board: JSON.parse(JSON.stringify(board)), hands: [[...held[0]], [...held[1]]],
    });
    snap(t("replay_start", { n }), null);
    hand.moves.forEach((m, i) => {
      const name = playerName(m.p);
      const args = { n, i: i + 1, name };
      // Whole sentences for "you" and for the other player: the verb agrees with its subject.
      const say = (key, extra = {}) => t(seat === m.p ? `${key}_you` : key, { ...args, ...extra });
      if (m.draw) {
        held[m.p].add(canon(m.draw));
        snap(say("replay_draw", { tile: tileText(m.draw) }), null);
        return;
      }
      if (m.pass) {
        snap(say("replay_pass"), null);
        return;
      }
      const tile = canon(m.play);
      held[m.p].delete(tile);
      const [x, y] = halves(m.play);
      if (!board.opening) {
        const dbl = x === y;
        board.opening = { tile, left: x, right: y, double: dbl, stavka: dbl };
        ask.L = x; ask.R = y;
        if (dbl) stavka = { n: x, end: null, closed: false };
        sum = dbl ? 2 * x : x + y;
        if (m.points) { points[tile] = m.points; scores[m.p] += m.points; }
        snap(say("replay_open", { tile: tileText(m.play) }), tile);
        return;
      }
      const end = m.end;
      const touch = x === ask[end] ? x : y;
      const outer = touch === x ? y : x;
      const dbl = x === y;
      const isStavka = dbl && !stavka;
      board.lines[end].push({ tile, touch, outer, double: dbl, stavka: isStavka });
      ask[end] = outer;
      if (isStavka) stavka = { n: x, end, closed: false };
      else if (stavka && !stavka.closed) {
        const closes = stavka.end === null
          ? board.lines.L.length > 0 && board.lines.R.length > 0
          : end === stavka.end;
        if (closes) { stavka.closed = true; ask.U = stavka.n; ask.D = stavka.n; }
      }
      sum = m.ends_sum;
      if (m.points) { points[tile] = m.points; scores[m.p] += m.points; }
      snap(say("replay_play", { tile: tileText(m.play), end: t(`end_${end}`) }), tile);
    });
    if (hand.result) {
      const r = hand.result;
      const mine = r.winner !== null && r.winner === seat;
      const args = { name: playerName(r.winner), points: r.points };
      let text;
      if (r.end === "forfeit") {
        text = seat === 1 - r.winner ? t("replay_forfeit_you")
          : t("replay_forfeit", { name: playerName(1 - r.winner) });
      } else if (r.winner === null) text = t("hand_fish_draw");
      else if (r.end === "domino") text = t(mine ? "hand_domino_you" : "hand_domino", args);
      else text = t(mine ? "hand_fish_you" : "hand_fish", args);
      if (hand.score) { scores[0] = hand.score[0]; scores[1] = hand.score[1]; }
      snap(t("replay_result", { n, result: text }), null);
      before = hand.score ? [...hand.score] : scores;
    }
  });
  return steps;
}

const steps = buildSteps();

function showHand(el, tiles) {
  el.replaceChildren();
  for (const name of tiles) {
    const s = h("span", { class: "tile mini", dataset: { tile: name } });
    s.appendChild(tileSVG(name));
    el.appendChild(s);
  }
}

function render(pos) {
  const step = steps[pos];
  drawBoard($("replay-board"), step.board, {
    points: step.points, last: step.last, size: pref("board") });
  setText("replay-sum", step.sum);
  setText("replay-move", step.text);
  for (const p of [0, 1]) {
    $(`r-name${p}`).textContent = playerName(p);
    $(`r-hname${p}`).textContent = playerName(p);
    $(`r-score${p}`).textContent = step.scores[p];
    showHand($(`r-hand${p}`), step.hands[p]);
  }
}

replayNavigation(steps.length, render);
// Fair deals: every deal checked against the record's meta.fair (a match from before fair
// deals has none, and no badge).
if (record.meta && record.meta.fair) verifyAndShow($("fair-badge"), record);
