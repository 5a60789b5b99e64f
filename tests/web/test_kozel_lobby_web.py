"""Kozel tables of two to four seats in the lobby and by a friend's link: the form's checks,
the lobby message's seats, joiners filling the seats in order, a bot put in a free seat by
the creator, and a joiner leaving before the start freeing the seat."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.helpers.accounts_help import JsonSocket, registered, ws_url
from tests.helpers.webhelp import Visitor


async def _kozel_table(v: Visitor, seats: int = 3, opponent: str = "open",
                       **extra: str) -> str:
    """Open a Kozel table of ``seats`` seats from the form; its match id."""
    data = {"opponent": opponent, "game": "kozel", "seats": str(seats), "fish": "all", **extra}
    r = await v.http.post("/matches", data=data)
    assert r.status_code == 303, r.text
    found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.headers["location"])
    assert found, r.headers["location"]
    return found.group(1)


def _line(message: dict[str, Any], match_id: str) -> dict[str, Any] | None:
    return next((t for t in message.get("tables", []) if t["id"] == match_id), None)


@pytest.mark.parametrize(("data", "status"), [
    ({"seats": "5"}, 400),
    ({"seats": "1"}, 400),
    ({"seats": "two"}, 400),
    ({"seats": "²"}, 400),  # a digit to str.isdigit, not to int()
    ({"seats": "9" * 5000}, 400),  # past int()'s digit limit
    ({"game": "georgian", "seats": "²", "target": "75", "bazaar": "draw"}, 400),
    ({"seats": "3", "pairs": "1"}, 400),  # the pair game is played by four
    ({"seats": "4", "pairs": "yes"}, 400),
    ({"seats": "3", "fish": "some"}, 400),
    ({"seats": "3", "rated": "1"}, 403),  # rated: registered players only
    ({"game": "georgian", "seats": "3", "target": "75", "bazaar": "draw"}, 400),
])
async def test_the_form_refuses_bad_kozel_tables(
    make_server: Callable[..., Any], data: dict[str, str], status: int,
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host:
        form = {"opponent": "open", "game": "kozel", "fish": "all", **data}
        r = await host.http.post("/matches", data=form)
        assert r.status_code == status, r.text


async def test_a_four_seat_pair_table_is_listed_with_its_options_and_seats(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        match_id = await _kozel_table(host, 4, pairs="1", fish="one")
        page = await guest.http.get("/lobby")
        assert 'data-testid="lobby-pairs"' in page.text and 'data-free="3"' in page.text
        watcher = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), guest.cookie).open()
        try:
            message = await watcher.wait_for(lambda m: _line(m, match_id) is not None)
        finally:
            await watcher.close()
        line = _line(message, match_id)
        assert line is not None
        assert line["game"] == "kozel" and line["options"]["fish"] == "one"
        assert line["options"]["pairs"] is True
        assert [s["taken"] for s in line["seats"]] == [True, False, False, False]
        assert line["seats"][0]["name"] == line["creator"] and line["can_join"]
        assert not line["seated"] and not line["mine"]


async def test_joiners_fill_the_seats_in_order_live_and_the_last_starts_the_match(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as first, \
            Visitor(server.base_url) as second:
        match_id = await _kozel_table(host, 3)
        watcher = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), first.cookie).open()
        try:
            await watcher.wait_for(lambda m: _line(m, match_id) is not None)
            r = await first.http.post(f"/lobby/{match_id}/join")
            assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
            seated = await watcher.wait_for(
                lambda m: (line := _line(m, match_id)) is not None and line["seats"][1]["taken"])
            line = _line(seated, match_id)
            assert line is not None
            assert [s["taken"] for s in line["seats"]] == [True, True, False]
            assert line["seats"][1]["you"] and line["seated"] and not line["can_join"]
            # One seat per user per table: joining again changes nothing.
            again = await first.http.post(f"/lobby/{match_id}/join")
            assert again.status_code == 303
            r = await second.http.post(f"/lobby/{match_id}/join")
            assert r.status_code == 303
            await watcher.wait_for(lambda m: m.get("type") == "lobby"
                                   and _line(m, match_id) is None)
        finally:
            await watcher.close()
        socks = [await v.connect(match_id) for v in (host, first, second)]
        try:
            assert [s.state["you"] for s in socks] == [0, 1, 2]
            assert all(s.state["status"] == "active" for s in socks)
        finally:
            for sock in socks:
                await sock.close()


async def test_the_creator_puts_a_bot_in_a_free_seat(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as other:
        match_id = await _kozel_table(host, 3, opponent="friend")
        page = await host.http.get(f"/m/{match_id}")
        assert 'data-testid="add-bot-hard"' in page.text
        refused = await other.http.post(f"/m/{match_id}/bot", data={"level": "easy"})
        assert refused.status_code == 409
        bad = await host.http.post(f"/m/{match_id}/bot", data={"level": "genius"})
        assert bad.status_code == 400
        r = await host.http.post(f"/m/{match_id}/bot", data={"level": "hard"})
        assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
        token = await host.share_token(match_id)
        async with httpx.AsyncClient(base_url=server.base_url) as newcomer:  # no session yet
            invite = await newcomer.get(f"/t/{token}")
        assert invite.status_code == 200 and 'data-testid="invite-fish"' in invite.text
        assert re.findall(r'data-testid="invite-seat" data-taken="(\w+)"', invite.text) == [
            "true", "true", "false"]
        sock = await host.connect(match_id)
        try:
            assert sock.state["status"] == "waiting"
            assert sock.state["players"][1]["bot"] == "hard"
            assert sock.state["players"][2] is None
        finally:
            await sock.close()
        r = await host.http.post(f"/m/{match_id}/bot", data={"level": "easy"})
        assert r.status_code == 303  # the last seat: the match starts
        sock = await host.connect(match_id)
        try:
            assert sock.state["status"] == "active"
        finally:
            await sock.close()


async def test_a_joiner_leaving_before_the_start_frees_the_seat(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as first, \
            Visitor(server.base_url) as second:
        match_id = await _kozel_table(host, 3)
        assert (await first.http.post(f"/lobby/{match_id}/join")).status_code == 303
        page = await first.http.get(f"/m/{match_id}")
        assert 'data-testid="leave-table"' in page.text
        r = await first.http.post(f"/lobby/{match_id}/leave")
        assert r.status_code == 303 and r.headers["location"] == "/lobby"
        watcher = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), second.cookie).open()
        try:
            message = await watcher.wait_for(lambda m: _line(m, match_id) is not None)
        finally:
            await watcher.close()
        line = _line(message, match_id)
        assert line is not None and [s["taken"] for s in line["seats"]] == [True, False, False]
        # The creator cannot leave (they cancel), nor can someone with no seat.
        assert (await host.http.post(f"/lobby/{match_id}/leave")).status_code == 409
        assert (await second.http.post(f"/lobby/{match_id}/join")).status_code == 303
        sock = await second.connect(match_id)
        try:
            assert sock.state["you"] == 1 and sock.state["status"] == "waiting"
        finally:
            await sock.close()


async def test_a_georgian_table_takes_no_bot(make_server: Callable[..., Any]) -> None:
    """The Georgian game is person against person at a table: its free seat waits for one."""
    server = make_server()
    async with Visitor(server.base_url) as host:
        match_id = await host.new_match("friend")
        r = await host.http.post(f"/m/{match_id}/bot", data={"level": "easy"})
        assert r.status_code == 409
        sock = await host.connect(match_id)
        try:
            assert sock.state["status"] == "waiting" and sock.state["players"][1] is None
        finally:
            await sock.close()


async def test_a_rated_three_seat_table_is_for_registered_players_and_takes_no_bot(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    host, _name = await registered(server.base_url, "kh")
    try:
        match_id = await _kozel_table(host, 3, rated="1", clock="standard")
        async with Visitor(server.base_url) as guest:
            page = await guest.http.get("/lobby")
            assert f'action="/lobby/{match_id}/join"' not in page.text  # guests play casual
            assert (await guest.http.post(f"/lobby/{match_id}/join")).status_code == 403
        bot = await host.http.post(f"/m/{match_id}/bot", data={"level": "easy"})
        assert bot.status_code == 409  # a rated table is played by people only
    finally:
        await host.__aexit__(None, None, None)


async def test_a_joiner_who_leaves_is_never_sent_the_hand_of_who_sits_down_next(
    make_server: Callable[..., Any]
) -> None:
    """A joiner's socket viewed the match as their seat. Once they leave the table, that socket
    is closed (4410: the page comes back as what the player is now) before the seat's next
    player sits down, so it is never sent that player's tiles; come back, it is a spectator."""
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as leaver, \
            Visitor(server.base_url) as second, Visitor(server.base_url) as third:
        match_id = await _kozel_table(host, 3)
        assert (await leaver.http.post(f"/lobby/{match_id}/join")).status_code == 303
        kept = await leaver.connect(match_id)
        assert kept.state["you"] == 1
        assert (await leaver.http.post(f"/lobby/{match_id}/leave")).status_code == 303
        await kept.wait_closed()
        assert kept._ws.close_code == 4410
        assert (await second.http.post(f"/lobby/{match_id}/join")).status_code == 303
        assert (await third.http.post(f"/lobby/{match_id}/join")).status_code == 303
        sock = await second.connect(match_id)
        try:
            dealt = await sock.wait_for(lambda m: m.get("type") == "state"
                                        and m["status"] == "active" and m["view"]["tiles"])
            assert dealt["you"] == 1
        finally:
            await sock.close()
        assert all(not s["view"].get("tiles") for s in kept.states)
        again = await leaver.connect(match_id)
        try:
            state = await again.wait_for(lambda m: m.get("type") == "state"
                                         and m["status"] == "active")
            assert state["you"] is None and not state["view"]["tiles"]
        finally:
            await again.close()
