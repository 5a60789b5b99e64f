"""The end of a Kozel match in the browser: a player resigns against the easy bot, the table's
end shows the fair-deal badge verified by the browser (kva-fair/1 for three seats), the replay
steps through the hand with next and previous, and a rematch against bots starts at once."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.e2e.e2e_helpers import tid
from tests.e2e.kozel_help import open_kozel, see_the_end

pytestmark = pytest.mark.browser


def test_a_resigned_kozel_match_verifies_replays_and_rematches(new_context: Any) -> None:
    page = new_context().new_page()
    errors = open_kozel(page, "bot:easy")
    deadline = time.monotonic() + 15
    while not page.locator(f'{tid("kozel-hand")} button').count():
        assert time.monotonic() < deadline, "the hand was never dealt"
        page.wait_for_timeout(25)
    match_id = page.url.rstrip("/").split("/")[-1]
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator(tid("resign")).click()
    see_the_end(page)
    badge = page.locator(tid("fair-badge"))
    page.wait_for_function(
        "() => ['verified', 'failed', 'unavailable'].includes("
        "document.getElementById('fair-badge').dataset.state)")
    assert badge.get_attribute("data-state") == "verified", badge.inner_text()
    assert page.locator(tid("rematch-offer")).is_visible()

    page.goto(f"/m/{match_id}/replay")
    replay = page.locator(tid("kozel-replay"))
    replay.wait_for()
    assert page.locator(tid("replay-prev")).is_disabled()
    assert "Hand 1" in page.locator(tid("replay-move")).inner_text()
    page.locator(tid("replay-next")).click()
    assert replay.get_attribute("data-position") == "1"
    page.locator(tid("replay-prev")).click()
    assert replay.get_attribute("data-position") == "0"
    page.locator("#replay-last").click()
    assert page.locator(tid("replay-next")).is_disabled()
    assert "You resigned." in page.locator(tid("replay-move")).inner_text()
    assert page.locator(tid("kozel-player")).count() == 2
    page.wait_for_function("() => document.getElementById('fair-badge').dataset.state"
                           " === 'verified'")

    page.goto(f"/m/{match_id}")
    see_the_end(page)
    page.locator(tid("rematch-offer")).click()
    page.wait_for_url(re.compile(r"/m/(?!" + re.escape(match_id) + r")[^/]+$"))
    page.locator(tid("kozel-table")).wait_for()
    assert errors == []
