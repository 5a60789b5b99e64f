"""The cheap storage paths of issue 14: a journal append written at once on the event loop's
own SQLite connection when nobody else writes, else one trip to aiosqlite's thread, and a new
guest, its session, a live session's read and a client seed written with Core statements
instead of the ORM, each giving the same answers and leaving the same rows.
"""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from kva.service.accounts import sessions as session_service
from kva.storage import fair as fair_store
from kva.storage import journal_writer as writers
from kva.storage import repo, sqlite_direct
from kva.storage.aiosqlite_thread import run_on_thread
from kva.storage.db import Database
from kva.storage.models import MatchAction, SessionRow, User
from tests.storage.journal_help import append_journal, journal_rows, make_match


@pytest.fixture
def engine(database: Database) -> AsyncEngine:
    """The engine of the migrated test database."""
    return database.engine


def _direct(database: Database) -> sqlite_direct.DirectAppends:
    """The direct appends of the test database's journal writer (a SQLite file's)."""
    writer = database.journal
    assert isinstance(writer, writers.SqliteDirectWriter)
    return writer.direct


async def _in_transaction(engine: AsyncEngine) -> bool:
    """Whether SQLite's one pooled connection is inside a transaction (asked on its thread,
    after everything queued before)."""
    async with engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        return await run_on_thread(driver, lambda conn: conn.in_transaction)


