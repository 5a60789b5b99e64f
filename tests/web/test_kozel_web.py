"""Kozel over the web: the home form's game choice and its options, checked by the game (a bad
option is a 400), the Kozel table page, and that a seat's state frames never hold another
seat's tiles (nor a spectator's any tile) over a whole match against a Kozel bot."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.helpers.webhelp import ServerThread, Socket, Visitor


def _canon(name: str) -> str:
    low, high = sorted(name.split("-"))
    return f"{low}-{high}"


async def _new_kozel(visitor: Visitor, **fields: str) -> Any:
    data = {"game": "kozel", "opponent": "bot:easy", "fish": "all", **fields}
    return await visitor.http.post("/matches", data=data)


@pytest.mark.parametrize(("fields", "says"), [
    ({"fish": "some"}, "fish for all"),
    ({"fish": "ALL"}, "fish for all"),
    ({"game": "chess"}, "Choose a game"),
    ({"opponent": "bot:easy", "rated": "1"}, "Only open tables"),
])
async def test_the_form_refuses_a_bad_kozel_option(
    server: ServerThread, fields: dict[str, str], says: str,
) -> None:
    async with Visitor(server.base_url) as me:
        r = await _new_kozel(me, **fields)
        assert r.status_code == 400
        assert says in r.text, r.text[r.text.find("<main"):][:600]


async def test_the_home_form_offers_kozel_and_its_fish_rule(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        page = (await me.http.get("/")).text
        assert 'name="game"' in page and '<option value="kozel">' in page
        assert 'name="fish"' in page and '<option value="one">' in page


async def test_a_kozel_match_renders_the_kozel_table(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        r = await _new_kozel(me, fish="one")
        assert r.status_code == 303, r.text
        page = (await me.http.get(r.headers["location"])).text
        assert 'data-testid="kozel-table"' in page and "/static/kozel/table.js" in page
        assert 'id="kozel-strings"' in page
        assert 'data-testid="board"' not in page  # not the Georgian table
        assert (await me.http.get("/static/kozel/table.js")).status_code == 200


def _dealt(record: dict[str, Any]) -> list[list[set[str]]]:
    """Each hand's deal: per seat, the tiles dealt to it."""
    return [[{_canon(t) for t in seat} for seat in hand["deal"]["hands"]]
            for hand in record["hands"]]


async def test_a_seats_frames_never_hold_another_seats_tiles(server: ServerThread) -> None:
    """A whole match against the bot: every frame the player and a spectator received is held
    against the record's deals. The player's tiles are his own (dealt or drawn), never one
    dealt to the bot; the spectator's frames hold no tile in hand at all."""
    async with Visitor(server.base_url) as me, Visitor(server.base_url) as watcher:
        r = await _new_kozel(me, clock="none")
        match_id = re.fullmatch(r"/m/(.+)", r.headers["location"]).group(1)  # type: ignore[union-attr]
        player = await me.connect(match_id)
        spectator: Socket = await watcher.connect(match_id)
        version = -1
        for _ in range(1000):
            state = await player.wait_for(lambda m, v=version: m.get("type") == "state" and (
                m["version"] > v) and (m["view"]["over"] or (
                    m["view"]["turn"] == m["you"] and m["view"]["legal"])), timeout=20)
            if state["view"]["over"]:
                break
            version = state["version"]
            await player.send({"type": "action", "version": version,
                               "action": state["view"]["legal"][0]})
        await spectator.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        record = (await me.http.get(f"/m/{match_id}/record.json")).json()
        await player.close()
        await spectator.close()
    deals = _dealt(record)
    mine = player.states[0]["you"]
    assert len(deals) > 1
    for frame in player.states:
        view = frame["view"]
        if frame["status"] == "waiting":
            continue
        tiles = {_canon(t) for t in view["tiles"]}
        assert len(tiles) == view["held"][mine]
        others = set().union(*(seat for s, seat in enumerate(deals[view["hand"] - 1])
                               if s != mine))
        assert not tiles & others, (view["hand"], tiles & others)
    assert all(frame["view"]["tiles"] == [] for frame in spectator.states)
    assert all(frame["you"] is None for frame in spectator.states)
