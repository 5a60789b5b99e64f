"""No page breaks under the Content-Security-Policy: a script or style the policy blocks fails
silently for the user, so the home page, a game against a bot (its WebSocket included) and the
lesson are opened with every CSP violation the browser reports collected, and there must be
none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import start_match

pytestmark = pytest.mark.browser

#: Collects the page's ``securitypolicyviolation`` events (Playwright's init scripts are not
#: subject to the page's CSP).
WATCH = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(
  e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
"""


def test_home_game_and_lesson_report_no_csp_violation(new_context: Callable[..., Any]) -> None:
    ctx = new_context()
    ctx.add_init_script(WATCH)
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))

    def violations() -> list[str]:
        seen = list(page.evaluate("window.__cspViolations || []"))
        seen += [t for t in console if "Content Security Policy" in t]
        return seen

    page.goto("/")
    assert page.evaluate("document.querySelector('script[type=module]') !== null")
    assert violations() == []
    start_match(page, "bot:easy")  # waits for the game's WebSocket to deliver the table
    assert violations() == []
    page.goto("/learn")
    page.wait_for_selector('[data-testid="learn-tile"], [data-testid="learn-draw"]')
    assert violations() == []
    # The settings page (its theme applies at once) and a dark page after it.
    page.goto("/settings")
    page.locator('[data-testid="pref-theme-dark"]').check()
    page.goto("/lobby")
    assert page.evaluate("document.documentElement.dataset.prefTheme") == "dark"
    assert violations() == []
