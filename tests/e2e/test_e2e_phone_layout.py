"""What a new user sees on a 375 x 667 phone, in every language.

The score bar with three-digit scores and the longest bot name of the language, the header,
and Resign without scrolling; and the move messages, whose verb agrees with "you" in the game
page and in the replay (whole sentences for you and for the opponent, never "You plays").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from kva.i18n import translations
from tests.e2e.e2e_helpers import set_field, shot, tid

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 375, 667
LANGS = ["en", "ka", "ru", "tr"]
#: The header may take two rows at 375 px (brand and languages; the navigation), never three.
HEADER_MAX_ROWS = 2
HEADER_MAX_PX = 100


def _phone(new_context: Callable[..., Any], server: Any, lang: str) -> Any:
    ctx = new_context(
        viewport={"width": WIDTH, "height": HEIGHT},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    return ctx


def _longest_bot(lang: str) -> tuple[str, str]:
    """(level, shown name) of the bot whose name is longest in ``lang``."""
    gettext = translations(lang).gettext
    names = {level: gettext(f"Bot · {level}") for level in ("easy", "normal", "hard")}
    level = max(names, key=lambda k: len(names[k]))
    return level, names[level]


def _start(page: Any, opponent: str, target: int) -> None:
    page.goto("/")
    set_field(page, "opponent", opponent)
    set_field(page, "target", str(target))
    page.locator(tid("start")).click()
    page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    page.locator("#hand .tile").first.wait_for()


_BOXES_JS = """sels => sels.map(sel => {
  const e = document.querySelector(sel);
  const range = document.createRange(); range.selectNodeContents(e);
  const r = range.getBoundingClientRect();
  return {sel, text: e.textContent.trim(), x: r.left, y: r.top, r: r.right, b: r.bottom};
})"""

_HEADER_JS = """() => {
  const h = document.querySelector('.site-header');
  const items = [...h.querySelectorAll('a, button, .whoami')]
    .filter(e => e.getClientRects().length);
  const tops = [];
  for (const e of items) {
    const r = e.getBoundingClientRect();
    if (!tops.some(t => Math.abs(t - r.top) < 12)) tops.push(r.top);
  }
  return {rows: tops.length, height: h.getBoundingClientRect().height,
          right: Math.max(...items.map(e => e.getBoundingClientRect().right))};
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_score_bar_header_and_resign_fit_a_phone(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    level, bot_name = _longest_bot(lang)
    page = _phone(new_context, server, lang).new_page()

    # Three-digit scores: the server's states reach the page with the match score set to
    # 145 (me) and 170 (the bot), as deep into a match to 355.
    def route(ws: Any) -> None:
        server_ws = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and msg.get("you") is not None:
                me = msg["you"]
                msg["view"]["scores"][me] = 145
                msg["view"]["scores"][1 - me] = 170
                message = json.dumps(msg)
            ws.send(message)

        server_ws.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/m/"), route)
    _start(page, f"bot:{level}", target=355)
    page.wait_for_function("() => document.getElementById('score-opp').textContent.length >= 3")
    page.wait_for_timeout(200)
    shot(page, f"phone-{lang}-game-375x667")

    assert page.locator("#opp-name").inner_text().strip() == bot_name
    boxes = page.evaluate(_BOXES_JS, ["#me-name", "#score", "#opp-name"])
    for box in boxes:
        assert box["x"] >= 0 and box["r"] <= WIDTH, f"{lang}: {box} is cut off"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a["r"] <= b["x"] or b["r"] <= a["x"] or a["b"] <= b["y"] or b["b"] <= a["y"]
            assert apart, f"{lang}: {a['text']!r} and {b['text']!r} overlap: {a} {b}"
    conn = page.locator("#connection").bounding_box()
    bar = page.locator(".scorebar").bounding_box()
    assert conn and bar
    assert bar["y"] <= conn["y"] and conn["y"] + conn["height"] <= bar["y"] + bar["height"], (
        "the connection dot hangs off the score bar"
    )

    header = page.evaluate(_HEADER_JS)
    assert header["rows"] <= HEADER_MAX_ROWS, f"{lang}: header in {header['rows']} rows"
    assert header["height"] <= HEADER_MAX_PX, f"{lang}: header {header['height']} px tall"
    assert header["right"] <= WIDTH, header

    # Resign is on the first screen, without scrolling.
    assert page.evaluate("window.scrollY") == 0
    resign = page.locator(tid("resign")).bounding_box()
    assert resign is not None
    assert resign["y"] >= 0 and resign["y"] + resign["height"] <= HEIGHT, f"{lang}: {resign}"
    assert resign["x"] >= 0 and resign["x"] + resign["width"] <= WIDTH, f"{lang}: {resign}"
    hand_no = page.locator("#hand-no").inner_text().strip()
    assert hand_no == translations(lang).gettext("Hand {n}").replace("{n}", "1"), hand_no
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


_TOASTS_JS = """() => {
  window.__toasts = [];
  document.addEventListener('DOMContentLoaded', () => {
    const box = document.getElementById('toast');
    if (!box) return;
    // Every text the toast was given, one mutation record each: two states that arrive in one
    // task (the bot answers at once) set it twice before an observer runs, and reading the
    // box then would see only the second.
    new MutationObserver(records => {
      for (const r of records) {
        if (r.type === 'characterData') window.__toasts.push(r.target.data);
        for (const n of r.addedNodes) window.__toasts.push(n.textContent);
      }
    }).observe(box, {childList: true, characterData: true, subtree: true});
  });
}"""


def _pattern(template: str) -> re.Pattern[str]:
    """A message template ({name}, {tile}, ... placeholders) as a regular expression."""
    parts = re.split(r"(\{\w+\})", template)
    return re.compile("".join(
        ".+?" if re.fullmatch(r"\{\w+\}", p) else re.escape(p) for p in parts))


@pytest.mark.parametrize("lang", LANGS)
def test_moves_are_told_with_the_right_verb_for_you_and_the_bot(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    _ = translations(lang).gettext
    level, bot = _longest_bot(lang)
    you = _("You")
    page = _phone(new_context, server, lang).new_page()
    page.add_init_script(_TOASTS_JS.join(["(", ")()"]))
    page.on("dialog", lambda d: d.accept())
    _start(page, f"bot:{level}", target=175)

    played = 0
    for _i in range(80):
        if played >= 3:
            break
        legal = page.locator("#hand .tile.legal")
        if legal.count():
            with_text = page.evaluate("window.__toasts.length")
            try:
                legal.first.click(timeout=2000)
            except Exception:
                continue
            target = page.locator(".end-target")
            page.wait_for_timeout(150)
            if target.count():
                target.first.click()
            page.wait_for_function("n => window.__toasts.length > n", arg=with_text)
            played += 1
        page.wait_for_timeout(150)
    page.wait_for_timeout(300)
    toasts: list[str] = page.evaluate("window.__toasts")
    shot(page, f"phone-{lang}-moves")

    mine = [_pattern(_(m)) for m in ("You opened with {tile}", "You played {tile}")]
    theirs = [
        _pattern(_(m).replace("{name}", bot))
        for m in ("{name} opened with {tile}", "{name} played {tile}", "{name} drew a tile")
    ]
    # The other player's sentence with "You" put in (where it reads differently: English past
    # tense has one form for both, "You played").
    yours = {_(m) for m in ("You opened with {tile}", "You played {tile}")}
    wrong = [
        _pattern(text)
        for m in ("{name} opened with {tile}", "{name} played {tile}")
        if (text := _(m).replace("{name}", you)) not in yours
    ]
    assert any(p.match(t) for t in toasts for p in mine), (lang, toasts)
    assert any(p.match(t) for t in toasts for p in theirs), (lang, toasts)
    assert not [t for t in toasts for p in wrong if p.match(t)], (lang, toasts)
    # Tile names are written with a non-breaking hyphen: "0-5" never breaks across two lines.
    assert not [t for t in toasts if re.search(r"\d-\d", t)], (lang, toasts)

    # Resign on my move: the match ends, and no lone "your turn" mark stays behind.
    page.locator("#resign").click()
    page.locator("#match-result").wait_for(state="visible")
    turn = page.evaluate(
        "() => { const t = document.getElementById('turn');"
        " return [t.textContent, getComputedStyle(t, '::before').content]; }"
    )
    assert turn[0] == "" and turn[1] in ("none", "normal", ""), turn
    shot(page, f"phone-{lang}-resigned")

    # The replay tells the same moves with the same agreement.
    match_id = re.search(r"/m/([^/?#]+)", page.url).group(1)  # type: ignore[union-attr]
    page.goto(f"/m/{match_id}/replay")
    texts = []
    nxt = page.locator(tid("replay-next"))
    while True:
        texts.append(page.locator(tid("replay-move")).inner_text())
        if nxt.is_disabled():
            break
        nxt.click()
    shot(page, f"phone-{lang}-replay")
    mine_r = [
        _pattern(_(m))
        for m in (
            "Hand {n}, move {i}: you open with {tile}",
            "Hand {n}, move {i}: you play {tile} ({end})",
            "Hand {n}, move {i}: you draw {tile}",
        )
    ]
    theirs_r = [
        _pattern(_(m).replace("{name}", bot))
        for m in (
            "Hand {n}, move {i}: {name} opens with {tile}",
            "Hand {n}, move {i}: {name} plays {tile} ({end})",
            "Hand {n}, move {i}: {name} draws {tile}",
        )
    ]
    wrong_r = [
        _pattern(_(m).replace("{name}", you))
        for m in (
            "Hand {n}, move {i}: {name} opens with {tile}",
            "Hand {n}, move {i}: {name} plays {tile} ({end})",
            "Hand {n}, move {i}: {name} draws {tile}",
            "Hand {n}, move {i}: {name} passes",
        )
    ]
    assert any(p.fullmatch(t) for t in texts for p in mine_r), (lang, texts)
    assert any(p.fullmatch(t) for t in texts for p in theirs_r), (lang, texts)
    assert not [t for t in texts for p in wrong_r if p.fullmatch(t)], (lang, texts)
    assert texts[-1].endswith(_("you resigned")), texts[-1]


_NAV_JS = """() => {
  const header = document.querySelector('.site-header');
  const box = header.getBoundingClientRect();
  const shown = sel => [...header.querySelectorAll(sel)].filter(e => {
    const r = e.getBoundingClientRect();
    const clip = e.closest('.site-nav');
    const edge = clip ? clip.getBoundingClientRect().right : window.innerWidth;
    return r.width > 0 && r.left >= 0 && r.right <= edge + 0.5 && r.bottom <= box.bottom + 0.5;
  }).map(e => e.getAttribute('href').split('?')[0]);
  return {hrefs: shown('a[href]'), height: box.height};
}"""


@pytest.mark.parametrize("width", [320, 375])
@pytest.mark.parametrize("lang", LANGS)
def test_a_guest_on_a_phone_sees_new_match_and_create_account(
    new_context: Callable[..., Any], server: Any, lang: str, width: int
) -> None:
    ctx = new_context(viewport={"width": width, "height": HEIGHT}, is_mobile=True, has_touch=True)
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    page = ctx.new_page()
    page.goto("/lobby")
    nav = page.evaluate(_NAV_JS)
    shot(page, f"phone-{lang}-{width}-guest-header")
    for href in ("/lobby", "/bots", "/login", "/register"):
        assert href in nav["hrefs"], f"{lang} at {width} px: {href} not on screen: {nav}"
    assert nav["hrefs"].count("/") == 2, f"{lang}: the brand and New match both lead home: {nav}"
    header = page.evaluate(_HEADER_JS)
    assert header["rows"] <= HEADER_MAX_ROWS, f"{lang}: header in {header['rows']} rows"
    assert nav["height"] <= HEADER_MAX_PX, nav
    assert page.evaluate("document.documentElement.scrollWidth") <= width
