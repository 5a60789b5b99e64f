"""Journal appends on PostgreSQL go through asyncpg connections of their own
(:mod:`kva.storage.pg_direct`), never through the engine's pool, and answer exactly as the
pooled path did: written, a taken version, an ended session."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from kva.service.accounts import sessions as session_service
from kva.storage import journal_writer as writers
from kva.storage import pg_direct, repo
from kva.storage.db import Database
from tests.storage.journal_help import append_journal, journal_rows, make_match


@pytest.fixture
async def engine(database: Database) -> AsyncIterator[AsyncEngine]:
    """The engine of the migrated test database, PostgreSQL only."""
    engine = database.engine
    if engine.dialect.driver != "asyncpg":
        pytest.skip("PostgreSQL (asyncpg) only")
    yield engine


def _own(database: Database) -> pg_direct.OwnConnections:
    """The appends' own connections of ``database``'s journal writer."""
    writer = database.journal
    assert isinstance(writer, writers.AsyncpgOwnWriter)
    return writer.own


def _checkouts(engine: AsyncEngine) -> list[object]:
    """The pool checkouts of ``engine`` from now on."""
    seen: list[object] = []
    event.listen(engine.sync_engine, "checkout", lambda *args: seen.append(args))
    return seen


async def test_appends_take_no_pooled_connection_and_answer_as_before(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """Written, a version that exists (False), an ended session (SessionEnded): the rows are
    those of the pooled path, and the pool is never asked for a connection."""
    _user, token = await session_service.guest_with_session(sessions)
    live = session_service.token_hash(token)
    await make_match(sessions, "pg-append-1")
    checkouts = _checkouts(engine)
    assert await append_journal(database, "pg-append-1", 1, '{"a":1}', live)
    assert await append_journal(database, "pg-append-1", 1, '{"b":1}', live) is False
    assert await append_journal(database, "pg-append-1", 2, '{"c":2}')
    assert checkouts == []
    assert await session_service.revoke(sessions, token)
    checkouts.clear()
    with pytest.raises(repo.SessionEnded):
        await append_journal(database, "pg-append-1", 3, '{"d":3}', live)
    assert checkouts == []
    assert await journal_rows(sessions, "pg-append-1") == [(1, '{"a":1}'), (2, '{"c":2}')]
    own = _own(database).appenders()
    assert own is not None and len(own.open) == 1  # a refused version kept its connection


async def test_concurrent_appends_hold_at_most_the_limit_of_connections(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """Appends of many matches at once each get a connection of their own, up to
    APPEND_CONNECTIONS; the rest wait for one, and every row is written."""
    ids = [f"pg-append-many-{i}" for i in range(12)]
    for match_id in ids:
        await make_match(sessions, match_id)
    results = await asyncio.gather(*(
        append_journal(database, match_id, 1, '{"s":1}') for match_id in ids))
    assert all(results)
    own = _own(database).appenders()
    assert own is not None and 1 <= len(own.open) <= pg_direct.APPEND_CONNECTIONS
    for match_id in ids:
        assert await journal_rows(sessions, match_id) == [(1, '{"s":1}')]


async def test_a_lost_append_connection_is_replaced(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """A connection the server dropped fails the append made on it (the error reaches the
    caller, as a dropped pooled connection's does) and is closed; the next append opens
    another and is written."""
    await make_match(sessions, "pg-append-lost")
    assert await append_journal(database, "pg-append-lost", 1, "{}")
    own = _own(database).appenders()
    assert own is not None
    [first] = own.open
    async with engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        await driver.execute(f"SELECT pg_terminate_backend({first.get_server_pid()})")
    with pytest.raises(Exception):  # noqa: B017 (asyncpg's own: connection closed)
        await append_journal(database, "pg-append-lost", 2, "{}")
    assert first not in own.open
    assert await append_journal(database, "pg-append-lost", 2, "{}")
    assert [seq for seq, _ in await journal_rows(sessions, "pg-append-lost")] == [1, 2]


async def test_disposing_the_engine_closes_the_append_connections(
    sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """The engine's disposal closes its appends' connections too (none is left open on the
    server)."""
    other = Database(engine.url.render_as_string(hide_password=False))
    await make_match(sessions, "pg-append-dispose")
    assert await append_journal(other, "pg-append-dispose", 1, "{}")
    own = _own(other).appenders()
    assert own is not None
    opened = list(own.open)
    assert opened
    await other.dispose()
    assert all(conn.is_closed() for conn in opened) and not own.open


async def test_appends_go_through_the_pool_when_turned_off(
    sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """``KVA_PG_DIRECT_APPEND=0``: the pooled path, with the same answers."""
    pooled = writers.choose_writer(engine, pg_direct_append=False)
    assert isinstance(pooled, writers.AsyncpgWriter)
    await make_match(sessions, "pg-append-pooled")
    checkouts = _checkouts(engine)
    assert await pooled.append("pg-append-pooled", 1, "{}")
    assert await pooled.append("pg-append-pooled", 1, "{}") is False
    assert len(checkouts) == 2
