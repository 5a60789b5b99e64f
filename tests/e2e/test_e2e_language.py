"""The language switcher and negotiation, as a visitor sees them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from kva.i18n import translations
from tests.e2e.e2e_helpers import shot, start_match, tid

pytestmark = pytest.mark.browser

GEORGIAN = re.compile(r"[\u10d0-\u10ff]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def _start_text(page: Any) -> str:
    button = page.locator(tid("start")).first
    return " ".join((button.inner_text() or button.get_attribute("value") or "").split())


def _switch(page: Any, lang: str) -> None:
    page.locator(tid("lang-switcher")).locator(f'[data-lang="{lang}"]').first.click()
    page.wait_for_function(
        "l => document.documentElement !== null && document.readyState !== 'loading'"
        " && document.documentElement.lang.startsWith(l)",
        arg=lang,
    )


def test_switching_to_georgian_and_back(new_context: Callable[..., Any], server: Any) -> None:
    ctx = new_context()
    page = ctx.new_page()
    page.goto("/")
    assert page.evaluate("document.documentElement.lang").startswith("en")
    english = _start_text(page)
    assert english and not GEORGIAN.search(english)
    switcher = page.locator(tid("lang-switcher"))
    for lang in ("ka", "en", "ru", "tr"):
        assert switcher.locator(f'[data-lang="{lang}"]').count() == 1, lang

    _switch(page, "ka")
    shot(page, "lang-01-home-ka")
    georgian = _start_text(page)
    assert GEORGIAN.search(georgian), georgian
    # The page's text is the Georgian catalog's translation of the English text.
    assert georgian == translations("ka").gettext(english)
    assert GEORGIAN.search(page.locator("body").inner_text())
    assert {c["name"]: c["value"] for c in ctx.cookies()}.get("kva_lang") == "ka"
    assert page.url.rstrip("/") == server.base_url, "the switch returns to the same page"

    # The choice sticks on the game page too.
    game = start_match(page, "bot:easy")
    assert page.evaluate("document.documentElement.lang").startswith("ka")
    page.wait_for_timeout(300)
    assert GEORGIAN.search(game.loc("turn").inner_text()) or GEORGIAN.search(
        game.loc("status").inner_text()
    )
    shot(page, "lang-02-game-ka")
    _switch(page, "en")
    assert f"/m/{game.match_id}" in page.url
    assert not GEORGIAN.search(game.loc("turn").inner_text())


def test_the_browser_language_is_used_until_one_is_chosen(
    new_context: Callable[..., Any], server: Any
) -> None:
    ctx = new_context(locale="ru-RU")
    page = ctx.new_page()
    page.goto("/")
    assert page.evaluate("document.documentElement.lang").startswith("ru")
    russian = _start_text(page)
    assert CYRILLIC.search(russian), russian
    shot(page, "lang-03-home-ru")
    _switch(page, "tr")
    turkish = _start_text(page)
    assert not CYRILLIC.search(turkish) and turkish != russian
    page.goto("/")  # the cookie now beats Accept-Language
    assert _start_text(page) == turkish
    shot(page, "lang-04-home-tr")


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example"])
def test_the_switch_never_redirects_off_site(
    new_context: Callable[..., Any], server: Any, target: str
) -> None:
    page = new_context().new_page()
    resp = page.request.get(f"/lang/ka?next={target}", max_redirects=0)
    assert resp.status in (302, 303, 307), resp.status
    location = resp.headers["location"]
    assert location.startswith("/") and not location.startswith(("//", "/\\")), location
