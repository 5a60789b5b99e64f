"""The final board can be seen whole at a match's end: "See the board" puts the match dialog
aside (no part of it stays over the board) at 375 x 667, 667 x 375 and 1280 x 800, and "Show
the result" brings it back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.board_help import COVERED_JS, SIZES, phone_context, stored_matches
from tests.e2e.e2e_helpers import shot, tid

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["ka", "ru"])
@pytest.mark.parametrize("size", list(SIZES))
def test_see_the_board_uncovers_the_whole_final_board(
    new_context: Callable[..., Any], server: Any, size: str, lang: str
) -> None:
    [match_id] = stored_matches(server, [7])
    page = phone_context(new_context, server, size, lang).new_page()
    page.goto(f"/m/{match_id}")
    dialog = page.locator(tid("match-result"))
    dialog.wait_for(state="visible")
    page.locator("#board [data-tile]").first.wait_for()
    assert page.evaluate(COVERED_JS, "#board"), "the dialog should first cover the board"

    page.locator("#mr-close").click()
    page.wait_for_timeout(100)
    shot(page, f"final-board-{size}-{lang}")
    assert not dialog.is_visible()
    assert page.evaluate(COVERED_JS, "#board") == [], f"{size}/{lang}: the board is covered"

    reopen = page.locator(tid("result-reopen"))
    reopen.click()
    dialog.wait_for(state="visible")
    assert not reopen.is_visible()
