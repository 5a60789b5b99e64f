"""Domino Coin under concurrency, with real concurrent transactions on PostgreSQL (on SQLite
the single writer serialises them): a player who can cover one stake joins two coin tables at
the same moment and sits at one; two play services (two processes) finishing the same match
settle it once; many coin matches at once leave the audit clean and the total unchanged."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from kva.service.coins import wallets as coins
from kva.service.coins.wallets import CoinError
from kva.service.errors import PlayError
from kva.service.play import PlayService
from kva.storage.ledger import CoinEntry
from kva.storage.models import MatchRow
from tests.helpers.coins_help import open_coin_table, run_audit, wallet_balance
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play


@pytest.fixture
async def plays(database, sessions) -> AsyncIterator[list[PlayService]]:
    """Two play services on one database, as two processes would be (own caches, own
    locks)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        services = [make_play(database, bot_executor=pool) for _ in range(2)]
        try:
            yield services
        finally:
            for s in services:
                await s.stop()


async def _lose(sessions, play: PlayService, user, stakes: list[int]) -> None:  # type: ignore[no-untyped-def]
    for stake in stakes:
        other = await make_user(sessions)
        match_id, token = await open_coin_table(play, other, stake)
        await play.join_table(token, user.id, user.nickname, None, registered=True)
        await play.resign(match_id, user.id)


async def test_joining_two_coin_tables_at_once_with_coins_for_one(sessions, plays) -> None:
    play = plays[0]
    poor = await make_user(sessions)
    await _lose(sessions, play, poor, [500, 100, 100, 100, 100])
    assert await wallet_balance(sessions, poor) == 100
    for _round in range(3):
        hosts = [await make_user(sessions) for _ in range(2)]
        tables = [await open_coin_table(plays[i], hosts[i], 100) for i in range(2)]
        # each table joined through another "process", at the same moment
        results = await asyncio.gather(
            *(plays[i].join_table(tables[i][1], poor.id, poor.nickname, None, registered=True)
              for i in range(2)), return_exceptions=True)
        joined = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, CoinError)]
        assert len(joined) == 1 and len(refused) == 1, results
        assert refused[0].code == "insufficient"
        assert await wallet_balance(sessions, poor) == 0
        async with sessions() as session:
            statuses = sorted([str(await session.scalar(select(MatchRow.status).where(
                MatchRow.id == t[0]))) for t in tables])
        assert statuses == ["active", "waiting"]
        won = next(t[0] for t, r in zip(tables, results, strict=True)
                   if not isinstance(r, BaseException))
        host = hosts[[t[0] for t in tables].index(won)]
        await plays[0].resign(won, host.id)  # poor wins it back: 200
        assert await wallet_balance(sessions, poor) == 200
        await _lose(sessions, play, poor, [100])
        report = await run_audit(sessions)
        assert report.ok, report.problems


async def test_two_processes_finishing_the_same_match_settle_it_once(sessions, plays) -> None:
    for _round in range(4):
        a, b = await make_user(sessions), await make_user(sessions)
        match_id, token = await open_coin_table(plays[0], a, 50)
        await plays[0].join_table(token, b.id, b.nickname, None, registered=True)
        await plays[1].info(match_id, a.id)  # the other process has it loaded too
        results = await asyncio.gather(plays[0].resign(match_id, a.id),
                                       plays[1].resign(match_id, b.id),
                                       return_exceptions=True)
        assert sum(1 for r in results if r is None) == 1, results
        assert all(r is None or isinstance(r, PlayError) for r in results), results
        async with sessions() as session:
            payouts = await session.scalar(select(func.count()).select_from(CoinEntry).where(
                CoinEntry.match_id == match_id, CoinEntry.kind == "payout"))
            row = await session.get(MatchRow, match_id)
        assert payouts == 1 and row is not None and row.status == "finished"
        balances = sorted([await wallet_balance(sessions, u) for u in (a, b)])
        assert balances == [950, 1050]
        # settling again, from two transactions at once, pays nothing more
        async def settle(match_id: str = match_id) -> object:
            async with sessions() as session, session.begin():
                return await coins.finish_match(session, match_id)
        again = await asyncio.gather(settle(), settle(), return_exceptions=True)
        assert all(r is None or isinstance(r, Exception) for r in again), again
        assert sorted([await wallet_balance(sessions, u) for u in (a, b)]) == [950, 1050]
    report = await run_audit(sessions)
    assert report.ok, report.problems


async def test_many_concurrent_coin_matches_keep_the_total(sessions, plays) -> None:
    n = 16
    users = [await make_user(sessions) for _ in range(2 * n)]
    for u in users:
        await wallet_balance(sessions, u)
    before = await run_audit(sessions)
    assert before.ok, before.problems
    tables = await asyncio.gather(*(open_coin_table(plays[i % 2], users[2 * i], 500)
                                    for i in range(n)))
    await asyncio.gather(*(plays[(i + 1) % 2].join_table(
        tables[i][1], users[2 * i + 1].id, users[2 * i + 1].nickname, None, registered=True)
        for i in range(n)))
    mid = await run_audit(sessions)
    assert mid.ok, mid.problems
    assert mid.issued == before.issued and mid.escrow_total - before.escrow_total == n * 1000
    await asyncio.gather(*(plays[(i + 1) % 2].resign(tables[i][0], users[2 * i + i % 2].id)
                           for i in range(n)))
    after = await run_audit(sessions)
    assert after.ok, after.problems
    assert after.issued == before.issued  # no coin created or lost
    assert after.wallets_total + after.escrow_total == before.wallets_total + before.escrow_total
    balances = [await wallet_balance(sessions, u) for u in users]
    assert sorted(balances) == sorted([500] * n + [1500] * n)
