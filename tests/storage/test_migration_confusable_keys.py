"""Migration 0012 recomputes the stored nickname skeletons with the confusables data: each
registered player's key becomes the new skeleton where nobody else's already is, an older
look-alike account keeps the key, and everyone still logs in by their own name."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from kva.service.accounts.nicknames import skeleton
from kva.service.accounts.registration import find_registered
from kva.storage.db import create_engine, session_factory
from kva.storage.migrate import upgrade

#: id, nickname and the key the earlier skeleton stored (None: a guest).
USERS = [(1, "admin324", "admin324"), (2, "admɪn324", "admɪn324"), (3, "bill", "bill"),
         (4, "guest-1234", None), (5, "Nino", "nino")]


async def _keys_after_upgrade(path: Path) -> dict[int, str | None]:
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    try:
        await upgrade(engine, "0010_preferences")
        async with engine.begin() as conn:
            for user_id, nickname, key in USERS:
                await conn.execute(text(
                    "INSERT INTO users (id, nickname, kind, nickname_key, rating, "
                    "rating_deviation, rating_volatility, created_at) VALUES (:id, :nickname, "
                    ":kind, :key, 1500, 350, 0.06, '2026-11-30')"),
                    {"id": user_id, "nickname": nickname, "key": key,
                     "kind": "guest" if key is None else "registered"})
        await upgrade(engine)
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT id, nickname_key FROM users"))).all()
        return {user_id: key for user_id, key in rows}
    finally:
        await engine.dispose()


async def test_each_key_becomes_the_new_skeleton_and_the_older_look_alike_wins(
    tmp_path: Path
) -> None:
    keys = await _keys_after_upgrade(tmp_path / "keys.sqlite3")
    assert keys == {1: skeleton("admin324"), 2: "admɪn324", 3: skeleton("bill"), 4: None,
                    5: "nino"}
    assert skeleton("bill") != "bill"  # the data did change it: l and i are one


async def test_every_player_still_logs_in_by_their_own_name(tmp_path: Path) -> None:
    path = tmp_path / "login.sqlite3"
    await _keys_after_upgrade(path)
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with session_factory(engine)() as session:
            for user_id, nickname, key in USERS:
                if key is not None:
                    found = await find_registered(session, nickname)
                    assert found is not None and found.id == user_id, nickname
    finally:
        await engine.dispose()