def _sqlite_only(engine: AsyncEngine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("aiosqlite's thread only")


async def test_an_append_is_refused_for_a_taken_version_or_an_ended_session(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """False for a version that exists, SessionEnded for a revoked session, nothing written
    either way, and the connection goes on serving (no transaction left open)."""
    _user, token = await session_service.guest_with_session(sessions)
    await make_match(sessions, "fast-append-1")
    live = session_service.token_hash(token)
    assert await append_journal(database, "fast-append-1", 1, '{"a":1}', live)
    assert await append_journal(database, "fast-append-1", 1, '{"b":1}', live) is False
    assert await append_journal(database, "fast-append-1", 1, '{"c":1}') is False
    assert await session_service.revoke(sessions, token)
    with pytest.raises(repo.SessionEnded):
        await append_journal(database, "fast-append-1", 2, '{"d":2}', live)
    assert await append_journal(database, "fast-append-1", 2, '{"e":2}')
    assert await journal_rows(sessions, "fast-append-1") == [(1, '{"a":1}'), (2, '{"e":2}')]
    if engine.dialect.name == "sqlite":
        assert not await _in_transaction(engine)


def _direct_path_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Appends find the direct connection locked, so they take the pooled connection."""
    monkeypatch.setattr(writers, "_append_directly", lambda *args: sqlite_direct.BUSY)


def _count_thread_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The functions sent to aiosqlite's thread from now on."""
    import aiosqlite

    calls: list[Any] = []
    real = aiosqlite.Connection._execute

    async def counted(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(fn)
        return await real(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return calls


async def test_an_append_is_written_at_once_when_nobody_else_writes(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a SQLite file nobody else is writing, an append (written, stale, or refused for an
    ended session) never goes to aiosqlite's thread, and what it wrote is what a read of the
    journal gives."""
    _sqlite_only(engine)
    _user, token = await session_service.guest_with_session(sessions)
    live = session_service.token_hash(token)
    await make_match(sessions, "direct-append-1")
    calls = _count_thread_calls(monkeypatch)
    assert await append_journal(database, "direct-append-1", 1, '{"a":1}', live)
    assert await append_journal(database, "direct-append-1", 1, '{"b":1}') is False
    assert await append_journal(database, "direct-append-1", 2, '{"c":2}')
    assert calls == []
    monkeypatch.undo()
    assert await session_service.revoke(sessions, token)
    calls = _count_thread_calls(monkeypatch)
    with pytest.raises(repo.SessionEnded):
        await append_journal(database, "direct-append-1", 3, '{"d":3}', live)
    assert calls == []
    monkeypatch.undo()
    assert await journal_rows(sessions, "direct-append-1") == [(1, '{"a":1}'), (2, '{"c":2}')]
    conn = _direct(database).connection()
    assert conn is not None and not conn.in_transaction
    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == \
        sqlite_direct.CHECKPOINT_PAGES


async def test_an_append_waits_its_turn_while_the_engine_writes(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """While a transaction of the engine holds SQLite's write lock, an append finds the
    direct connection locked at once (the loop is not held) and queues for the pooled
    connection; it is written after that transaction commits, with the version it asked."""
    _sqlite_only(engine)
    await make_match(sessions, "direct-append-2")
    async with engine.begin() as conn:
        assert await repo.append_change(conn, "direct-append-2", 1, '{"engine":1}')
        direct = _direct(database).connection()
        assert direct is not None
        assert sqlite_direct.try_append(direct, "INSERT INTO match_actions (match_id, seq, "
                                        "change) VALUES (?, ?, ?) RETURNING seq",
                                        ["direct-append-2", 9, "{}"]) is sqlite_direct.BUSY
        task = asyncio.create_task(
            append_journal(database, "direct-append-2", 2, '{"queued":2}'))
        await asyncio.sleep(0.05)
        assert not task.done()
    assert await task
    assert await journal_rows(sessions, "direct-append-2") == [
        (1, '{"engine":1}'), (2, '{"queued":2}')]


async def test_the_log_is_checkpointed_off_the_loop_every_so_many_appends(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``CHECKPOINT_EVERY`` direct appends, one checkpoint of the write-ahead log runs in
    a worker thread, neither on the loop's thread nor on the engine's pooled connection
    (aiosqlite's thread), and it copies every page of the log into the database; appends in
    between start none."""
    _sqlite_only(engine)
    await make_match(sessions, "direct-append-checkpoint")
    monkeypatch.setattr(sqlite_direct, "CHECKPOINT_EVERY", 3)
    direct = _direct(database)
    answers: list[tuple[int, int, int]] = []
    threads: list[int] = []
    real = sqlite_direct._checkpoint_now

    def recorded(conn: Any) -> tuple[int, int, int]:
        threads.append(threading.get_ident())
        answers.append(real(conn))
        return answers[-1]

    monkeypatch.setattr(sqlite_direct, "_checkpoint_now", recorded)
    calls = _count_thread_calls(monkeypatch)
    for seq in (1, 2):
        assert await append_journal(database, "direct-append-checkpoint", seq, "{}")
    assert direct.checkpointing is None and calls == []
    assert await append_journal(database, "direct-append-checkpoint", 3, "{}")
    assert direct.checkpointing is not None
    await direct.checkpointing
    assert direct.checkpointing is None
    assert calls == [] and threads != [threading.get_ident()]
    [(busy, pages, checkpointed)] = answers
    assert busy == 0 and pages > 0 and checkpointed == pages
    for seq in (4, 5):
        assert await append_journal(database, "direct-append-checkpoint", seq, "{}")
    assert direct.checkpointing is None and len(answers) == 1
    written = await journal_rows(sessions, "direct-append-checkpoint")
    assert [seq for seq, _ in written] == [1, 2, 3, 4, 5]


async def test_an_in_memory_database_has_no_direct_connection() -> None:
    """An in-memory SQLite database is private to its one connection: appends take the
    engine's way."""
    from kva.storage.db import create_engine

    memory = create_engine("sqlite+aiosqlite:///:memory:")
    try:
        assert sqlite_direct.DirectAppends(memory).connection() is None
    finally:
        await memory.dispose()


async def test_an_append_is_one_trip_to_the_sqlite_thread(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the direct connection is locked, the INSERT and its COMMIT go to aiosqlite's
    thread as one call, written or refused."""
    _sqlite_only(engine)
    _direct_path_busy(monkeypatch)
    await make_match(sessions, "fast-append-2")
    calls = _count_thread_calls(monkeypatch)
    assert await append_journal(database, "fast-append-2", 1, "{}")
    assert len(calls) == 1
    assert await append_journal(database, "fast-append-2", 1, "{}") is False
    assert len(calls) == 2
    monkeypatch.undo()
    assert not await _in_transaction(engine)


@pytest.mark.parametrize("seq", [1, 2], ids=["written", "taken"])
async def test_a_cancelled_append_ends_its_transaction(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch,
    seq: int,
) -> None:
    """A move whose task is cancelled while its call waits on aiosqlite's thread: the call
    still runs to its end there (committed, or rolled back for a taken version), before
    whatever the next user of the connection sends; no transaction is left open."""
    _sqlite_only(engine)
    _direct_path_busy(monkeypatch)
    await make_match(sessions, "fast-append-3")
    assert await append_journal(database, "fast-append-3", 1, '{"first":1}')
    started, release = threading.Event(), threading.Event()
    real: Callable[..., bool] = writers._append_on_thread

    def held(*args: Any) -> bool:
        started.set()
        release.wait(5)
        return real(*args)

    monkeypatch.setattr(writers, "_append_on_thread", held)
    task = asyncio.create_task(append_journal(database, "fast-append-3", seq, '{"x":1}'))
    while not started.is_set():
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()
    monkeypatch.undo()
    assert not await _in_transaction(engine)
    expected = [(1, '{"first":1}')] + ([(2, '{"x":1}')] if seq == 2 else [])
    assert await journal_rows(sessions, "fast-append-3") == expected
    assert await append_journal(database, "fast-append-3", 3, '{"y":3}')


async def test_a_new_guest_is_the_user_an_orm_read_gives(sessions: async_sessionmaker) -> None:
    """The guest written with Core comes back detached with every column loaded, equal to
    the stored row (the model's defaults included), with its session in the same
    transaction."""
    user, token = await session_service.guest_with_session(sessions, "203.0.113.9")
    assert sa_inspect(user).detached
    async with sessions() as session:
        stored = await session.get(User, user.id)
        assert stored is not None
        columns = [c.key for c in User.__table__.columns]
        assert {k: getattr(user, k) for k in columns if k != "created_at"} == \
            {k: getattr(stored, k) for k in columns if k != "created_at"}
        assert (user.rating, user.rating_deviation, user.rating_volatility, user.kind) == \
            (1500.0, 350.0, 0.06, "guest")
        assert user.created_at is not None and user.password_hash is None
        row = await session.scalar(select(SessionRow).where(
            SessionRow.token_hash == session_service.token_hash(token)))
        assert row is not None and row.user_id == user.id and row.address == "203.0.113.9"
        assert row.revoked_at is None and row.created_at == row.last_seen_at


async def test_a_taken_guest_name_is_tried_again(
    sessions: async_sessionmaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nickname that is taken rolls its transaction back (no session row for nobody) and
    the next name is tried."""
    first, _token = await session_service.guest_with_session(sessions)
    fresh = f"guest-{secrets.token_hex(6)}"
    names = iter([first.nickname, first.nickname, fresh])
    monkeypatch.setattr(repo, "guest_nickname", lambda attempt: next(names))
    user, _token = await session_service.guest_with_session(sessions)
    assert user.nickname == fresh and user.id != first.id
    async with sessions() as session:  # (a PostgreSQL test database is not empty)
        assert await session.scalar(select(func.count()).select_from(SessionRow).where(
            SessionRow.user_id.in_([first.id, user.id]))) == 2
        assert await session.scalar(select(func.count()).select_from(User).where(
            User.nickname.in_([first.nickname, fresh]))) == 2


async def test_a_live_session_reads_the_user_and_the_bot_flag(
    sessions: async_sessionmaker,
) -> None:
    """The Core read gives the user as stored (detached, every attribute readable) and
    whether it is a bot account; a revoked or unknown token gives None."""
    from kva.storage.botapi import BotAccount

    user, token = await session_service.guest_with_session(sessions)
    found = await session_service.live_session(sessions, token)
    assert found is not None and not found.bot
    assert sa_inspect(found.user).detached
    assert (found.user.id, found.user.nickname, found.user.rating, found.user.kind) == \
        (user.id, user.nickname, 1500.0, "guest")
    async with sessions() as session:
        session.add(BotAccount(user_id=user.id))
        await session.commit()
    found = await session_service.live_session(sessions, token)
    assert found is not None and found.bot
    assert await session_service.revoke(sessions, token)
    assert await session_service.live_session(sessions, token) is None
    assert await session_service.live_session(sessions, "unknown") is None


async def test_a_client_seed_is_stored_once_per_seat(sessions: async_sessionmaker) -> None:
    """A seat's seed is written only while it has none; the other seat's is its own."""
    await make_match(sessions, "fast-seed-1")
    async with repo.core_transaction(sessions) as conn:
        assert await fair_store.set_client_seed(conn, "fast-seed-1", 0, "aa" * 16, "player")
    async with repo.core_transaction(sessions) as conn:
        assert not await fair_store.set_client_seed(conn, "fast-seed-1", 0, "bb" * 16, "server")
        assert await fair_store.set_client_seed(conn, "fast-seed-1", 1, "cc" * 16, "server")
    async with sessions() as session:
        row = await fair_store.get_fair(session, "fast-seed-1")
        seeds = await fair_store.client_seeds(session, "fast-seed-1")
    assert row is not None
    assert seeds == [("aa" * 16, "player"), ("cc" * 16, "server")]
    assert row.server_seed == "ab" * 32
    async with sessions() as session:
        assert await fair_store.get_fair(session, "no-such-match") is None


def test_a_detached_object_holds_every_column() -> None:
    """What :func:`repo.detached` gives is what a closed session's object is: detached, with
    its identity and every column loaded (none expired: reading one needs no database), the
    model's defaults filled in by :func:`repo.new_row_values`."""
    values = repo.new_row_values(User.__table__, {"nickname": "guest-1", "kind": "guest"})
    assert "id" not in values and values["rating"] == 1500.0 and values["locale"] is None
    user = repo.detached(User, {**values, "id": 7})
    state = sa_inspect(user)
    assert state.detached and state.identity == (7,) and not state.expired_attributes
    assert state.unloaded == set()


async def test_the_journal_of_a_revoked_session_is_unchanged(
    database: Database, sessions: async_sessionmaker, engine: AsyncEngine
) -> None:
    """An ended session's move writes no row (the count stays as it was)."""
    _user, token = await session_service.guest_with_session(sessions)
    await make_match(sessions, "fast-append-4")
    assert await session_service.revoke(sessions, token)
    with pytest.raises(repo.SessionEnded):
        await append_journal(database, "fast-append-4", 1, "{}",
                                  session_service.token_hash(token))
    async with sessions() as session:
        assert await session.scalar(select(func.count()).select_from(MatchAction).where(
            MatchAction.match_id == "fast-append-4")) == 0


async def test_new_guests_take_a_digit_more_once_two_names_in_a_row_are_taken(
    sessions: async_sessionmaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Guest names of one length fill up as guests accumulate: once a guest finds two names of
    the starting length taken in a row, the next guests start a digit longer, instead of
    paying for refused INSERTs ever more often."""
    monkeypatch.setattr(repo, "_guest_digits", [4])
    names: dict[int, str] = {}  # digits -> the one name of that length the test offers
    async with sessions() as session:  # free ones (a PostgreSQL test database is not empty)
        for digits in (4, 5, 6):
            while digits not in names:
                name = f"guest-{secrets.randbelow(9 * 10 ** (digits - 1)) + 10 ** (digits - 1)}"
                if await session.scalar(select(User.id).where(User.nickname == name)) is None:
                    names[digits] = name
    asked: list[int] = []

    def one_name_a_length(n: int) -> int:
        asked.append(n)
        digits = len(str(n))
        return int(names[digits].removeprefix("guest-")) - 10 ** (digits - 1)

    monkeypatch.setattr(repo.secrets, "randbelow", one_name_a_length)
    first = await repo.create_guest(sessions)
    second = await repo.create_guest(sessions)  # the 4-digit name taken twice: a digit more
    assert (first.nickname, second.nickname) == (names[4], names[5])
    asked.clear()
    third = await repo.create_guest(sessions)
    assert asked[0] == 9 * 10 ** 4  # starts at five digits now
    assert third.nickname == names[6]


async def test_disposing_the_database_closes_its_direct_connections(tmp_path: Path) -> None:
    """The direct connections belong to the database's journal writer and close with it."""
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'disposed.sqlite3'}")
    conn = _direct(database).connection()
    assert conn is not None
    assert conn.execute("SELECT 1").fetchone() == (1,)
    await database.dispose()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        conn.execute("SELECT 1")
