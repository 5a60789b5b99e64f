"""Fixtures of the bot API tests: the servers of ``tests/conftest.py`` (in this process, like
the web tests; keyword arguments change settings), with no per-token rate limit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers.webhelp import ServerThread


@pytest.fixture
def make_server(make_server: Callable[..., ServerThread]) -> Callable[..., ServerThread]:
    """The shared ``make_server``, its bots moving as fast as the server answers: no per-token
    rate limit unless a test sets one (test_botapi_limits.py does)."""

    def make(broker_url: str | None = None, **settings: Any) -> ServerThread:
        return make_server(broker_url, **{"bot_api_rate": "1000000/minute", **settings})

    return make
