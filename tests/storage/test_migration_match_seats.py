"""Migration 0014 moves the seats of every match (and their kva-fair/1 client seeds) into
``match_seats`` and drops the old columns; its downgrade puts them back. Up and down on a
database of real-looking data (people, bots, the empty seat of a waiting table, rated and coin
matches with their rating changes and coin entries, a match from before fair deals), on SQLite
and on PostgreSQL (``KVA_TEST_DATABASE_URL``): every other table stays row for row as it was,
and the database after the round trip is the one before it."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, inspect, select
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from kva.storage import fair as fair_store
from kva.storage import history as history_store
from kva.storage import repo
from kva.storage import tables as table_store
from kva.storage.coins_repo import match_seats
from kva.storage.db import create_engine, session_factory
from kva.storage.migrate import downgrade, upgrade

BEFORE = "0013_coin_refunds"
#: This migration; later ones add tables of their own, which the comparisons must not see.
AFTER = "0014_match_seats"
SEAT_COLUMNS = ("seat0_user_id", "seat1_user_id", "seat0_bot", "seat1_bot")
SEED_COLUMNS = ("client_seed0", "client_seed1", "seed_by0", "seed_by1")
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

#: id, nickname, kind.
USERS = [(1, "nino", "registered"), (2, "bill", "registered"), (3, "guest-1234", "guest")]
#: id, status, (seat 0 user, seat 1 user), (seat 0 bot, seat 1 bot), winner, rated, stake,
#: end reason.
MATCHES: list[tuple[str, str, tuple[int | None, int | None], tuple[str | None, str | None],
                    int | None, bool, int, str | None]] = [
    ("m-rated", "finished", (1, 2), (None, None), 0, True, 0, "target"),
    ("m-coin", "finished", (2, 1), (None, None), 1, False, 100, "resign"),
    ("m-bot", "active", (3, None), (None, "easy"), None, False, 0, None),
    ("m-bot-first", "finished", (None, 3), ("hard", None), 1, False, 0, "target"),
    ("m-waiting", "waiting", (1, None), (None, None), None, True, 0, None),
    ("m-aborted", "cancelled", (2, 1), (None, None), None, False, 0, "abort"),
    ("m-draw", "finished", (2, 3), (None, None), None, False, 0, "blocked"),
]


async def _pg_admin(statement: str) -> None:
    import asyncpg

    url = make_url(os.environ["KVA_TEST_DATABASE_URL"])
    conn = await asyncpg.connect(user=url.username, password=url.password,
                                 host=url.host or "127.0.0.1", port=url.port or 5432,
                                 database=url.database or "postgres")
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def engine(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    """An engine on an empty database of its own (migrated down and up, so never the
    session's shared one): a SQLite file, or a PostgreSQL database made and dropped here."""
    if request.param == "sqlite":
        made = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'seats.sqlite3'}")
        yield made
        await made.dispose()
        return
    url = os.environ.get("KVA_TEST_DATABASE_URL", "")
    if not url.startswith("postgresql"):
        pytest.skip("no PostgreSQL (KVA_TEST_DATABASE_URL)")
    name = f"kva_seats_{secrets.token_hex(6)}"
    await _pg_admin(f'CREATE DATABASE "{name}"')
    made = create_engine(make_url(url).set(database=name).render_as_string(hide_password=False))
    try:
        yield made
    finally:
        await made.dispose()
        await _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _reflect(conn: Connection) -> MetaData:
    metadata = MetaData()
    metadata.reflect(conn)
    return metadata


def _record(score: tuple[int, int]) -> dict[str, Any]:
    return {"format": "georgian-domino/1", "meta": {"started": T0.isoformat()},
            "score": list(score), "hands": []}


