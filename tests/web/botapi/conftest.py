"""Fixtures of the bot API tests: the servers of ``tests/conftest.py`` (in this process, like
the web tests; keyword arguments change settings), with no per-token rate limit."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.helpers.webhelp import ServerThread


@pytest.fixture
def make_server(monkeypatch: pytest.MonkeyPatch,
                make_server: Callable[..., ServerThread]) -> Callable[..., ServerThread]:
    """The shared ``make_server``, its bots moving as fast as the server answers: no per-token
    rate limit unless a test sets one (test_botapi_limits.py does). ``monkeypatch`` comes first
    so that the limit is restored only after the servers have stopped."""
    monkeypatch.setenv("KVA_BOT_API_RATE", "1000000/minute")
    return make_server
