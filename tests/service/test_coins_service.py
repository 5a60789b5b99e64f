"""Domino Coin in the play service: stakes into escrow when the second player sits, the
escrow to the winner when the match ends, refusals that move nothing, and the audit."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from kva.service.coins import wallets as coins
from kva.service.coins.wallets import CoinError
from kva.service.errors import PlayError
from kva.service.play import PlayService
from kva.storage.ledger import CoinEntry
from kva.storage.models import MatchRow, MatchSeat
from tests.helpers.coins_help import open_coin_table, run_audit, wallet_balance
from tests.helpers.community_help import make_user


async def _lose(sessions, play: PlayService, user, stakes: list[int]) -> None:  # type: ignore[no-untyped-def]
    """``user`` resigns coin matches at ``stakes`` against a fresh opponent each."""
    for stake in stakes:
        other = await make_user(sessions)
        match_id, token = await open_coin_table(play, other, stake)
        await play.join_table(token, user.id, user.nickname, None, registered=True)
        await play.resign(match_id, user.id)


async def test_a_coin_table_moves_both_stakes_in_and_pays_the_winner(sessions, play) -> None:
    before = await run_audit(sessions)  # (the PostgreSQL test database is shared)
    a, b = await make_user(sessions), await make_user(sessions)
    assert await wallet_balance(sessions, a) == coins.START_GRANT
    match_id, token = await open_coin_table(play, a, 100)
    assert await wallet_balance(sessions, a) == 1000  # nothing moves while it waits
    _mid, seat = await play.join_table(token, b.id, b.nickname, None, registered=True)
    assert seat == 1
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (900, 900)
    report = await run_audit(sessions)
    assert report.ok, report.problems
    assert report.escrow_total - before.escrow_total == 200
    await play.resign(match_id, b.id)
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (1100, 900)
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
        assert row is not None and row.stake == 100 and row.record["meta"]["stake"] == 100
        lines, total = await coins.history(session, a.id)
    assert total == 3
    assert [(x.kind, x.delta, x.balance) for x in lines] == [
        ("payout", 200, 1100), ("stake", -100, 900), ("grant", 1000, 1000)]
    assert lines[0].match_id == match_id
    report = await run_audit(sessions)
    assert report.ok, report.problems
    assert report.escrow_total == before.escrow_total
    assert report.wallets_total - before.wallets_total == report.issued - before.issued == 2000


async def test_a_player_who_cannot_cover_the_stake_is_refused_and_nothing_moves(
        sessions, play) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await open_coin_table(play, a, 500)
    await _lose(sessions, play, b, [500, 100, 100, 100, 100, 50, 50])  # b lost all elsewhere
    with pytest.raises(CoinError) as err:
        await play.join_table(token, b.id, b.nickname, None, registered=True)
    assert err.value.code == "insufficient" and err.value.user_id == b.id
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
        assert row is not None and row.status == "waiting" and row.user_at(1) is None
        assert await session.scalar(select(CoinEntry).where(CoinEntry.match_id == match_id)) \
            is None
    assert await wallet_balance(sessions, b) == 0
    report = await run_audit(sessions)
    assert report.ok, report.problems


async def test_bad_stakes_guests_and_bots_are_refused(sessions, play) -> None:
    a = await make_user(sessions)
    guest = await make_user(sessions, kind="guest")
    for bad in (7, -10, 10**9, "100.0", "abc", True):
        with pytest.raises(CoinError) as err:
            await play.create_match(a.id, a.nickname, "open", 75, "draw", stake=bad)
        assert err.value.code == "bad_stake"
    with pytest.raises(CoinError) as err:
        await play.create_match(a.id, a.nickname, "bot:easy", 75, "draw", stake=10)
    assert err.value.code == "bot_stake"
    with pytest.raises(CoinError) as err:
        await play.create_match(guest.id, guest.nickname, "open", 75, "draw", stake=10)
    assert err.value.code == "guest"
    _match_id, token = await open_coin_table(play, a, 10)
    with pytest.raises(CoinError) as err:
        await play.join_table(token, guest.id, guest.nickname, None, registered=False)
    assert err.value.code == "guest"
    with pytest.raises(CoinError):
        await play.create_match(a.id, a.nickname, "open", 75, "draw", stake=5000)
    async with sessions() as session:
        assert await session.scalar(select(MatchSeat).where(
            MatchSeat.user_id == guest.id)) is None
    report = await run_audit(sessions)
    assert report.ok, report.problems


async def test_a_cancelled_table_moves_nothing(sessions, play) -> None:
    a = await make_user(sessions)
    match_id, _token = await open_coin_table(play, a, 1000)
    assert await play.cancel_waiting(match_id, a.id)
    assert await wallet_balance(sessions, a) == 1000
    assert (await run_audit(sessions)).ok


async def test_daily_top_up_once_a_day_below_the_threshold(sessions, play) -> None:
    a = await make_user(sessions)
    now = datetime(2026, 11, 30, 23, 0, tzinfo=UTC)
    async with sessions() as session, session.begin():
        with pytest.raises(CoinError) as err:
            await coins.claim_topup(session, a, now)
        assert err.value.code == "topup_above"
    await _lose(sessions, play, a, [500, 100, 100, 100, 100, 50, 10, 10])
    assert await wallet_balance(sessions, a) == 30
    async with sessions() as session, session.begin():
        assert await coins.claim_topup(session, a, now) == 70
    async with sessions() as session, session.begin():
        with pytest.raises(CoinError) as err:
            await coins.claim_topup(session, a, now)
        assert err.value.code == "topup_claimed"
    await _lose(sessions, play, a, [10])
    async with sessions() as session, session.begin():
        with pytest.raises(CoinError) as err:
            await coins.claim_topup(session, a, now)
        assert err.value.code == "topup_claimed"
    async with sessions() as session, session.begin():
        assert await coins.claim_topup(session, a, now + timedelta(hours=1)) == 10
    assert await wallet_balance(sessions, a) == 100
    report = await run_audit(sessions)
    assert report.ok, report.problems


async def _play_to_points(play: PlayService, match_id: str, users: list) -> None:  # type: ignore[type-arg]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while True:
        state = await play.state_for(match_id, users[0].id)
        if state["status"] == "finished":
            return
        assert loop.time() < deadline, state["view"]
        moved = False
        for user in users:
            s = await play.state_for(match_id, user.id)
            view = s["view"]
            if s["status"] == "active" and view["turn"] == s["you"] and view["legal"]:
                with contextlib.suppress(PlayError):
                    await play.act(match_id, user.id, s["version"], view["legal"][0])
                moved = True
        if not moved:
            await asyncio.sleep(0.005)


@pytest.mark.parametrize("ending", ["points", "timeout", "abandon"])
async def test_every_ending_pays_the_winner(sessions, play, ending: str) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await open_coin_table(play, a, 50)
    await play.join_table(token, b.id, b.nickname, None, registered=True)
    if ending == "points":
        await _play_to_points(play, match_id, [a, b])
    else:
        await play.forfeit(match_id, 0, ending)
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
        assert row is not None and row.status == "finished" and row.winner in (0, 1)
        assert row.end_reason == ending
        assert row.record["meta"]["stake"] == 50
    winner, loser = (a, b) if row.winner == 0 else (b, a)
    assert (await wallet_balance(sessions, winner), await wallet_balance(sessions, loser)) \
        == (1050, 950)
    report = await run_audit(sessions)
    assert report.ok, report.problems


async def test_a_rated_coin_table_moves_ratings_and_coins_together(sessions, play) -> None:
    from kva.storage.community import RatingHistory

    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(a.id, a.nickname, "open", 75, "draw",
                                              rated=True, stake=500)
    assert token is not None
    await play.join_table(token, b.id, b.nickname, None, registered=True)
    await play.resign(match_id, a.id)
    async with sessions() as session:
        rated = list(await session.scalars(select(RatingHistory).where(
            RatingHistory.match_id == match_id)))
    assert len(rated) == 2
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (500, 1500)
