"""Leaving a match in Chromium: when one player's page goes away, the other sees who left and
the countdown of the grace period; when it runs out they claim the win, and both sides' result
says the match was abandoned.

The shared browser server keeps the production limits (60 s), so this module starts its own
server exactly as the fixture does, with ``KVA_DISCONNECT_GRACE=2``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SERVER_ENV, Server, _free_port
from e2e_helpers import shot, tid
from test_e2e_ratings_rematch import _open_game, _setup, _signed_in

pytestmark = pytest.mark.browser
GRACE_S = 2


@pytest.fixture(scope="module")
def short_server(tmp_path_factory: pytest.TempPathFactory, server: Server) -> Iterator[Server]:
    """A second ``kva serve`` with a two-second grace period (same database settings as the
    session's server, so ``_setup`` finds it the same way)."""
    tmp = Path(server.log_path).parent  # share the database file: _setup writes there
    port = _free_port()
    env = {**os.environ, **SERVER_ENV, "KVA_DISCONNECT_GRACE": str(GRACE_S),
           "PYTHONUNBUFFERED": "1"}
    env["KVA_DATABASE_URL"] = os.environ.get(
        "KVA_TEST_DATABASE_URL", f"sqlite+aiosqlite:///{tmp / 'kva-e2e.sqlite3'}")
    env["KVA_DATA_DIR"] = str(tmp_path_factory.mktemp("kva-e2e-short") / "var")
    log_path = tmp_path_factory.mktemp("kva-e2e-short-log") / "server.log"
    cmd = [sys.executable, "-m", "kva", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    srv = Server(f"http://127.0.0.1:{port}", process, log_path)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"server exited with {process.returncode}:\n{srv.log_tail()}")
            with contextlib.suppress(OSError):
                status, _body = srv.get("/healthz")
                if status == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"server not healthy after 60 s:\n{srv.log_tail()}")
            time.sleep(0.2)
        yield srv
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_opponent_leaves_countdown_then_claim_the_win(
    new_context: Callable[..., Any], server: Server, short_server: Server
) -> None:
    a, b, match_id = _setup(server)
    ctx_a = _signed_in(new_context, short_server, a, base_url=short_server.base_url)
    ctx_b = _signed_in(new_context, short_server, b, base_url=short_server.base_url)
    ga, gb = _open_game(ctx_a, match_id), _open_game(ctx_b, match_id)
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
