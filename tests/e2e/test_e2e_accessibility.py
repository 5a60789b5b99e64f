"""What a keyboard or screen-reader visitor needs on every page: a translated "Skip to
content" link first in the tab order, visible when focused, and a new-match form whose Tab
order holds only the fields that matter for the chosen opponent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kva.i18n import translations
from tests.e2e.e2e_helpers import tid

pytestmark = pytest.mark.browser

PAGES = ("/", "/lobby", "/bots", "/learn", "/help", "/settings", "/login", "/register", "/ratings")
SHOTS = Path("/tmp/ui-words-shots")


def _from_the_top(page: Any) -> None:
    """Start the Tab order at the top of the page, as after a fresh load (some pages move the
    focus to their title, and a blurred element stays the starting point)."""
    page.evaluate("() => { document.body.tabIndex = -1; document.body.focus(); }")


def _first_tab(page: Any) -> str | None:
    _from_the_top(page)
    page.keyboard.press("Tab")
    return page.evaluate("document.activeElement && document.activeElement.dataset.testid")  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", PAGES)
def test_skip_to_content_is_first_in_tab_order_and_visible_on_focus(
    new_context: Callable[..., Any], path: str
) -> None:
    page = new_context().new_page()
    page.goto(path)
    link = page.locator(tid("skip-to-content"))
    assert not link.is_hidden()
    box = link.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 0, "off screen until focused"
    assert _first_tab(page) == "skip-to-content"
    box = link.bounding_box()
    assert box is not None and box["y"] >= 0 and box["height"] > 0, "visible once focused"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.closest('#main') !== null"), "focus in the content"


@pytest.mark.parametrize("lang", ["ka", "ru", "tr"])
def test_skip_to_content_is_translated(new_context: Callable[..., Any], lang: str) -> None:
    page = new_context(locale=lang).new_page()
    page.goto("/")
    expected = translations(lang).gettext("Skip to content")
    assert expected != "Skip to content"
    assert page.locator(tid("skip-to-content")).inner_text().strip() == expected
    page.keyboard.press("Tab")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"skip-link-{lang}.png"))


def _tab_stops(page: Any) -> list[str]:
    """The ids of the new-match form's fields, in the order Tab visits them."""
    _from_the_top(page)
    stops: list[str] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        ident = page.evaluate(
            "() => { const e = document.activeElement;"
            " return e && e.closest('[data-testid=new-match]') ? (e.id || e.name) : null; }"
        )
        if ident == "start" or page.evaluate(
            "document.activeElement.dataset.testid === 'start'"
        ):
            break
        if ident:
            stops.append(ident)
    return stops


@pytest.mark.parametrize("opponent", ["bot:easy", "bot:normal", "bot:hard", "open"])
def test_the_password_field_is_not_tabbable_without_a_friend(
    new_context: Callable[..., Any], opponent: str
) -> None:
    page = new_context().new_page()
    page.goto("/")
    page.locator("#opponent").select_option(opponent)
    assert page.locator("#password").is_disabled()
    assert "password" not in _tab_stops(page)


def test_the_password_field_is_tabbable_for_a_friend(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()
    page.goto("/")
    page.locator("#opponent").select_option("friend")
    assert page.locator("#password").is_enabled()
    assert "password" in _tab_stops(page)
