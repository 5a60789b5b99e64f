// The interactive lesson: each step's position drawn with the game's tile renderer; the
// learner's action goes to the server, which checks it with the rules engine and explains.
// Progress: localStorage for everyone, and the account's table for registered players.
import { tn } from "./i18n.js";
import { byId as $, h, setText, show } from "./dom.js";
import { drawBoard, tileSVG } from "./tiles.js";

const root = $("learn");
const total = Number(root.dataset.total);
const registered = root.dataset.registered === "1";
const S = JSON.parse($("learn-strings").textContent);
const fmt = (key, vars) => S[key].replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
const KEY = "kva-learn-done";

let done = new Set();
let step = null; // the step's JSON
let view = null; // the position shown
let selected = null;
let answered = false;

function loadLocal() {
  try { return new Set(JSON.parse(localStorage.getItem(KEY) || "[]")); } catch { return new Set(); }
}

function saveLocal() {
  try { localStorage.setItem(KEY, JSON.stringify([...done])); } catch { /* private mode */ }
}

async function syncServer(slugs) {
  if (!registered) return;
  const resp = await fetch("/learn/progress", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ done: slugs }),
  });
  if (resp.ok) for (const s of (await resp.json()).done) done.add(s);
}

function markToc(current) {
  for (const a of document.querySelectorAll("[data-testid=toc-step]")) {
    a.classList.toggle("done", done.has(a.dataset.slug));
    a.classList.toggle("current", Number(a.dataset.n) === current);
    if (done.has(a.dataset.slug)) a.setAttribute("data-done", "1");
  }
}

const canon = (name) => {
  const [a, b] = name.split("-").map(Number);
  return a <= b ? `${a}-${b}` : `${b}-${a}`;
};

/** Ends `name` fits on in `view` (by the numbers the ends ask). */
function fittingEnds(name) {
  const [a, b] = name.split("-").map(Number);
  return view.board.ends.filter((e) => e.asks === a || e.asks === b).map((e) => e.end);
}

function render(points = {}, last = null) {
  const targets = selected && !answered ? fittingEnds(selected) : [];
  drawBoard($("learn-board"), view.board, {
    points, last, targets, emptyText: S.empty, onTarget: (end) => send({ type: "play", tile: selected, end }),
  });
  setText("learn-sum", view.board.ends_sum);
  const me = view.player;
  setText("learn-counts", fmt("counts", { opp: tn("tiles", view.hand_counts[1 - me]),
    drawable: view.bazaar_counts.drawable, locked: view.bazaar_counts.out_of_play }));
  setText("learn-score", fmt("score", { me: view.scores[me] + view.hand_points[me],
    opp: view.scores[1 - me] + view.hand_points[1 - me], target: view.target }));
  const hand = $("learn-hand");
  hand.replaceChildren();
  for (const name of view.hand) {
    const btn = h("button", { type: "button", class: "tile", "data-testid": "learn-tile",
      "aria-label": name, dataset: { tile: name }, on: { click: () => onTile(name) } });
    btn.classList.toggle("selected", name === selected);
    btn.disabled = answered;
    btn.appendChild(tileSVG(name));
    hand.appendChild(btn);
  }
  $("learn-draw").disabled = answered;
  $("learn-pass").disabled = answered;
}

function onTile(name) {
  if (answered) return;
  if (!view.board.opening) { send({ type: "play", tile: name }); return; }
  const ends = fittingEnds(name);
  if (ends.length <= 1) { send({ type: "play", tile: name, ...(ends.length ? { end: ends[0] } : {}) }); return; }
  selected = name;
  render();
}

async function send(action) {
  const resp = await fetch(`/learn/step/${step.n}/check`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ action }),
  });
  const verdict = await resp.json();
  const box = $("learn-feedback");
  box.textContent = verdict.message;
  box.dataset.state = verdict.ok ? "ok" : "wrong";
  selected = null;
  if (verdict.view) {
    answered = true;
    view = verdict.view;
    const lastMove = view.moves[view.moves.length - 1];
    const last = lastMove && lastMove.tile ? canon(lastMove.tile) : null;
    const points = last && verdict.points ? { [last]: verdict.points } : {};
    render(points, last);
  } else {
    render();
  }
  show("learn-retry", !verdict.ok && Boolean(verdict.view));
  if (verdict.ok) {
    done.add(step.slug);
    saveLocal();
    markToc(step.n);
    show("learn-next", true);
    syncServer([step.slug]);
  }
  revealVerdict();
}

// On a phone the board and the hand fill the screen, so the verdict and its buttons (Next,
// Try again) would open below the fold: scroll just enough to bring them in, the buttons'
// bottom to the screen's bottom, or the verdict's top to the screen's top if both together
// are taller than the screen.
function revealVerdict() {
  const box = $("learn-feedback");
  const actions = box.parentElement.querySelector(".learn-actions") || box;
  const margin = 8;
  const top = box.getBoundingClientRect().top - margin;
  const bottom = actions.getBoundingClientRect().bottom + margin;
  if (top >= 0 && bottom <= window.innerHeight) return;
  const by = top < 0 ? top : Math.min(bottom - window.innerHeight, top);
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  window.scrollBy({ top: by, behavior: still ? "auto" : "smooth" });
}

async function openStep(n) {
  const resp = await fetch(`/learn/step/${n}`);
  step = await resp.json();
  view = step.view;
  selected = null;
  answered = false;
  show("learn-done", false);
  show("learn-step", true);
  show("learn-next", false);
  show("learn-retry", false);
  setText("learn-pos", fmt("step_of", { n, total }));
  setText("learn-title", step.title);
  setText("learn-instruction", step.instruction);
  const box = $("learn-feedback");
  box.textContent = "";
  box.dataset.state = "none";
  root.dataset.step = String(n);
  markToc(n);
  render();
  bringIntoView($("learn-step"), $("learn-title"));
}

// On a phone the table of contents stands above the step: a step that opens below the fold is
// scrolled to, and its title takes the focus (a screen reader starts reading there).
function bringIntoView(section, heading) {
  const top = section.getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight * 0.25) {
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    section.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  }
  heading.focus({ preventScroll: true });
}

function route() {
  const m = /^#step-(\d+)$/.exec(location.hash);
  if (location.hash === "#done") {
    show("learn-step", false);
    show("learn-done", true);
    root.dataset.step = "done";
    markToc(0);
    bringIntoView($("learn-done"), $("learn-done").querySelector("h1"));
    return;
  }
  let n = m ? Number(m[1]) : 0;
  if (!(n >= 1 && n <= total)) {
    const slugs = [...document.querySelectorAll("[data-testid=toc-step]")].map((a) => a.dataset.slug);
    n = slugs.findIndex((s) => !done.has(s)) + 1 || 1;
  }
  openStep(n);
}

$("learn-draw").addEventListener("click", () => send({ type: "draw" }));
$("learn-pass").addEventListener("click", () => send({ type: "pass" }));
$("learn-retry").addEventListener("click", () => openStep(step.n));
$("learn-next").addEventListener("click", () => {
  location.hash = step.n < total ? `#step-${step.n + 1}` : "#done";
});
window.addEventListener("hashchange", route);

done = loadLocal();
if (registered) {
  fetch("/learn/progress").then((r) => r.json()).then((p) => {
    for (const s of p.done) done.add(s);
    markToc(step ? step.n : 0);
    syncServer([...done]);
  });
}
route();
