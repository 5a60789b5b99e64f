"""Quick game: the waiting room with a fake clock, then two players paired over WebSockets."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.lobby.quickgame import MemoryQuickGame, QuickGameError
from kva.storage.models import MatchRow
from tests.helpers.accounts_help import JsonSocket, registered, ws_url
from tests.helpers.webhelp import Visitor


class FakePlay:
    """Stands in for PlayService.create_match: records the pairs it is asked to start."""

    def __init__(self) -> None:
        self.created: list[dict[str, Any]] = []

    async def create_match(self, creator_id: int, creator_name: str, opponent: str, target: int,
                           bazaar: str, password: str | None = None, *, rated: bool = False,
                           opponent_user: tuple[int, str] | None = None) -> tuple[str, None]:
        self.created.append({"seat0": creator_id, "seat1": opponent_user, "opponent": opponent,
                             "target": target, "bazaar": bazaar, "rated": rated})
        return f"m{len(self.created)}", None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_range_widens_until_a_pair_is_made() -> None:
    play, clock = FakePlay(), Clock()
    quick = MemoryQuickGame(play, clock=clock, tick=3600)  # rounds run only when the test says
    a = await quick.join(1, "ana", 1500, 175, "draw", False, registered=False)
    b = await quick.join(2, "beka", 1790, 175, "draw", False, registered=False)  # gap 290
    assert play.created == [] and quick.waiting() == 2
    assert quick.status(a).range == 100
    clock.now += 19.9
    await quick.pair_now()
    assert play.created == [] and quick.status(a).range == 250
    clock.now += 0.1  # 20 s: ±300
    await quick.pair_now()
    assert play.created == [{"seat0": 1, "seat1": (2, "beka"), "opponent": "player",
                             "target": 175, "bazaar": "draw", "rated": False}]
    assert await a.result == "m1" and await b.result == "m1"
    assert quick.waiting() == 0
    await quick.stop()


async def test_a_bot_is_offered_after_30_seconds_and_cancel_leaves() -> None:
    play, clock = FakePlay(), Clock()
    quick = MemoryQuickGame(play, clock=clock, tick=3600)
    a = await quick.join(1, "ana", 1500, 75, "draw", False, registered=False)
    clock.now += 29
    assert not quick.status(a).offer_bot
    clock.now += 1
    status = quick.status(a)
    assert status.offer_bot and status.waited == 30
    quick.leave(a)
    assert a.result.cancelled() and quick.waiting() == 0
    await quick.join(2, "beka", 1500, 75, "draw", False, registered=False)
    assert play.created == []  # nobody is paired with a player who left
    await quick.stop()


async def test_searching_again_replaces_the_first_search() -> None:
    play, clock = FakePlay(), Clock()
    quick = MemoryQuickGame(play, clock=clock, tick=3600)
    first = await quick.join(1, "ana", 1500, 75, "draw", False, registered=False)
    second = await quick.join(1, "ana", 1500, 175, "draw", False, registered=False)
    with pytest.raises(QuickGameError):
        first.result.result()
    assert quick.waiting() == 1 and not second.result.done()
    quick.leave(first)  # leaving the old search does not end the new one
    assert quick.waiting() == 1
    await quick.stop()


@pytest.mark.parametrize(("target", "bazaar", "rated", "registered", "code"), [
    (100, "draw", False, True, "bad_target"),
    (75, "draw-some", False, True, "bad_bazaar"),
    (75, "draw", True, False, "rated_only"),
])
async def test_bad_searches_are_refused(target: int, bazaar: str, rated: bool, registered: bool,
                                        code: str) -> None:
    quick = MemoryQuickGame(FakePlay(), clock=Clock(), tick=3600)  # type: ignore[arg-type]
    with pytest.raises(QuickGameError) as refused:
        await quick.join(1, "ana", 1500, target, bazaar, rated, registered)
    assert refused.value.code == code and quick.waiting() == 0
    await quick.stop()


def _quick_url(base_url: str, target: int = 75, bazaar: str = "draw", rated: bool = False) -> str:
    return ws_url(base_url, f"/ws/quick?target={target}&bazaar={bazaar}&rated={int(rated)}")


async def test_two_waiting_players_are_paired(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as a, Visitor(server.base_url) as b, \
            Visitor(server.base_url) as c:
        page = await a.http.get("/quick", params={"target": "75", "bazaar": "draw"})
        assert page.status_code == 200 and 'data-testid="quick-cancel"' in page.text
        sa = await JsonSocket(_quick_url(server.base_url), a.cookie).open()
        sc = await JsonSocket(_quick_url(server.base_url, target=175), c.cookie).open()
        try:
            waiting = await sa.wait_for(lambda m: m.get("type") == "waiting")
            assert waiting == {"type": "waiting", "waited": 0, "range": 100, "offer_bot": False}
            sb = await JsonSocket(_quick_url(server.base_url), b.cookie).open()
            pa = await sa.wait_for(lambda m: m.get("type") == "paired")
            pb = await sb.wait_for(lambda m: m.get("type") == "paired")
            assert pa["match_id"] == pb["match_id"] and pa["url"] == f"/m/{pa['match_id']}"
            await asyncio.sleep(0.3)
            assert not any(m.get("type") == "paired" for m in sc.messages)  # other settings
            for v, seat in ((a, 0), (b, 1)):
                sock = await v.connect(pa["match_id"])
                try:
                    assert sock.state["you"] == seat and sock.state["status"] == "active"
                finally:
                    await sock.close()
            async with sessions() as s:
                row = await s.get(MatchRow, pa["match_id"])
                assert row is not None and not row.rated and row.target == 75
        finally:
            await sa.close()
            await sc.close()


async def test_a_cancelled_search_is_not_paired(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as a, Visitor(server.base_url) as b:
        sa = await JsonSocket(_quick_url(server.base_url, bazaar="pass-only"), a.cookie).open()
        await sa.wait_for(lambda m: m.get("type") == "waiting")
        await sa.send({"type": "cancel"})
        await sa.wait_for(lambda m: m.get("type") == "cancelled")
        sb = await JsonSocket(_quick_url(server.base_url, bazaar="pass-only"), b.cookie).open()
        try:
            await sb.wait_for(lambda m: m.get("type") == "waiting")
            await asyncio.sleep(1.2)
            assert not any(m.get("type") == "paired" for m in sb.messages)
        finally:
            await sb.close()
            await sa.close()


async def test_rated_quick_games_pair_registered_players_only(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as guest:
        r = await guest.http.get("/quick", params={"target": "75", "rated": "1"})
        assert r.status_code == 403
        refused = JsonSocket(_quick_url(server.base_url, rated=True), guest.cookie)
        await refused.open()
        await refused.closed.wait()
        assert refused.close_code == 4400
        assert refused.messages == [{"type": "error", "code": "rated_only"}]
    a, _ = await registered(server.base_url, "qa")
    b, _ = await registered(server.base_url, "qb")
    try:
        sa = await JsonSocket(_quick_url(server.base_url, 355, rated=True), a.cookie).open()
        sb = await JsonSocket(_quick_url(server.base_url, 355, rated=True), b.cookie).open()
        pa = await sa.wait_for(lambda m: m.get("type") == "paired")
        async with sessions() as s:
            row = await s.get(MatchRow, pa["match_id"])
            assert row is not None and row.rated and row.target == 355
        await sa.close()
        await sb.close()
    finally:
        await a.__aexit__()
        await b.__aexit__()


@pytest.mark.parametrize("query", ["target=100", "target=x", "bazaar=maybe", "rated=yes"])
async def test_bad_quick_settings_are_refused(make_server: Callable[..., Any],
                                              query: str) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        r = await v.http.get(f"/quick?{query}")
        assert r.status_code == 400
        sock = JsonSocket(ws_url(server.base_url, f"/ws/quick?{query}"), v.cookie)
        await sock.open()
        await sock.closed.wait()
        assert sock.close_code == 4400


async def test_nobody_comes_so_a_bot_is_offered(
    make_server: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import re

    import kva.service.lobby.matchmaking as matchmaking

    monkeypatch.setattr(matchmaking, "BOT_OFFER_AFTER", 1.0)  # 30 s in production
    server = make_server()
    async with Visitor(server.base_url) as v:
        page = await v.http.get("/quick", params={"target": "255", "bazaar": "pass-only"})
        offer = re.search(r'data-testid="quick-bot-offer".*?</form>', page.text, re.S)
        assert offer and 'value="bot:normal"' in offer.group(0)
        assert 'name="target" value="255"' in offer.group(0)
        sock = await JsonSocket(_quick_url(server.base_url, 255, "pass-only"), v.cookie).open()
        try:
            first = await sock.wait_for(lambda m: m.get("type") == "waiting")
            assert first["offer_bot"] is False
            await sock.wait_for(lambda m: m.get("type") == "waiting" and m["offer_bot"], 5.0)
        finally:
            await sock.close()
        # The offer's form starts a casual bot match with the same settings.
        match_id = await v.new_match("bot:normal", target=255, bazaar="pass-only")
        game = await v.connect(match_id)
        try:
            assert game.state["status"] == "active" and game.state["players"][1]["bot"]
        finally:
            await game.close()
