"""Leaving a match in Chromium: when one player's page goes away, the other sees who left and
the countdown of the grace period; when it runs out they claim the win, and both sides' result
says the match was abandoned.

The shared browser server keeps the production limits (60 s), so this module starts its own
server exactly as the fixture does, with ``KVA_DISCONNECT_GRACE=2``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.e2e.e2e_helpers import shot, tid
from tests.e2e.players_help import make_players, open_game, signed_in
from tests.helpers.servers import Server, serving

pytestmark = pytest.mark.browser
GRACE_S = 2
#: As the shared server's settings (no pauses before forced and bot moves), plus the grace.
SHORT_ENV = {"KVA_SECRET_KEY": "e2e-short-grace-secret-key-0123456789abcdef",
             "KVA_FORCED_DELAY": "0", "KVA_BOT_DELAY": "0", "KVA_BROKER_URL": "",
             "KVA_DISCONNECT_GRACE": str(GRACE_S), "PYTHONUNBUFFERED": "1"}


@pytest.fixture(scope="module")
def short_server(tmp_path_factory: pytest.TempPathFactory, server: Any) -> Iterator[Server]:
    """A second ``kva serve`` with a two-second grace period, on the session server's database
    (``make_players`` writes the players there)."""
    env = {**os.environ, **SHORT_ENV}
    env["KVA_DATABASE_URL"] = server.database_url
    env["KVA_DATA_DIR"] = str(tmp_path_factory.mktemp("kva-e2e-short") / "var")
    log_path = tmp_path_factory.mktemp("kva-e2e-short-log") / "server.log"
    with serving(env, log_path) as srv:
        yield srv


def test_opponent_leaves_countdown_then_claim_the_win(
    new_context: Callable[..., Any], server: Any, short_server: Server
) -> None:
    a, b, match_id = make_players(server)
    ctx_a = signed_in(new_context, short_server, a, base_url=short_server.base_url)
    ctx_b = signed_in(new_context, short_server, b, base_url=short_server.base_url)
    ga, gb = open_game(ctx_a, match_id), open_game(ctx_b, match_id)
    away = ga.loc("opponent-away")
    assert away.is_hidden()
    gb.page.close()  # B's only page goes away

    away.wait_for(state="visible")
    text = ga.page.locator("#away-text").inner_text()
    assert b.nickname in text and str(GRACE_S) in text
    claim = ga.loc("claim-win")
    assert claim.is_hidden()
    shot(ga.page, "leaving-countdown")
    ga.page.wait_for_function(
        "() => document.querySelector('[data-testid=opponent-away]').dataset.claimIn === '0'",
        timeout=GRACE_S * 1000 + 5000)
    claim.wait_for(state="visible")
    claim.click()
    result = ga.loc("match-result")
    result.wait_for(state="visible")
    assert result.get_attribute("data-winner") == "you"
    assert b.nickname in ga.page.locator("#mr-title").inner_text()
    assert ga.view["forfeit_reason"] == "abandon"
    assert away.is_hidden()
    shot(ga.page, "leaving-claimed")

    # B comes back to a match they lost by abandonment.
    back = ctx_b.new_page()
    back.goto(f"/m/{match_id}")
    back.locator(tid("match-result")).wait_for(state="visible")
    assert back.locator(tid("match-result")).get_attribute("data-winner") == "opponent"
