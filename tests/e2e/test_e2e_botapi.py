"""A person challenges a bot from the browser's Bots page and plays it to the end: the bot is
examples/bot_client.py running as its own process against the same ``kva serve``."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.e2e_helpers import Game, play_until_over, tid

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]


def make_bot(base_url: str) -> tuple[str, str]:
    """Register an account, make it a bot from its settings page, create a token."""
    name = f"r{secrets.token_hex(4)}"
    with httpx.Client(base_url=base_url) as http:
        r = http.post("/register", data={"nickname": name, "password": "correct horse battery",
                                         "next": "/"})
        assert r.status_code == 303, r.text
        assert http.post("/settings/bot/enable").status_code == 303
        r = http.post("/settings/bot/tokens", data={"label": "e2e"})
        found = re.search(r'data-testid="bot-new-token">(kvab_[A-Za-z0-9_-]+)<', r.text)
        assert found, r.text
    return name, found.group(1)


def test_person_challenges_a_bot_from_the_browser_and_plays_to_the_end(
    new_context: Callable[..., Any], server: Any, tmp_path: Path
) -> None:
    name, token = make_bot(server.base_url)
    log = tmp_path / "bot.log"
    with log.open("wb") as out:
        bot = subprocess.Popen([sys.executable, "-I", str(ROOT / "examples" / "bot_client.py"),
                                "--url", server.base_url, "--token", token, "--matches", "1"],
                               stdout=out, stderr=subprocess.STDOUT)
    try:
        page = new_context().new_page()
        game = Game(page)
        page.goto("/bots")
        row = page.locator(f'{tid("bot-row")}[data-nickname="{name}"]')
        row.locator(tid("bot-badge")).wait_for()
        row.locator('select[name="target"]').select_option("75")
        row.locator(tid("challenge-bot")).click()
        try:  # the challenge page reloads until the bot accepts, then the game
            game.wait_ready()
        except Exception as exc:
            raise AssertionError(
                f"{exc}\npage {page.url}\nbot log:\n{log.read_text()}") from exc
        assert game.view["target"] == 75
        players = game.states[-1]["players"]
        assert players[1]["name"] == name
        play_until_over([game], on_step=lambda n: None)
        assert game.loc("match-result").first.is_visible()
        bot.wait(timeout=60)
        assert bot.returncode == 0, log.read_text()
    finally:
        if bot.poll() is None:
            bot.kill()
