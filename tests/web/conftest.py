"""Fixtures for the web tests. Servers on the test database (``make_server``, ``server``) and
the broker come from ``tests/conftest.py`` (SQLite, or PostgreSQL when
``KVA_TEST_DATABASE_URL`` is set); here, a match already under way between guests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.helpers.webhelp import ServerThread, Table, Visitor


@pytest.fixture
async def table(server: ServerThread) -> AsyncIterator[Table]:
    """A friend match between two guests, watched by a third (see :class:`Table`)."""
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        match_id = await host.new_match("friend", target=75)
        token = await host.share_token(match_id)
        r = await guest.http.get(f"/t/{token}")
        assert r.status_code == 303
        await watcher.http.get(f"/t/{token}")
        a, b, w = (await host.connect(match_id), await guest.connect(match_id),
                   await watcher.connect(match_id))
        mover, waiter = (a, b) if a.state["view"]["turn"] == a.state["you"] else (b, a)
        yield Table(mover, waiter, w, match_id)
        for s in (a, b, w):
            await s.close()
