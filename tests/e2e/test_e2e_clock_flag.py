"""A clock that ran out, as the page shows it: 0:00 in both parts, never the next move's
allowance ("0:10 + 0:00")."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import start_match

pytestmark = pytest.mark.browser


def test_a_flagged_clock_reads_zero_on_the_page(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()

    # The server's states reach the page as if this player's blitz time had run out.
    def route(ws: Any) -> None:
        server_ws = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and msg.get("you") is not None:
                me = msg["you"]
                left = [60_000, 60_000]
                left[me] = 0
                msg["clock"] = {"preset": "blitz", "per_move": 10, "reserve_s": 60,
                                "left": left, "seat": None, "running_ms": 0, "move_ms": 0,
                                "flagged": me}
                message = json.dumps(msg)
            ws.send(message)

        server_ws.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/m/"), route)
    start_match(page, "bot:easy", target=75)
    mine = page.locator("#me-clock.flagged")
    mine.wait_for(state="visible")
    assert mine.locator(".clock-move").inner_text() == "0:00"
    assert mine.locator(".clock-reserve").inner_text() == "0:00"
    other = page.locator("#op-clock")
    assert other.locator(".clock-move").inner_text() == "0:10"
    assert other.locator(".clock-reserve").inner_text() == "1:00"
