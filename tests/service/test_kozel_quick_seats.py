"""A Kozel quick game's table: the players grouped together and the bots they accepted are all
seated when the match is created, so it starts at once."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.play import PlayService, Seat
from tests.helpers.community_help import make_user


async def test_grouped_players_and_bots_are_seated_at_once(
    sessions: async_sessionmaker, play: PlayService,
) -> None:
    me, other = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(
        me.id, me.nickname, "player", game="kozel", options={"fish": "one"}, seats=3,
        seated=[Seat(other.id, other.nickname), Seat(bot="easy")])
    assert token is None
    state = await play.state_for(match_id, other.id)
    assert state["status"] == "active" and state["you"] == 1
    assert len(state["players"]) == 3


async def test_a_wrong_number_of_seated_is_refused(
    sessions: async_sessionmaker, play: PlayService,
) -> None:
    me = await make_user(sessions)
    with pytest.raises(ValueError, match="every other seat"):
        await play.create_match(me.id, me.nickname, "player", game="kozel", seats=4,
                                seated=[Seat(bot="easy")])
