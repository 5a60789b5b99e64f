"""The journal writer of a database is chosen once, when the Database is made, from its driver and
the storage switches (``KVA_SQLITE_DIRECT_APPEND``, ``KVA_PG_DIRECT_APPEND``); every writer
answers an append alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from kva.service.accounts import sessions as session_service
from kva.settings.caps import EngineOptions
from kva.storage import journal_writer as writers
from kva.storage import repo
from kva.storage.db import Database
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
async def test_the_writer_is_chosen_when_the_database_is_made(
    tmp_path: Path, url: str, options: EngineOptions, chosen: type[writers.JournalWriter]
) -> None:
    database = Database(url.format(tmp=tmp_path), options)
    try:
        assert type(database.journal) is chosen
        assert database.journal.engine is database.engine
    finally:
        await database.dispose()


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "pooled"])
async def test_every_writer_answers_alike(
    database: Database, direct: bool
) -> None:
    """Written, a version that exists (False), an ended session (SessionEnded), on the test
    database's driver with its direct path on and off; the SQLAlchemy writer too."""
    engine, sessions = database.engine, database.sessions
    chosen = writers.choose_writer(engine, sqlite_direct_append=direct, pg_direct_append=direct)
    for n, writer in enumerate((chosen, writers.JournalWriter(engine))):
        match_id = f"writer-{int(direct)}-{n}"
        _user, token = await session_service.guest_with_session(sessions)
        live = session_service.token_hash(token)
        await make_match(sessions, match_id)
        assert await writer.append(match_id, 1, '{"a":1}', live) is True
        assert await writer.append(match_id, 1, '{"b":1}', live) is False
        assert await writer.append(match_id, 2, '{"c":2}') is True
        assert await session_service.revoke(sessions, token)
        with pytest.raises(repo.SessionEnded):
            await writer.append(match_id, 3, '{"d":3}', live)
        assert await journal_rows(sessions, match_id) == [(1, '{"a":1}'), (2, '{"c":2}')]
