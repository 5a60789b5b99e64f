"""Two registered players at a rated Kozel table in Chromium: one resigns, which stops the
match for both as a time loss does, and the other's table lists each seat's Kozel rating with
its change under the standings, again after a reload.

The accounts and their match are written straight into the server's database, each browser
signed in by a session token (as tests/e2e/players_help.py does for the Georgian game)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import tid
from tests.e2e.kozel_help import players_table, rating_lines, signed_in_table

pytestmark = pytest.mark.browser


def test_a_rated_kozel_match_ends_with_each_seats_rating_change(
    new_context: Callable[..., Any], server: Any,
) -> None:
    match_id, tokens = players_table(server)
    first = signed_in_table(new_context, server, tokens[0], match_id).page
    second = signed_in_table(new_context, server, tokens[1], match_id).page
    second.on("dialog", lambda dialog: dialog.accept())
    second.locator(tid("resign")).click()
    # The resigner gets nothing; the other player at least 1 (here 1: equal scores).
    assert rating_lines(first, 2)[0] == "You: Kozel rating 1 (+1)"
    assert rating_lines(second, 2)[1] == "You: Kozel rating 0 (0)"
    first.reload()  # a page opened after the end is told the same
    assert rating_lines(first, 2)[0] == "You: Kozel rating 1 (+1)"
