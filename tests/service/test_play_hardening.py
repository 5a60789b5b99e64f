"""Issue 8 at the service level: a waiting table is not dealt (no deal shopping), loads leave
no lock behind, private (password) matches are watched only by who may, and each viewer's
event comes from that viewer's own view."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from kva.games.georgian_live import action_event
from kva.rules import DRAW, Match, player_view
from kva.service.cluster.broker import MemoryBroker
from kva.service.errors import NotFound, WrongPassword
from kva.service.lobby.rematch import RematchService
from kva.storage.models import MatchRow
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play

TILE = re.compile(r"\b[0-6]-[0-6]\b")


async def _row(sessions: Any, match_id: str) -> MatchRow:
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
    assert row is not None
    return row


async def test_a_waiting_table_is_dealt_only_when_the_match_starts(
        database, sessions, bot_pool) -> None:  # type: ignore[no-untyped-def]
    play = make_play(database, bot_executor=bot_pool)
    a, b = await make_user(sessions), await make_user(sessions)
    for opponent in ("friend", "open"):
        match_id, token = await play.create_match(a.id, a.nickname, opponent, 75, "draw")
        assert token is not None
        row = await _row(sessions, match_id)
        assert row.status == "waiting" and row.record["hands"] == []
        state = await play.state_for(match_id, a.id)
        assert state["view"]["hand"] == [] and state["view"]["forced_opening"] is None
        assert not TILE.search(str(state)), state
    # A restart (a fresh service on the same database) still holds an undealt waiting table,
    # and the second player joining through it deals and starts the match.
    await play.stop()
    again = make_play(database, bot_executor=bot_pool)
    await again.start()
    assert not TILE.search(str(await again.state_for(match_id, a.id)))
    joined_id, seat = await again.join_table(token, b.id, b.nickname, None)
    assert (joined_id, seat) == (match_id, 1)
    row = await _row(sessions, match_id)
    assert row.status == "active" and len(row.record["hands"]) == 1
    assert len(row.record["hands"][0]["deal"]["hands"][0]) == 7
    state = await again.state_for(match_id, a.id)
    assert len(state["view"]["hand"]) == 7
    await again.stop()


async def test_a_cancelled_table_never_had_a_deal(database, sessions, bot_pool) -> None:  # type: ignore[no-untyped-def]
    play = make_play(database, bot_executor=bot_pool)
    a = await make_user(sessions)
    match_id, _token = await play.create_match(a.id, a.nickname, "friend", 75, "draw")
    assert await play.cancel_waiting(match_id, a.id)
    row = await _row(sessions, match_id)
    assert row.status == "cancelled" and row.record["hands"] == []
    assert not TILE.search(str(await play.state_for(match_id, a.id)))
    await play.stop()


async def test_loading_unknown_matches_leaves_no_lock_behind(database, sessions, bot_pool) -> None:  # type: ignore[no-untyped-def]
    play = make_play(database, bot_executor=bot_pool)
    for i in range(50):
        with pytest.raises(NotFound):
            await play.info(f"nosuchmatch{i}", None)
    assert len(play._load_locks) == 0
    a = await make_user(sessions)
    match_id, _ = await play.create_match(a.id, a.nickname, "friend", 75, "draw")
    play._live.clear()
    await play.info(match_id, a.id)  # loaded again from the database
    assert len(play._load_locks) == 0
    await play.stop()


async def test_a_password_table_is_watched_only_by_who_gave_the_password(
        database, sessions, bot_pool) -> None:  # type: ignore[no-untyped-def]
    play = make_play(database, bot_executor=bot_pool)
    a, b, c, d = [await make_user(sessions) for _ in range(4)]
    match_id, token = await play.create_match(a.id, a.nickname, "friend", 75, "draw", "sesame")
    assert token is not None
    assert (await play.info(match_id, None)).may_watch is False
    await play.join_table(token, b.id, b.nickname, "sesame")
    for player in (a, b):
        assert (await play.info(match_id, player.id)).may_watch
    assert not (await play.info(match_id, c.id)).may_watch
    with pytest.raises(WrongPassword):
        await play.join_table(token, c.id, c.nickname, "wrong")
    assert not (await play.info(match_id, c.id)).may_watch
    assert await play.join_table(token, c.id, c.nickname, "sesame") == (match_id, None)
    # The right is stored: another process (a fresh service) honours it, and the link no
    # longer asks c for the password.
    other = make_play(database, bot_executor=bot_pool)
    assert (await other.info(match_id, c.id)).may_watch
    assert not (await other.info(match_id, d.id)).may_watch
    assert await other.join_table(token, c.id, c.nickname, None) == (match_id, None)
    # A table without a password stays public.
    open_id, _ = await play.create_match(a.id, a.nickname, "friend", 75, "draw")
    assert (await play.info(open_id, d.id)).may_watch
    await play.stop()
    await other.stop()


async def test_the_rematch_of_a_private_match_is_private_to_the_same_people(
        database, sessions, bot_pool) -> None:  # type: ignore[no-untyped-def]
    play = make_play(database, bot_executor=bot_pool)
    a, b, c, d = [await make_user(sessions) for _ in range(4)]
    match_id, token = await play.create_match(a.id, a.nickname, "friend", 75, "draw", "sesame")
    assert token is not None
    await play.join_table(token, b.id, b.nickname, "sesame")
    await play.join_table(token, c.id, c.nickname, "sesame")  # c watches
    await play.resign(match_id, a.id)
    rematch = RematchService(sessions, MemoryBroker(), play)
    await rematch.offer(match_id, a.id)
    message = await rematch.accept(match_id, b.id)
    new_id = message["match_id"]
    assert new_id
    assert (await _row(sessions, new_id)).private
    assert (await play.info(new_id, c.id)).may_watch
    assert not (await play.info(new_id, d.id)).may_watch
    await play.stop()


def test_a_draws_tile_is_in_the_event_only_where_the_view_shows_it() -> None:
    rng = random.Random(3)
    for _ in range(200):
        match = Match(75, "draw", rng)
        while not match.over:
            legal = match.legal_codes()
            code = DRAW if DRAW in legal else rng.choice(legal)
            drawer = match.turn
            hand_index = len(match.hands) - 1
            match.apply(code)
            if code != DRAW:
                continue
            events = {seat: action_event(match, hand_index, player_view(match, seat))
                      for seat in (0, 1, None)}
            assert "tile" in events[drawer]
            for seat, event in events.items():
                if seat != drawer:
                    assert "tile" not in event and event["kind"] == "draw"
            return
    raise AssertionError("no draw happened")