async def _fill(engine: AsyncEngine) -> None:
    """The data, written at :data:`BEFORE` with the tables as they were then."""
    async with engine.connect() as conn:
        tables = (await conn.run_sync(_reflect)).tables
    rows: dict[str, list[dict[str, Any]]] = {
        "users": [{"id": i, "nickname": n, "kind": k, "rating": 1500.0 + i,
                   "rating_deviation": 350.0, "rating_volatility": 0.06, "created_at": T0}
                  for i, n, k in USERS],
        "matches": [{
            "id": m, "status": status, "target": 75, "bazaar": "draw", "rated": rated,
            "seat0_user_id": users[0], "seat1_user_id": users[1], "seat0_bot": bots[0],
            "seat1_bot": bots[1], "version": 7, "record": _record((75, 40)), "winner": winner,
            "end_reason": reason, "created_at": T0 + timedelta(minutes=n),
            "updated_at": T0 + timedelta(minutes=n + 1), "private": m == "m-waiting",
            "finished_at": T0 + timedelta(hours=n) if status != "active" and reason else None,
            "stake": stake,
        } for n, (m, status, users, bots, winner, rated, stake, reason) in enumerate(MATCHES)],
        "tables": [{"id": 1, "match_id": "m-waiting", "token": "tok", "password_hash": None,
                    "created_by": 1, "created_at": T0, "kind": "open"}],
        "match_actions": [{"match_id": "m-bot", "seq": 8, "change": "{\"m\":\"6-6\"}"}],
        # m-draw is from before fair deals: no row
        "match_fair": [
            {"match_id": m, "server_seed": f"{n:02x}" * 32, "client_seed0": seeds[0],
             "client_seed1": seeds[1], "seed_by0": by[0], "seed_by1": by[1]}
            for n, (m, seeds, by) in enumerate([
                ("m-rated", ("a0" * 16, "a1" * 16), ("player", "player")),
                ("m-coin", ("b0" * 16, "b1" * 16), ("player", "server")),
                ("m-bot", (None, "c1" * 16), (None, "server")),
                ("m-bot-first", ("d0" * 16, "d1" * 16), ("server", "player")),
                ("m-waiting", (None, None), (None, None)),
                ("m-aborted", ("e0" * 16, "e1" * 16), ("player", "player"))])],
        "rating_history": [
            {"id": 1, "user_id": 1, "match_id": "m-rated", "rating_before": 1500.0,
             "rd_before": 350.0, "rating_after": 1662.3, "rd_after": 290.3,
             "volatility_after": 0.06, "created_at": T0},
            {"id": 2, "user_id": 2, "match_id": "m-rated", "rating_before": 1500.0,
             "rd_before": 350.0, "rating_after": 1337.7, "rd_after": 290.3,
             "volatility_after": 0.06, "created_at": T0}],
        "coin_accounts": [
            {"id": 10, "key": "wallet:1", "kind": "wallet", "user_id": 1, "match_id": None,
             "balance": 1100, "created_at": T0},
            {"id": 11, "key": "wallet:2", "kind": "wallet", "user_id": 2, "match_id": None,
             "balance": 900, "created_at": T0},
            {"id": 12, "key": "escrow:m-coin", "kind": "escrow", "user_id": None,
             "match_id": "m-coin", "balance": 0, "created_at": T0}],
        "coin_entries": [
            {"id": 1, "key": "stake:m-coin:11", "amount": 100, "from_account": 11,
             "to_account": 12, "kind": "stake", "match_id": "m-coin", "created_at": T0},
            {"id": 2, "key": "stake:m-coin:10", "amount": 100, "from_account": 10,
             "to_account": 12, "kind": "stake", "match_id": "m-coin", "created_at": T0},
            {"id": 3, "key": "payout:m-coin", "amount": 200, "from_account": 12,
             "to_account": 10, "kind": "payout", "match_id": "m-coin", "created_at": T0}],
    }
    async with engine.begin() as conn:
        for name, values in rows.items():
            await conn.execute(tables[name].insert(), values)


async def _snapshot(engine: AsyncEngine) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table but Alembic's own, in primary-key order."""
    async with engine.connect() as conn:
        metadata = await conn.run_sync(_reflect)
        found = {}
        for name, table in metadata.tables.items():
            if name == "alembic_version":
                continue
            order = list(table.primary_key.columns) or list(table.columns)
            result = await conn.execute(select(table).order_by(*order))
            found[name] = [dict(row) for row in result.mappings()]
    return found


def _schema(conn: Connection) -> dict[str, Any]:
    found = inspect(conn)
    return {
        "matches": {c["name"] for c in found.get_columns("matches")},
        "match_indexes": {i["name"] for i in found.get_indexes("matches")},
        "match_fair": {c["name"] for c in found.get_columns("match_fair")},
        "match_foreign_keys": {tuple(k["constrained_columns"])
                               for k in found.get_foreign_keys("matches")},
        "tables": set(found.get_table_names()),
    }


