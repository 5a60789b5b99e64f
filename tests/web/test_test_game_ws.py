"""A game the play core has never heard of, played end to end over the match socket.

The tests' race game (:mod:`tests.helpers.race_game`) is registered in kva's game registry,
a race table is created through the play service (the entry the lobby and the tables use),
its second seat is taken through the table's link, and each seat plays by sending ``action``
frames on ``/ws/m/{id}`` until someone wins: nothing of the core names the game. Each seat's
state shows its own secret and nobody else's, a spectator's shows none, and the finished
match's record verifies with the race game's own ``verify_record``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from kva.games import GAMES, register
from kva.service.accounts.sessions import live_session
from kva.web.services import services
from tests.helpers.race_game import RACE, RaceGame
from tests.helpers.webhelp import ServerThread, Socket, Visitor

T = TypeVar("T")


@pytest.fixture
def race() -> Iterator[RaceGame]:
    """The race game, registered in kva's registry for the test and removed after."""
    register(RACE)
    try:
        yield RACE
    finally:
        GAMES.unregister(RACE.name)


async def on_server(server: ServerThread, work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` on the server's own event loop (its services live there) and wait."""
    loop = server.server.servers[0].get_loop()
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))


async def _user(server: ServerThread, visitor: Visitor) -> tuple[int, str]:
    """The id and nickname of the guest behind ``visitor``'s cookie."""
    found = await on_server(server, live_session(services(server.app).sessions,
                                                 visitor.cookie))
    assert found is not None
    return found.user.id, found.user.nickname


def _secrets(state: dict[str, Any]) -> set[str]:
    """Every race secret anywhere in a state message's text."""
    text = repr(state)
    return {word.strip("'\",") for word in text.split() if word.strip("'\",").startswith(
        "secret-")}


async def _forget(server: ServerThread, match_id: str) -> None:
    """Drop the server's copy of the match: the next action reloads it from the database."""

    async def forget() -> None:
        services(server.app).play._store.forget(match_id)

    await on_server(server, forget())


async def _play_to_the_end(sockets: list[Socket], moves: int = 200) -> dict[str, Any]:
    """The seat to act sends its last legal action (the larger step) until the match is over
    or ``moves`` were sent; the latest state as seat 0 sees it."""
    for _ in range(moves):
        state = sockets[0].state
        if state["status"] != "active":
            return state
        turn = state["view"]["turn"]
        mover = sockets[turn]
        now = await mover.wait_state(state["version"])
        assert now["view"]["legal"], now
        await mover.send({"type": "action", "version": now["version"],
                          "action": now["view"]["legal"][-1]})
        for sock in sockets:
            await sock.wait_state(now["version"] + 1)
    if moves < 200:
        return sockets[0].state
    raise AssertionError("the race did not end")


async def test_a_race_for_two_is_played_to_its_end_over_the_sockets(
    race: RaceGame, server: ServerThread,
) -> None:
    play = services(server.app).play
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        host_id, host_name = await _user(server, host)
        match_id, token = await on_server(server, play.create_match(
            host_id, host_name, "friend", game="race", options={"target": 7}))
        assert token is not None
        r = await guest.http.get(f"/t/{token}")  # the second seat, through the table's link
        assert r.status_code == 303, r.text
        seats = [await host.connect(match_id), await guest.connect(match_id)]
        spectator = await watcher.connect(match_id)
        await seats[0].wait_for(lambda m: m.get("type") == "state" and m["status"] == "active"
                                and m["view"].get("turn") is not None)

        mine = [seats[p].state["view"]["secret"] for p in (0, 1)]
        assert all(s and s.startswith("secret-") for s in mine) and mine[0] != mine[1]
        for p in (0, 1):
            assert seats[p].state["you"] == p
            assert _secrets(seats[p].state) == {mine[p]}
        assert spectator.state["you"] is None and _secrets(spectator.state) == set()

        await _play_to_the_end(seats, moves=2)
        await _forget(server, match_id)  # resumed from its stored record and action log
        end = await _play_to_the_end(seats)
        assert end["status"] == "finished" and end["view"]["counter"] == 7
        winner = end["view"]["winner"]
        assert winner in (0, 1) and end["event"]["kind"] == "match_end"
        final = await spectator.wait_state(end["version"])
        assert _secrets(final) == set() and final["view"]["winner"] == winner
        for p in (0, 1):
            assert _secrets(seats[p].state) == {mine[p]}
        assert end["fair"]["server_seed"] is not None  # revealed once the match is over

        record = await on_server(server, play.finished_record(match_id))
        assert record is not None and record["format"] == "race/1"
        replayed = race.verify_record(record)
        assert replayed.winner == winner and list(replayed.secrets) == mine
        for sock in (*seats, spectator):
            await sock.close()


async def test_a_race_for_three_is_stored_resumed_and_played_to_its_end(
    race: RaceGame, server: ServerThread,
) -> None:
    """A table of three seats waits until its two joiners sat down (each in the first free
    seat, through the table's link), is resumed from the database mid-way, and is played to
    its end; each seat sees its own secret only, and the record verifies."""
    play = services(server.app).play
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as first, \
            Visitor(server.base_url) as second:
        host_id, host_name = await _user(server, host)
        match_id, token = await on_server(server, play.create_match(
            host_id, host_name, "friend", game="race", options={"target": 9}, seats=3))
        assert token is not None
        r = await first.http.get(f"/t/{token}")
        assert r.status_code == 303, r.text
        waiting = await host.connect(match_id)
        assert waiting.state["status"] == "waiting"  # one seat is still free
        await waiting.close()
        await _forget(server, match_id)  # the seat taken so far is read back from its row
        r = await second.http.get(f"/t/{token}")
        assert r.status_code == 303, r.text
        seats = [await v.connect(match_id) for v in (host, first, second)]
        await seats[0].wait_for(lambda m: m.get("type") == "state" and m["status"] == "active"
                                and m["view"].get("turn") is not None)

        mine = [seats[p].state["view"]["secret"] for p in range(3)]
        assert all(s and s.startswith("secret-") for s in mine) and len(set(mine)) == 3
        for p in range(3):
            assert seats[p].state["you"] == p
            assert _secrets(seats[p].state) == {mine[p]}

        await _play_to_the_end(seats, moves=3)
        await _forget(server, match_id)  # resumed from its stored record and action log
        end = await _play_to_the_end(seats)
        assert end["status"] == "finished" and end["view"]["counter"] == 9
        winner = end["view"]["winner"]
        assert winner in (0, 1, 2) and end["event"]["kind"] == "match_end"
        for p in range(3):
            assert _secrets(seats[p].state) == {mine[p]}

        record = await on_server(server, play.finished_record(match_id))
        assert record is not None and record["format"] == "race/1"
        replayed = race.verify_record(record)
        assert replayed.winner == winner and list(replayed.secrets) == mine
        for sock in seats:
            await sock.close()
