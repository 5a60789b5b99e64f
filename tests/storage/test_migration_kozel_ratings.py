"""Migration 0015 adds the Kozel rating tables and its downgrade removes them, leaving every
other table as it was, on SQLite and on PostgreSQL (a database of its own, since the test goes
down and up again)."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from kva.storage.community import KozelRating, KozelRatingChange
from kva.storage.db import create_engine, session_factory
from kva.storage.migrate import alembic_config, downgrade, upgrade
from kva.storage.models import MatchRow, User, utcnow

REVISION = "0015_kozel_ratings"
TABLES = {"kozel_ratings", "kozel_rating_changes"}
PG_URL = os.environ.get("KVA_TEST_DATABASE_URL")


def _before() -> str:
    """The revision this migration follows (read from the script, so it holds on any chain)."""
    down = ScriptDirectory.from_config(alembic_config()).get_revision(REVISION).down_revision
    assert isinstance(down, str)
    return down


async def _pg_admin(statement: str) -> None:
    import asyncpg

    assert PG_URL is not None
    u = make_url(PG_URL)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host or "127.0.0.1",
                                 port=u.port or 5432, database=u.database or "postgres")
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database of this test's own."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'kozel.sqlite3'}"
        return
    if not PG_URL:
        pytest.skip("no KVA_TEST_DATABASE_URL")
    name = f"kva_mig_{secrets.token_hex(6)}"
    await _pg_admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        await _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _tables(engine: Any) -> dict[str, set[str]]:
    """Each table's index names (the unique constraints' too, as SQLite reports them)."""
    def read(connection: Any) -> dict[str, set[str]]:
        found = inspect(connection)
        return {t: {i["name"] for i in found.get_indexes(t)}
                | {u["name"] for u in found.get_unique_constraints(t)}
                for t in found.get_table_names()}

    async with engine.connect() as conn:
        return await conn.run_sync(read)


async def test_the_migration_adds_the_tables_and_the_downgrade_removes_them(
    fresh_url: str
) -> None:
    engine = create_engine(fresh_url)
    try:
        await upgrade(engine, _before())
        before = await _tables(engine)
        assert not TABLES & set(before)
        await upgrade(engine)
        after = await _tables(engine)
        assert set(after) >= TABLES
        assert "ix_kozel_ratings_rating" in after["kozel_ratings"]
        assert {"ix_kozel_rating_changes_user_created",
                "uq_kozel_rating_changes_match_user"} <= after["kozel_rating_changes"]
        sessions = session_factory(engine)
        async with sessions() as session, session.begin():
            user = User(nickname="kozel-player", kind="registered")
            match = MatchRow(id="kozel-m1", status="finished", target=101, bazaar="draw",
                             rated=True, version=1, record={})
            session.add_all([user, match])
            await session.flush()
            session.add(KozelRating(user_id=user.id, rating=8, matches=1, last_change=8,
                                    updated_at=utcnow()))
            session.add(KozelRatingChange(match_id=match.id, user_id=user.id, rating_before=0,
                                          change=8, rating_after=8, created_at=utcnow()))
        with pytest.raises(IntegrityError):  # one change per player and match
            async with sessions() as session, session.begin():
                session.add(KozelRatingChange(match_id=match.id, user_id=user.id,
                                              rating_before=8, change=8, rating_after=16,
                                              created_at=utcnow()))
        await downgrade(engine, _before())
        assert await _tables(engine) == before
        async with sessions() as session:
            assert await session.get(User, user.id) is not None  # the rest is kept
        await upgrade(engine)
        assert await _tables(engine) == after
    finally:
        await engine.dispose()
