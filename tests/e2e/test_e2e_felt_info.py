"""The felt's strip of information on a phone: a move's toast never covers the open ends'
sum, and while a finished hand's board is on show, the sum and the hand number are that
hand's, and no toast of the next hand is shown over it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.board_help import phone_context
from tests.e2e.e2e_helpers import Game, shot, start_match

pytestmark = pytest.mark.browser

_TOAST_OVER_SUM = """() => {
  const toast = document.getElementById('toast');
  if (!toast.classList.contains('show')) return null;
  const a = toast.getBoundingClientRect();
  const b = document.querySelector('.ends-sum-box').getBoundingClientRect();
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}"""


def _bot_game(new_context: Callable[..., Any], server: Any, lang: str) -> Game:
    return start_match(phone_context(new_context, server, "phone", lang).new_page(), "bot:easy")


@pytest.mark.parametrize("lang", ["ka", "ru"])
def test_a_moves_toast_never_covers_the_open_ends_sum(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    game = _bot_game(new_context, server, lang)
    page = game.page
    toasts = 0
    deadline = time.monotonic() + 60
    while toasts < 4 and time.monotonic() < deadline:
        if game.match_over():
            break
        if game.my_turn() and game.play_one() is not None:
            page.wait_for_timeout(60)
        else:
            page.wait_for_timeout(40)
        covered = page.evaluate(_TOAST_OVER_SUM)
        if covered is None:
            continue
        toasts += 1
        if toasts == 1:
            shot(page, f"felt-toast-{lang}")
        assert not covered, f"{lang}: a toast covers the open ends' sum"
    assert toasts > 0, "no toast was shown"


def test_a_finished_hands_board_comes_with_its_own_sum_and_number(
    new_context: Callable[..., Any], server: Any
) -> None:
    game = _bot_game(new_context, server, "en")
    page = game.page
    panel = game.loc("hand-result")
    deadline = time.monotonic() + 90
    while not panel.is_visible():
        assert time.monotonic() < deadline, "no hand ended in 90 s"
        if game.match_over():
            pytest.skip("the match ended with its first hand")
        if not (game.my_turn() and game.play_one() is not None):
            page.wait_for_timeout(40)
    # The next hand has begun (its opening may be played at once): give it the time.
    page.wait_for_timeout(400)
    view = game.view
    assert page.locator("#board").get_attribute("data-showing") == "final"
    shot(page, "felt-final-board")
    finished = view["hand_number"] - 1
    assert game.loc("ends-sum").inner_text().strip() == str(view["last_board"]["ends_sum"])
    assert str(finished) in page.locator("#hand-no").inner_text()
    assert page.evaluate(_TOAST_OVER_SUM) is None, "a toast is shown over the finished hand"
