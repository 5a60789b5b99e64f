"""Domino Coin, property-based: random sequences of grants (new players), daily top-ups, coin
tables opened, joined (started), finished (sometimes settled twice) and cancelled keep every
invariant of the audit, and every balance equals a plain model of what should have moved."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import update

from kva.service.coins import wallets as coins
from kva.service.coins.audit import audit
from kva.storage.db import create_engine, session_factory
from kva.storage.migrate import upgrade
from kva.storage.models import MatchRow, MatchSeat, User

OPS = st.lists(st.one_of(
    st.tuples(st.just("user")),
    st.tuples(st.just("topup"), st.integers(0, 20), st.integers(0, 2)),
    st.tuples(st.just("table"), st.integers(0, 20), st.sampled_from(coins.STAKES)),
    st.tuples(st.just("join"), st.integers(0, 30), st.integers(0, 20)),
    st.tuples(st.just("finish"), st.integers(0, 30), st.integers(0, 1), st.booleans()),
    st.tuples(st.just("cancel"), st.integers(0, 30)),
), min_size=1, max_size=40)


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('coins-hyp') / 'coins.sqlite3'}"

    async def migrate() -> None:
        engine = create_engine(url)
        await upgrade(engine)
        await engine.dispose()

    asyncio.run(migrate())
    return url


async def _scenario(url: str, ops: list[tuple[Any, ...]]) -> None:
    engine = create_engine(url)
    sessions = session_factory(engine)
    users: list[User] = []
    model: dict[int, int] = {}
    tables: list[tuple[str, int]] = []  # (match id, stake)
    state: dict[str, str] = {}
    seats: dict[str, list[int]] = {}
    day = datetime(2026, 11, 30, 12, tzinfo=UTC)
    claimed: set[tuple[int, int]] = set()
    try:
        for op in ops:
            kind = op[0]
            if kind == "user":
                async with sessions() as session, session.begin():
                    user = User(nickname=f"h{secrets.token_hex(6)}", kind="registered")
                    session.add(user)
                    await session.flush()
                    await coins.ensure_wallet(session, user)
                users.append(user)
                model[user.id] = coins.START_GRANT
            elif kind == "topup" and users:
                user = users[op[1] % len(users)]
                try:
                    async with sessions() as session, session.begin():
                        added = await coins.claim_topup(session, user,
                                                        day + timedelta(days=op[2]))
                    assert (user.id, op[2]) not in claimed and model[user.id] < coins.TOPUP_TO
                    assert added == coins.TOPUP_TO - model[user.id]
                    model[user.id] = coins.TOPUP_TO
                    claimed.add((user.id, op[2]))
                except coins.CoinError as exc:
                    assert exc.code in ("topup_claimed", "topup_above")
                    assert ((user.id, op[2]) in claimed) == (exc.code == "topup_claimed") \
                        or model[user.id] >= coins.TOPUP_TO
            elif kind == "table" and users:
                user = users[op[1] % len(users)]
                match_id = secrets.token_urlsafe(9)
                try:
                    async with sessions() as session, session.begin():
                        session.add(MatchRow(id=match_id, status="waiting", target=75,
                                             bazaar="draw", record={"meta": {}},
                                             stake=op[2], seats=[
                                                 MatchSeat(seat=0, user_id=user.id),
                                                 MatchSeat(seat=1)]))
                        await session.flush()
                        await coins.match_created(session, match_id)
                    tables.append((match_id, op[2]))
                    state[match_id] = "waiting"
                    seats[match_id] = [user.id]
                except coins.CoinError as exc:
                    assert exc.code == "insufficient" and model[user.id] < op[2]
            elif kind == "join" and tables and users:
                match_id, stake = tables[op[1] % len(tables)]
                user = users[op[2] % len(users)]
                if state[match_id] != "waiting" or user.id == seats[match_id][0]:
                    continue
                host = seats[match_id][0]
                try:
                    async with sessions() as session, session.begin():
                        await session.execute(update(MatchRow).where(MatchRow.id == match_id)
                                              .values(status="active"))
                        await session.execute(update(MatchSeat).where(
                            MatchSeat.match_id == match_id, MatchSeat.seat == 1)
                            .values(user_id=user.id))
                        await coins.start_match(session, match_id)
                    assert model[host] >= stake and model[user.id] >= stake
                    model[host] -= stake
                    model[user.id] -= stake
                    state[match_id] = "active"
                    seats[match_id].append(user.id)
                except coins.CoinError as exc:
                    assert exc.code == "insufficient"
                    assert model[host] < stake or model[user.id] < stake
            elif kind == "finish" and tables:
                match_id, stake = tables[op[1] % len(tables)]
                if state[match_id] != "active":
                    continue
                for _ in range(2 if op[3] else 1):  # settled twice: paid once
                    async with sessions() as session, session.begin():
                        await session.execute(update(MatchRow).where(MatchRow.id == match_id)
                                              .values(status="finished", winner=op[2]))
                        await coins.finish_match(session, match_id)
                model[seats[match_id][op[2]]] += 2 * stake
                state[match_id] = "finished"
            elif kind == "cancel" and tables:
                match_id, _stake = tables[op[1] % len(tables)]
                if state[match_id] == "waiting":
                    async with sessions() as session, session.begin():
                        await session.execute(update(MatchRow).where(MatchRow.id == match_id)
                                              .values(status="cancelled"))
                    state[match_id] = "cancelled"
            async with sessions() as session:
                report = await audit(session)
            assert report.ok, (op, report.problems)
        async with sessions() as session:
            for user in users:
                assert await coins.balance(session, user) == model[user.id]
    finally:
        await engine.dispose()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=OPS)
def test_random_ledger_histories_keep_every_invariant(db_url: str, ops: list[tuple[Any, ...]]
                                                      ) -> None:
    asyncio.run(_scenario(db_url, ops))


def test_the_audit_names_each_discrepancy(db_url: str) -> None:
    """Corrupt a copy of the ledger in each way the audit checks; each is named."""
    async def run() -> list[str]:
        engine = create_engine(db_url)
        sessions = session_factory(engine)
        try:
            await _scenario(db_url, [("user",), ("user",), ("table", 0, 100), ("join", 0, 1)])
            from kva.storage.ledger import CoinAccount

            async with sessions() as session, session.begin():
                wallet = await session.scalar(select_wallet())
                assert wallet is not None
                await session.execute(update(CoinAccount).where(CoinAccount.id == wallet)
                                      .values(balance=CoinAccount.balance + 5))
            async with sessions() as session:
                report = await audit(session)
            async with sessions() as session, session.begin():  # put it back
                await session.execute(update(CoinAccount).where(CoinAccount.id == wallet)
                                      .values(balance=CoinAccount.balance - 5))
            return report.problems
        finally:
            await engine.dispose()

    def select_wallet():  # type: ignore[no-untyped-def]
        from sqlalchemy import select

        from kva.storage.ledger import CoinAccount
        return select(CoinAccount.id).where(CoinAccount.kind == "wallet") \
            .order_by(CoinAccount.id.desc()).limit(1)

    problems = asyncio.run(run())
    assert any("cached balance" in p for p in problems), problems
    assert any("sum to 5" in p for p in problems), problems