async def test_seats_go_to_rows_and_back_with_every_other_row_untouched(
    engine: AsyncEngine
) -> None:
    await upgrade(engine, BEFORE)
    await _fill(engine)
    before = await _snapshot(engine)

    await upgrade(engine, AFTER)
    after = await _snapshot(engine)
    fair = {f["match_id"]: f for f in before["match_fair"]}
    assert after["match_seats"] == [
        {"match_id": m["id"], "seat": seat, "user_id": m[f"seat{seat}_user_id"],
         "bot": m[f"seat{seat}_bot"],
         "client_seed": fair.get(m["id"], {}).get(f"client_seed{seat}"),
         "seed_by": fair.get(m["id"], {}).get(f"seed_by{seat}")}
        for m in before["matches"] for seat in (0, 1)]
    assert any(s["client_seed"] for s in after["match_seats"])
    assert after["matches"] == [{k: v for k, v in m.items() if k not in SEAT_COLUMNS}
                                for m in before["matches"]]
    assert after["match_fair"] == [{k: v for k, v in f.items() if k not in SEED_COLUMNS}
                                   for f in before["match_fair"]]
    moved = ("matches", "match_fair", "match_seats")
    assert {name: rows for name, rows in after.items() if name not in moved} \
        == {name: rows for name, rows in before.items() if name not in moved}
    async with engine.connect() as conn:
        schema = await conn.run_sync(_schema)
    assert not schema["matches"] & set(SEAT_COLUMNS)
    assert schema["match_fair"] == {"match_id", "server_seed"}
    assert not {"ix_matches_seat0_user_id", "ix_matches_seat1_user_id"} \
        & schema["match_indexes"]

    await downgrade(engine, BEFORE)
    assert await _snapshot(engine) == before
    async with engine.connect() as conn:
        schema = await conn.run_sync(_schema)
    assert set(SEAT_COLUMNS) <= schema["matches"]
    assert schema["match_fair"] == {"match_id", "server_seed", *SEED_COLUMNS}
    assert {"ix_matches_seat0_user_id", "ix_matches_seat1_user_id"} <= schema["match_indexes"]
    assert {("seat0_user_id",), ("seat1_user_id",)} <= schema["match_foreign_keys"]
    assert "match_seats" not in schema["tables"]

    await upgrade(engine, AFTER)  # and up again, as a database taken back and forth would be
    assert await _snapshot(engine) == after


async def test_the_migrated_seats_read_as_the_columns_did(engine: AsyncEngine) -> None:
    """What the code reads from the migrated rows: each match's seats, a player's matches and
    history, the lobby's open table with its creator, a coin match's players, the seats'
    client seeds."""
    await upgrade(engine, BEFORE)
    await _fill(engine)
    await upgrade(engine)  # the code reads the newest schema, with every later migration
    async with session_factory(engine)() as session:
        for match_id, _status, users, bots, *_rest in MATCHES:
            row = await repo.get_match(session, match_id)
            assert row is not None
            assert row.seat_users() == list(users) and [s.bot for s in row.seats] == list(bots)
        mine = {row.id for row in await repo.matches_of_user(session, 1)}
        assert mine == {"m-rated", "m-coin", "m-waiting"}  # a cancelled table is not listed
        assert await history_store.finished_counts(session, 1) == (2, 0, 0)
        assert await history_store.finished_counts(session, 2) == (0, 2, 1)
        assert await history_store.finished_total(session, 1) == 3  # the aborted one too
        [(table_match, creator)] = await table_store.open_tables(session, 10)
        assert (table_match.id, creator.id, table_match.seat_of(1)) == ("m-waiting", 1, 0)
        coin = await match_seats(session, "m-coin")
        assert coin is not None and (coin.stake, coin.people()) == (100, [2, 1])
        assert await fair_store.client_seeds(session, "m-bot") == [(None, None),
                                                                   ("c1" * 16, "server")]
        assert await fair_store.client_seeds(session, "m-draw") == [(None, None), (None, None)]
