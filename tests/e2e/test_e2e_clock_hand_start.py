"""At a new hand's start the first player's time waits 10 s while the last hand's result is
shown; once it runs, the result closes itself, so the time never runs under it unseen."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, start_match, tid

pytestmark = pytest.mark.browser

#: What the rewritten clock has left of the pause when the hand ends.
PAUSE_LEFT_MS = 2_000
SHOTS = Path("/tmp/ui-words-shots")


def test_the_hand_result_closes_itself_when_the_time_starts(
    new_context: Callable[..., Any],
) -> None:
    page = new_context().new_page()
    started: list[float] = []

    # From the first hand's end on, the states carry a blitz clock running for this player,
    # whose new-hand pause ends PAUSE_LEFT_MS after that hand ended.
    def route(ws: Any) -> None:
        server_ws = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and msg.get("you") is not None \
                    and msg["view"].get("previous"):
                if not started:
                    started.append(time.monotonic())
                spent = int((time.monotonic() - started[0]) * 1000)
                left = [60_000, 60_000]
                msg["clock"] = {"preset": "blitz", "per_move": 10, "reserve_s": 60,
                                "left": left, "seat": msg["you"], "move_ms": 10_000,
                                "running_ms": max(0, 70_000 + PAUSE_LEFT_MS - spent),
                                "flagged": None}
                message = json.dumps(msg)
            ws.send(message)

        server_ws.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/m/"), route)
    game: Game = start_match(page, "bot:easy", target=175)
    deadline = time.monotonic() + 120
    while not started:  # play the first hand out
        assert time.monotonic() < deadline, "the first hand did not end"
        if game.my_turn() and game.legal_tiles().count():
            game.play_one()
        else:
            page.wait_for_timeout(40)
    result = page.locator(tid("hand-result"))
    result.wait_for(state="visible", timeout=3_000)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "hand-start-result-open.png"))
    result.wait_for(state="hidden", timeout=PAUSE_LEFT_MS + 3_000)
    assert time.monotonic() - started[0] >= PAUSE_LEFT_MS / 1000 - 0.3, "closed before the time ran"
    assert page.locator("#hand").is_visible()
