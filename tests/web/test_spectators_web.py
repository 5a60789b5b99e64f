"""The table's spectator count reaches players and spectators, live, over the match socket."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers.webhelp import Socket, Visitor


def _count(sock: Socket) -> int | None:
    """The last spectator count the socket was sent (None: none yet)."""
    counts = [m["count"] for m in sock.messages if m.get("type") == "spectators"]
    return counts[-1] if counts else None


async def test_players_and_spectators_see_the_count_change_live(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as player, Visitor(server.base_url) as fan, \
            Visitor(server.base_url) as other_fan:
        match_id = await player.new_match("bot:easy")
        mine = await player.connect(match_id)
        try:
            await mine.wait_for(lambda m: m.get("type") == "spectators")
            assert _count(mine) == 0  # said after hello, even with nobody watching
            first = await fan.connect(match_id)
            await mine.wait_for(lambda m: _count(mine) == 1)
            await first.wait_for(lambda m: _count(first) == 1)  # a spectator counts itself
            second = await other_fan.connect(match_id)
            await mine.wait_for(lambda m: _count(mine) == 2)
            await first.wait_for(lambda m: _count(first) == 2)
            await second.close()
            await mine.wait_for(lambda m: _count(mine) == 1)
            await first.close()
            await mine.wait_for(lambda m: _count(mine) == 0)
        finally:
            await mine.close()


async def test_a_players_second_window_is_not_a_spectator(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as player:
        match_id = await player.new_match("bot:easy")
        mine = await player.connect(match_id)
        try:
            await mine.wait_for(lambda m: m.get("type") == "spectators")
            again = await player.connect(match_id)
            await again.wait_for(lambda m: m.get("type") == "spectators")
            assert _count(again) == 0 and _count(mine) == 0
            await again.close()
        finally:
            await mine.close()
