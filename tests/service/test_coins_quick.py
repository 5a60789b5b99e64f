"""Quick game for Domino Coin: only players who chose the same stake are paired, the pair's
match starts with both stakes in escrow, and a stake is checked before the search starts."""

from __future__ import annotations

import pytest

from kva.service.lobby.quickgame import MemoryQuickGame, QuickGameError
from kva.storage.models import MatchRow
from tests.helpers.coins_help import run_audit, wallet_balance
from tests.helpers.community_help import make_user


async def test_only_players_of_the_same_stake_are_paired(sessions, play) -> None:
    quick = MemoryQuickGame(play, tick=3600)
    a, b, c = [await make_user(sessions) for _ in range(3)]
    sa = await quick.join(a.id, a.nickname, 1500, 75, "draw", False, True, stake=100)
    sc = await quick.join(c.id, c.nickname, 1500, 75, "draw", False, True, stake=50)
    assert quick.waiting() == 2  # same rating, same settings, different stakes
    sb = await quick.join(b.id, b.nickname, 1500, 75, "draw", False, True, stake="100")
    match_id = await sa.result
    assert await sb.result == match_id and not sc.result.done()
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
        assert row is not None and row.stake == 100 and row.status == "active"
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (900, 900)
    await play.resign(match_id, a.id)
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (900, 1100)
    assert (await run_audit(sessions)).ok
    await quick.stop()


async def test_bad_stakes_and_guests_are_refused_before_searching(sessions, play) -> None:
    quick = MemoryQuickGame(play, tick=3600)
    for bad in (7, "-10", "1e9", 10**12):
        with pytest.raises(QuickGameError) as err:
            await quick.join(1, "x", 1500, 75, "draw", False, True, stake=bad)
        assert err.value.code == "bad_stake"
    with pytest.raises(QuickGameError) as err:
        await quick.join(1, "x", 1500, 75, "draw", False, False, stake=10)
    assert err.value.code == "coins_only"
    assert quick.waiting() == 0
    await quick.stop()


async def test_a_pair_that_cannot_cover_the_stake_starts_nothing(sessions, play) -> None:
    quick = MemoryQuickGame(play, tick=3600)
    rich, poor = await make_user(sessions), await make_user(sessions)
    for stake in (500, 500):  # poor loses everything first
        other = await make_user(sessions)
        mid, token = await play.create_match(other.id, other.nickname, "open", 75, "draw",
                                             stake=stake)
        assert token is not None
        await play.join_table(token, poor.id, poor.nickname, None, registered=True)
        await play.resign(mid, poor.id)
    assert await wallet_balance(sessions, poor) == 0
    s1 = await quick.join(rich.id, rich.nickname, 1500, 75, "draw", False, True, stake=10)
    s2 = await quick.join(poor.id, poor.nickname, 1500, 75, "draw", False, True, stake=10)
    for s in (s1, s2):
        with pytest.raises(QuickGameError) as err:
            await s.result
        assert err.value.code == "insufficient"
    assert await wallet_balance(sessions, rich) == 1000
    assert (await run_audit(sessions)).ok
    await quick.stop()
