"""Aborting a match, as lichess has it: allowed until both players have moved in the first
hand (nobody wins, no rating moves, a coin match's stakes come back, the history says
aborted), refused after that with ``too_late_to_abort``; a bot's opponent may abort too,
a spectator may not."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select

from kva.service import history
from kva.service.errors import PlayError
from kva.service.play import PlayService
from kva.storage.community import RatingHistory
from kva.storage.models import MatchRow, User
from tests.helpers.coins_help import open_coin_table, run_audit, wallet_balance
from tests.helpers.community_help import make_user
from tests.helpers.owners_help import running_cluster
from tests.helpers.play import make_play


async def _row(sessions, match_id: str) -> MatchRow:  # type: ignore[no-untyped-def]
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
        assert row is not None
        return row


async def _move(play: PlayService, match_id: str, players: dict[int, User]) -> int:
    """The player whose turn it is makes their first legal action; their seat."""
    for _ in range(200):
        state = await play.state_for(match_id, players[0].id)
        turn = state["view"]["turn"]
        if turn is not None:
            break
        await asyncio.sleep(0.02)
    user = players[turn]
    mine = await play.state_for(match_id, user.id)
    await play.act(match_id, user.id, mine["version"], mine["view"]["legal"][0])
    return int(turn)


async def _moved(play: PlayService, match_id: str, user: User) -> set[int]:
    """The seats that have moved in the current hand, as ``user`` sees it."""
    state = await play.state_for(match_id, user.id)
    return {m["p"] for m in state["view"]["moves"]}


async def _table(sessions, play: PlayService, **options: Any  # type: ignore[no-untyped-def]
                 ) -> tuple[str, dict[int, User]]:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(a.id, a.nickname, "open", 75, "draw", **options)
    assert token is not None
    await play.join_table(token, b.id, b.nickname, None, registered=True)
    return match_id, {0: a, 1: b}


async def _refused(play: PlayService, match_id: str, user_id: int | None, code: str) -> None:
    with pytest.raises(PlayError) as caught:
        await play.abort(match_id, user_id)
    assert caught.value.code == code


async def test_a_match_may_be_aborted_before_anyone_has_moved(sessions, play) -> None:
    match_id, players = await _table(sessions, play)
    await play.abort(match_id, players[1].id)
    row = await _row(sessions, match_id)
    assert (row.status, row.end_reason, row.winner) == ("cancelled", "abort", None)
    assert row.finished_at is not None
    state = await play.state_for(match_id, players[0].id)
    assert state["status"] == "cancelled" and state["view"]["legal"] == []


async def test_a_match_may_be_aborted_before_its_deal(database, sessions, bot_pool) -> None:  # type: ignore[no-untyped-def]
    slow = make_play(database, bot_executor=bot_pool, seed_wait=60)  # the seeds are awaited
    try:
        match_id, players = await _table(sessions, slow)
        assert (await slow.state_for(match_id, players[0].id))["view"]["turn"] is None
        await slow.abort(match_id, players[0].id)
        row = await _row(sessions, match_id)
        assert (row.status, row.end_reason, row.winner) == ("cancelled", "abort", None)
    finally:
        await slow.stop()


async def test_a_match_may_be_aborted_after_one_player_has_moved(sessions, play) -> None:
    match_id, players = await _table(sessions, play)
    seat = await _move(play, match_id, players)
    assert await _moved(play, match_id, players[0]) == {seat}
    await play.abort(match_id, players[seat].id)  # the one who moved may abort as well
    assert (await _row(sessions, match_id)).end_reason == "abort"


async def test_abort_is_refused_once_both_players_have_moved(sessions, play) -> None:
    match_id, players = await _table(sessions, play)
    while await _moved(play, match_id, players[0]) != {0, 1}:
        await _move(play, match_id, players)
    await _refused(play, match_id, players[0].id, "too_late_to_abort")
    row = await _row(sessions, match_id)
    assert (row.status, row.end_reason) == ("active", None)
    await play.resign(match_id, players[0].id)  # resigning is still open
    assert (await _row(sessions, match_id)).status == "finished"


async def test_a_table_still_waiting_is_cancelled_not_aborted(sessions, play) -> None:
    a = await make_user(sessions)
    match_id, _token = await play.create_match(a.id, a.nickname, "open", 75, "draw")
    await _refused(play, match_id, a.id, "illegal")
    assert (await _row(sessions, match_id)).status == "waiting"


async def test_a_spectator_cannot_abort(sessions, play) -> None:
    match_id, _players = await _table(sessions, play)
    watcher = await make_user(sessions)
    await _refused(play, match_id, watcher.id, "not_seated")
    await _refused(play, match_id, None, "not_seated")
    assert (await _row(sessions, match_id)).status == "active"


async def test_an_aborted_match_cannot_be_aborted_or_resigned_again(sessions, play) -> None:
    match_id, players = await _table(sessions, play)
    await play.abort(match_id, players[0].id)
    await _refused(play, match_id, players[1].id, "over")
    with pytest.raises(PlayError):
        await play.resign(match_id, players[1].id)


async def test_an_aborted_rated_match_changes_no_rating(sessions, play) -> None:
    match_id, players = await _table(sessions, play, rated=True)
    await play.abort(match_id, players[0].id)
    async with sessions() as session:
        rated = list(await session.scalars(select(RatingHistory).where(
            RatingHistory.match_id == match_id)))
        ratings = [(await session.get(User, u.id)) for u in players.values()]
    assert rated == []
    assert [(u.rating, u.rating_deviation) for u in ratings if u is not None] == [
        (players[0].rating, players[0].rating_deviation),
        (players[1].rating, players[1].rating_deviation)]


async def test_an_aborted_coin_match_gives_both_stakes_back(sessions, play) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await open_coin_table(play, a, 100)
    await play.join_table(token, b.id, b.nickname, None, registered=True)
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (900, 900)
    await play.abort(match_id, a.id)
    assert (await wallet_balance(sessions, a), await wallet_balance(sessions, b)) == (1000, 1000)
    report = await run_audit(sessions)
    assert report.ok, report.problems


async def test_the_history_lists_an_aborted_match_as_aborted_and_counts_it_nowhere(
        sessions, play) -> None:  # type: ignore[no-untyped-def]
    match_id, players = await _table(sessions, play)
    await play.abort(match_id, players[0].id)
    async with sessions() as session:
        lines, total = await history.history(session, players[1].id)
        counts = await history.counts(session, players[1].id)
    assert total == 1
    assert [(x.id, x.result, x.end_reason) for x in lines] == [(match_id, "aborted", "abort")]
    assert counts.total == 0
    exported = b"".join([chunk async for chunk in history.export_records(
        sessions, players[1].id)])
    assert exported == b"[]\n"  # no record to verify or export, like a cancelled table
    assert await play.finished_record(match_id) is None


async def test_a_bots_opponent_may_abort_before_moving(sessions, play) -> None:
    user = await make_user(sessions)
    match_id, _token = await play.create_match(user.id, user.nickname, "bot:easy", 75, "draw")
    await play.abort(match_id, user.id)
    row = await _row(sessions, match_id)
    assert (row.status, row.end_reason, row.winner) == ("cancelled", "abort", None)


async def test_a_bots_opponent_cannot_abort_once_both_have_moved(sessions, play) -> None:
    user = await make_user(sessions)
    match_id, _token = await play.create_match(user.id, user.nickname, "bot:easy", 75, "draw")
    bot_seat = 1
    for _ in range(500):
        moved = await _moved(play, match_id, user)
        if moved == {0, 1}:
            break
        state = await play.state_for(match_id, user.id)
        if state["view"]["turn"] == 0 and 0 not in moved:
            await play.act(match_id, user.id, state["version"], state["view"]["legal"][0])
        await asyncio.sleep(0.02)
    assert await _moved(play, match_id, user) == {0, bot_seat}
    await _refused(play, match_id, user.id, "too_late_to_abort")
    assert (await _row(sessions, match_id)).status == "active"


async def test_an_abort_at_another_process_is_made_by_the_owner(database, sessions) -> None:  # type: ignore[no-untyped-def]
    async with running_cluster(database) as cluster:
        owner, other = await cluster.process(), await cluster.process()
        a, b = await make_user(sessions), await make_user(sessions)
        match_id, _ = await owner.create_match(a.id, a.nickname, "player", 75, "draw",
                                               opponent_user=(b.id, b.nickname))
        await other.abort(match_id, b.id)
        assert other.owners is not None and other.owners.forwarded >= 1
        row = await _row(sessions, match_id)
        assert (row.status, row.end_reason) == ("cancelled", "abort")
