"""Kozel served by the play core through kva.games alone: a player against one Kozel bot, or
three, is created through the play service, acts with the actions its state offers, the bot and the
forced knocks play themselves, and the finished match's record verifies with Kozel's rules.
The match is dropped from memory midway, so it also resumes from its stored record."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.games import get
from kva.service.botapi import Challenges, user_topic
from kva.service.play import PlayService
from tests.helpers.community_help import make_user


async def _my_turn(play: PlayService, match_id: str, user_id: int) -> dict[str, Any]:
    """The player's state once it is their turn or the match is over."""
    for _ in range(500):
        state = await play.state_for(match_id, user_id)
        view = state["view"]
        if state["status"] != "active" or (view["turn"] == state["you"] and view["legal"]):
            return state
        await asyncio.sleep(0.01)
    raise AssertionError("the bot never let the player move")


@pytest.mark.parametrize("seats", [2, 4])
async def test_a_player_and_kozel_bots_play_a_match_to_its_end(
    sessions: async_sessionmaker, play: PlayService, seats: int,
) -> None:
    me = await make_user(sessions)
    # the bot API's hook tells a seated user's stream that the match is over
    play.commit_hooks.append(Challenges(sessions, play._broker, play).after_commit)
    stream = await play._broker.subscribe(user_topic(me.id))
    match_id, token = await play.create_match(me.id, me.nickname, "bot:easy", game="kozel",
                                              options={"limit": 25}, seats=seats)
    assert token is None
    assert len((await play.state_for(match_id, me.id))["players"]) == seats
    for acted in range(400):
        state = await _my_turn(play, match_id, me.id)
        if state["status"] != "active":
            break
        if acted == 3:
            play._store.forget(match_id)  # resumed from the stored record and its log
        await play.act(match_id, me.id, state["version"], state["view"]["legal"][-1])
    assert acted > 3 and state["status"] == "finished" and state["view"]["over"]
    assert state["fair"]["server_seed"] is not None
    record = await play.finished_record(match_id)
    assert record is not None and record["format"] == "kozel/1"
    replayed = get("kozel").verify_record(record)
    assert list(replayed.score) == state["view"]["score"]
    over = await asyncio.wait_for(anext(aiter(stream)), 5)
    assert over["type"] == "match_over" and over["match"]["id"] == match_id
    assert over["match"]["seat"] == 0 and len(over["match"]["score"]) == seats
    await stream.close()
