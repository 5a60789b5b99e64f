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
from kva.service.errors import PlayError
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


@pytest.mark.parametrize(("opponent", "seats"), [("friend", 2), ("open", 3)])
async def test_a_coin_stake_is_refused_for_kozel(
    sessions: async_sessionmaker, play: PlayService, opponent: str, seats: int,
) -> None:
    """The escrow pays a stake to the one winner of two players; a Kozel match, even of two,
    may end with no winner (both goats), so none is staked, at the service as on the forms."""
    me = await make_user(sessions)
    with pytest.raises(ValueError, match="Georgian domino"):
        await play.create_match(me.id, me.nickname, opponent, game="kozel", seats=seats,
                                stake=10)


async def test_a_seed_sent_as_its_senders_seat_is_freed_is_not_kept_for_the_next_player(
    sessions: async_sessionmaker, play: PlayService,
) -> None:
    """A client seed waits for the match while the seat it was sent for is freed (its sender
    left the table, or the sweeper freed it): it is refused, and the free seat keeps no seed,
    so the next player to sit there chooses their own."""
    creator, joiner = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(creator.id, creator.nickname, "open",
                                              game="kozel", seats=3)
    assert token is not None
    assert await play.join_table(token, joiner.id, joiner.nickname, None) == (match_id, 1)
    seat = 1
    live = play._live[match_id]
    async with live.lock:  # the leave, holding the match, frees the seat meanwhile
        sending = asyncio.create_task(play.seed(match_id, joiner.id, "ab" * 16))
        await asyncio.sleep(0.05)  # the seed is waiting for the match
        assert not sending.done()
        live.seats[seat] = type(live.seats[seat])()
        assert live.fair is not None
        live.fair.client_seeds[seat] = live.fair.seed_by[seat] = None
    with pytest.raises(PlayError) as refused:
        await sending
    assert refused.value.code == "not_seated"
    assert live.fair.client_seeds[seat] is None


async def test_a_bot_that_chooses_an_illegal_action_still_plays_its_turns(
    sessions: async_sessionmaker, play: PlayService, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot whose choice the rules refuse plays a random legal move instead, as one whose
    worker fails does: the match never waits forever for it."""
    from kva.service.play import bot_moves

    async def illegal(*_args: Any, **_kwargs: Any) -> int:
        return 10 ** 6  # no action's code

    monkeypatch.setattr(bot_moves, "choose", illegal)
    me = await make_user(sessions)
    match_id, _token = await play.create_match(me.id, me.nickname, "bot:easy", game="kozel",
                                               seats=2)
    live = play._live[match_id]

    def bot_plays() -> int:
        return sum(1 for entry in live.log if entry[0] == 1 and isinstance(entry[1], dict)
                   and entry[1]["type"] == "play")

    deadline = asyncio.get_running_loop().time() + 20
    while bot_plays() < 2 and not live.over:
        assert asyncio.get_running_loop().time() < deadline, "the bot's turn was never played"
        state = await play.state_for(match_id, me.id)
        view = state["view"]
        if (state["status"] == "active" and view["turn"] == state["you"] and view["legal"]
                and view["forced"] is None):
            await play.act(match_id, me.id, state["version"], view["legal"][0])
        await asyncio.sleep(0.01)
