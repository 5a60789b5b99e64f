"""Pages other than the table on a 375 x 667 phone, in every language: a lesson step opens in
view, wide tables (the wallet's history) become stacked rows instead of scrolling sideways, and
the profile's tally never breaks a word in two."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import shot, tid

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 375, 667
LANGS = ["en", "ka", "ru", "tr"]


def _phone(new_context: Callable[..., Any], server: Any, lang: str) -> Any:
    ctx = new_context(viewport={"width": WIDTH, "height": HEIGHT}, is_mobile=True,
                      has_touch=True)
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    return ctx.new_page()


def _in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT


def _registered(page: Any) -> str:
    page.goto("/register?next=/")
    form = page.locator(tid("register-form"))
    name = f"lela{secrets.token_hex(3)}"
    form.locator('input[name="nickname"]').fill(name)
    form.locator('input[name="password"]').fill("e2e-phone-password")
    page.locator(tid("register")).click()
    page.locator(tid("whoami")).filter(has_text=name).wait_for()
    return name


@pytest.mark.parametrize("lang", LANGS)
def test_a_lesson_step_opens_in_view_on_a_phone(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    page = _phone(new_context, server, lang)
    page.goto("/learn")
    page.wait_for_function("() => document.getElementById('learn').dataset.step === '1'")
    page.wait_for_timeout(600)
    assert _in_view(page, "#learn-title"), "the first step opens below the table of contents"
    toc = page.locator(tid("toc-step")).nth(3)
    toc.scroll_into_view_if_needed()
    toc.click()
    page.wait_for_function("() => document.getElementById('learn').dataset.step === '4'")
    page.wait_for_timeout(600)
    shot(page, f"phone-{lang}-lesson-step-4")
    assert _in_view(page, "#learn-title")
    assert page.evaluate("document.activeElement.id") == "learn-title"
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


@pytest.mark.parametrize("lang", LANGS)
def test_the_wallet_and_profile_fit_a_phone(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    page = _phone(new_context, server, lang)
    name = _registered(page)
    page.goto("/wallet")
    entry = page.locator(tid("wallet-entry")).first
    entry.wait_for()
    shot(page, f"phone-{lang}-wallet")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    labels = entry.evaluate(
        "tr => [...tr.cells].map(c => getComputedStyle(c, '::before').content)")
    assert all(label not in ("none", "normal", '""') for label in labels), labels

    page.goto(f"/u/{name}")
    shot(page, f"phone-{lang}-profile")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    # A one-word label (Turkish "Mağlubiyet") stays on one line: no word is cut in two.
    cut = page.evaluate("""() => [...document.querySelectorAll('.tally dt')].filter(dt => {
        const words = dt.textContent.trim().split(/\\s+/);
        const range = document.createRange(); range.selectNodeContents(dt);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        return lines > words.length;
      }).map(dt => dt.textContent)""")
    assert not cut, f"{lang}: {cut}"


@pytest.mark.parametrize("lang", LANGS)
def test_a_guest_turns_on_the_dark_theme_and_every_page_keeps_it(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    page = _phone(new_context, server, lang)
    page.goto("/settings")
    page.locator(tid("pref-theme-dark")).check()
    page.locator(tid("settings-status")).filter(has_text=".").wait_for()
    page.goto("/lobby")
    assert page.evaluate("document.documentElement.dataset.prefTheme") == "dark"
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    channels = [int(c) for c in background[background.index("(") + 1:-1].split(",")[:3]]
    assert max(channels) < 60, background
    shot(page, f"phone-{lang}-lobby-dark")
    page.goto("/settings")
    assert page.locator(tid("pref-theme-dark")).is_checked()
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


PAGES = ["/", "/lobby", "/bots", "/ratings", "/help", "/learn", "/strategy", "/settings",
         "/login", "/register", "/wallet", "/no-such-page"]


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_scrolls_sideways_on_a_phone(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    page = _phone(new_context, server, lang)
    wide = {}
    for path in PAGES:
        page.goto(path)
        page.wait_for_timeout(150)
        over = page.evaluate("document.documentElement.scrollWidth") - WIDTH
        if over > 0:
            wide[path] = over
            shot(page, f"phone-{lang}-wide{path.replace('/', '_')}")
    assert not wide, f"{lang}: pages wider than {WIDTH} px: {wide}"
