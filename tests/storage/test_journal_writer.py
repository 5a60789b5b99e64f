"""The journal writer of an engine is chosen once, when the engine is made, from its driver and
the storage switches (``KVA_SQLITE_DIRECT_APPEND``, ``KVA_PG_DIRECT_APPEND``); every writer
answers an append alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from kva.service import sessions as session_service
from kva.storage import journal_writer as writers
from kva.storage import repo
from kva.storage.db import EngineOptions, create_engine, journal_writer_of
from tests.storage.journal_help import journal_rows, make_match

PG_URL = "postgresql+asyncpg://kva@127.0.0.1:1/kva"  # never connected to


@pytest.mark.parametrize(("url", "options", "chosen"), [
    ("sqlite+aiosqlite:///{tmp}/a.sqlite3", EngineOptions(), writers.SqliteDirectWriter),
    ("sqlite+aiosqlite:///{tmp}/a.sqlite3", EngineOptions(sqlite_direct_append=False),
     writers.SqliteWriter),
    ("sqlite+aiosqlite:///:memory:", EngineOptions(), writers.SqliteWriter),
    (PG_URL, EngineOptions(), writers.AsyncpgOwnWriter),
    (PG_URL, EngineOptions(pg_direct_append=False), writers.AsyncpgWriter),
    (PG_URL, EngineOptions(sqlite_direct_append=False), writers.AsyncpgOwnWriter),
], ids=["sqlite", "sqlite-pooled", "sqlite-memory", "pg", "pg-pooled", "pg-other-switch"])
async def test_the_writer_is_chosen_when_the_engine_is_made(
    tmp_path: Path, url: str, options: EngineOptions, chosen: type[writers.JournalWriter]
) -> None:
    engine = create_engine(url.format(tmp=tmp_path), options)
    try:
        assert type(journal_writer_of(engine)) is chosen
        assert journal_writer_of(engine) is journal_writer_of(engine)  # one per engine
    finally:
        await engine.dispose()


async def test_an_engine_made_elsewhere_gets_the_default_writer_once(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'b.sqlite3'}")
    try:
        writer = journal_writer_of(engine)
        assert type(writer) is writers.SqliteDirectWriter
        assert journal_writer_of(engine) is writer
    finally:
        await engine.dispose()


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "pooled"])
async def test_every_writer_answers_alike(
    sessions: async_sessionmaker, direct: bool
) -> None:
    """Written, a version that exists (False), an ended session (SessionEnded), on the test
    database's driver with its direct path on and off; the SQLAlchemy writer too."""
    engine: AsyncEngine = sessions.kw["bind"]
    chosen = writers.choose_writer(engine, sqlite_direct_append=direct, pg_direct_append=direct)
    for n, writer in enumerate((chosen, writers.JournalWriter())):
        match_id = f"writer-{int(direct)}-{n}"
        _user, token = await session_service.guest_with_session(sessions)
        live = session_service.token_hash(token)
        await make_match(sessions, match_id)
        assert await writer.append(engine, match_id, 1, '{"a":1}', live) is True
        assert await writer.append(engine, match_id, 1, '{"b":1}', live) is False
        assert await writer.append(engine, match_id, 2, '{"c":2}') is True
        assert await session_service.revoke(sessions, token)
        with pytest.raises(repo.SessionEnded):
            await writer.append(engine, match_id, 3, '{"d":3}', live)
        assert await journal_rows(sessions, match_id) == [(1, '{"a":1}'), (2, '{"c":2}')]
