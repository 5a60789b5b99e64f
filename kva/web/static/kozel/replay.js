// The replay of a finished Kozel match (templates/kozel_replay.html; docs/kozel.md): every
// position of every hand from its kozel/1 record, the deal, each move and each hand's end,
// stepped forward and back like the Georgian replay. It draws with the Kozel table's pieces
// (pieces.js: the line of tiles and the score marks; the players' rows of table.css) and shows
// every hand face up, as a finished record may. The record is trusted (the server checked
// every move as it was played); this only lays it out.
import { t as shared } from "../i18n.js";
import { tileSVG } from "../tiles.js";
import { tileText } from "../tilename.js";
import { byId as $, h, setText, show } from "../dom.js";
import { verifyAndShow } from "../fairbadge.js";
import { replayNavigation } from "../replaynav.js";
import { drawLine, endText as handEndText, scoreNode, t } from "./pieces.js";

const record = JSON.parse($("kva-record").textContent);
const root = $("replay");
const me = root.dataset.seat === "" ? null : Number(root.dataset.seat);
const sides = record.sides;
const seats = sides.flat().length;
const sideOf = (seat) => sides.findIndex((side) => side.includes(seat));

function nameOf(seat) {
  if (seat === me) return shared("you");
  const raw = (record.players[seat] || {}).name || "";
  if (raw.startsWith("bot:")) return shared(`bot_${raw.slice(4)}`);
  return raw || shared("opponent");
}

const canon = (name) => {
  const [a, b] = name.split("-").map(Number);
  return a <= b ? `${a}-${b}` : `${b}-${a}`;
};

/** How a hand ended, in the table's words. */
const endText = (result) => handEndText(result, nameOf, me);

/** Every position: [{text, hand, line, bazaar, held, score, remembered, carry, last, result}]. */
function buildSteps() {
  const steps = [];
  let score = sides.map(() => 0);
  let remembered = sides.map(() => 0);
  let carry = 0;
  record.hands.forEach((hand, k) => {
    const n = k + 1;
    const held = hand.deal.hands.map((tiles) => tiles.map(canon));
    let bazaar = hand.deal.bazaar.length;
    const line = []; // tile names as they lie, left to right
    const snap = (text, last = null, result = null) => steps.push({
      text, hand: n, line: [...line], bazaar, held: held.map((tiles) => [...tiles]),
      score: [...score], remembered: [...remembered], carry, last, result });
    snap(t("replay_start", { n }));
    hand.moves.forEach((m, i) => {
      const args = { n, i: i + 1, name: nameOf(m.p) };
      // Whole sentences for "you" and for another player: the verb agrees with its subject.
      const say = (key, extra = {}) => t(m.p === me ? `${key}_you` : key, { ...args, ...extra });
      if (m.draw) {
        held[m.p].push(canon(m.draw));
        bazaar -= 1;
        snap(say("replay_draw", { tile: tileText(m.draw) }));
        return;
      }
      if (m.knock) {
        snap(say("replay_knock"));
        return;
      }
      const tile = canon(m.play);
      held[m.p] = held[m.p].filter((name) => name !== tile);
      const [a, b] = m.play.split("-");
      if (!m.end) { // the opening tile: its first half is end L
        line.push(m.play);
        snap(say("replay_open", { tile: tileText(m.play) }), 0);
        return;
      }
      // `a` touches the end: on the left the tile lies outer half first
      if (m.end === "L") line.unshift(`${b}-${a}`);
      else line.push(m.play);
      snap(say("replay_play", { tile: tileText(m.play), end: shared(`end_${m.end}`) }),
        m.end === "L" ? 0 : line.length - 1);
    });
    if (hand.result) {
      score = [...hand.score];
      remembered = [...hand.remembered];
      carry = hand.result.carry || 0;
      snap(shared("replay_result", { n, result: endText(hand.result) }), null, hand.result);
    }
  });
  return steps;
}


/** Each seat: its name, score, tiles face up and, at a hand's end, its side's count. */
function renderSeats(step) {
  const list = $("k-seats");
  list.replaceChildren();
  const losers = new Set(record.loser || []);
  const over = step.result !== null && step.hand === record.hands.length;
  for (let seat = 0; seat < seats; seat += 1) {
    const side = sideOf(seat);
    const item = h("li", { class: "k-player", "data-testid": "kozel-player",
      "data-seat": String(seat) });
    item.append(h("span", { class: "k-name", text: nameOf(seat) }), " ",
      scoreNode(step.score, step.remembered, side));
    if (step.result) {
      item.append(" ", h("span", { class: "k-count", text: `${t("count")} ${step.result.counts[side]}`
        + ` · ${t("scored")} +${step.result.scored[side]}` }));
    }
    if (over && losers.has(side)) item.append(" ", h("b", { class: "k-goat", text: t("goat") }));
    const hand = h("span", { class: "k-hand mini-hand" });
    for (const name of step.held[seat]) {
      const tile = h("span", { class: "tile mini", "data-tile": name });
      tile.append(tileSVG(name));
      hand.append(tile);
    }
    item.append(hand);
    list.append(item);
  }
}

const steps = buildSteps();

function render(pos) {
  const step = steps[pos];
  drawLine($("k-line"), step.line, step.last);
  renderSeats(step);
  setText("k-bazaar", String(step.bazaar));
  setText("k-limit", String((record.options || {}).limit || 101));
  const carry = $("k-carry");
  show(carry, step.carry > 0);
  carry.textContent = `\u{1F41F} +${step.carry}`; // the fish sign
  carry.title = t("carry_title");
  setText("replay-move", step.text);
  root.dataset.hand = String(step.hand);
}

replayNavigation(steps.length, render);
// Fair deals: every deal (the voided ones too) checked against the record's meta.fair.
if (record.meta && record.meta.fair) verifyAndShow($("fair-badge"), record);
