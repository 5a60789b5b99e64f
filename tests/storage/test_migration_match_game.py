"""Migration 0016 gives every match its game: a match stored before it is a Georgian one, and
a new row names its game (``georgian`` unless it says otherwise)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from kva.storage.db import create_engine
from kva.storage.migrate import upgrade

_INSERT = text(
    "INSERT INTO matches (id, status, target, bazaar, rated, version, record, created_at, "
    "updated_at, private, stake) VALUES (:id, 'finished', 175, 'draw', false, 1, '{}', "
    "'2026-12-01', '2026-12-01', false, 0)")


async def test_a_match_stored_before_is_georgian_and_new_ones_default_to_it(
    tmp_path: Path
) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'game.sqlite3'}")
    try:
        await upgrade(engine, "0015_kozel_ratings")
        async with engine.begin() as conn:
            await conn.execute(_INSERT, {"id": "before"})
        await upgrade(engine)
        async with engine.begin() as conn:
            await conn.execute(_INSERT, {"id": "after"})
            rows = (await conn.execute(text("SELECT id, game FROM matches ORDER BY id"))).all()
        assert [tuple(r) for r in rows] == [("after", "georgian"), ("before", "georgian")]
    finally:
        await engine.dispose()
