"""HTTP pages: guest identity, language switching, bad input, unknown ids, closed tables."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy import func, select

from kva.storage.db import create_engine, session_factory
from kva.storage.models import SessionRow, User
from tests.helpers.webhelp import ServerThread, Visitor

GUEST = re.compile(r"guest-\d{4,}")


async def _count_users(database_url: str) -> tuple[int, int]:
    """How many users and session rows the database holds now."""
    engine = create_engine(database_url)
    try:
        async with session_factory(engine)() as session:
            users = await session.scalar(select(func.count()).select_from(User))
            rows = await session.scalar(select(func.count()).select_from(SessionRow))
        return int(users or 0), int(rows or 0)
    finally:
        await engine.dispose()


async def test_a_guest_is_created_at_the_first_action_and_sticks(
    server: ServerThread, database_url: str
) -> None:
    # Issue 8: a visit that merely renders a page creates nobody (no cookie, no row); the first
    # action (here a quick-game search page) creates the guest, whose cookie then sticks.
    before = await _count_users(database_url)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/")
        assert r.status_code == 200
        assert "kva_session" not in r.cookies
        assert GUEST.search(r.text) is None
        assert 'data-testid="nav-login"' in r.text  # a visitor with no session can log in
        assert await _count_users(database_url) == before
        r = await http.get("/quick", params={"target": "75"})
        assert r.status_code == 200
        assert "kva_session" in r.cookies
        name = GUEST.search(r.text)
        assert name is not None
        r2 = await http.get("/")
        assert "kva_session" not in r2.cookies  # nothing new to set
        assert name.group(0) in r2.text
        r3 = await http.get("/quick", params={"target": "75"})
        assert "kva_session" not in r3.cookies  # acting again creates nobody new
        assert name.group(0) in r3.text
    assert await _count_users(database_url) == (before[0] + 1, before[1] + 1)
    async with httpx.AsyncClient(base_url=server.base_url,
                                 cookies={"kva_session": "forged.value"}) as http:
        r = await http.get("/")
        assert "kva_session" not in r.cookies  # a forged cookie is nobody: no guest for a view
        assert name.group(0) not in r.text
        r = await http.get("/quick", params={"target": "75"})
        assert "kva_session" in r.cookies  # acting with it buys a fresh guest
        assert name.group(0) not in r.text


async def test_healthz(server: ServerThread) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/healthz")
        assert r.status_code == 200 and r.text == "ok"
        # ?verbose: the match-owner counters, none in one process on the in-memory broker
        r = await http.get("/healthz", params={"verbose": "1"})
        assert r.status_code == 200 and r.text == "ok\nowners=off"


@pytest.mark.parametrize("lang", ["ka", "en", "ru", "tr"])
async def test_language_switch_sets_cookie_and_goes_back(server: ServerThread, lang: str) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get(f"/lang/{lang}", params={"next": "/healthz"})
        assert r.status_code == 303
        assert r.headers["location"] == "/healthz"
        assert r.cookies.get("kva_lang") == lang
        page = await http.get("/")
        assert f'<html lang="{lang}" ' in page.text
        assert 'data-testid="lang-switcher"' in page.text
        for code in ("ka", "en", "ru", "tr"):
            assert f'data-lang="{code}"' in page.text


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "javascript:x",
                                    "/\\evil.example", ""])
async def test_language_switch_never_redirects_off_site(server: ServerThread, target: str) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/lang/en", params={"next": target})
        assert r.status_code == 303
        assert r.headers["location"] == "/"


async def test_unknown_language_is_404(server: ServerThread) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/lang/xx", params={"next": "/"})
        assert r.status_code == 404
        assert "kva_lang" not in r.cookies


async def test_accept_language_picks_the_page_language(server: ServerThread) -> None:
    async with httpx.AsyncClient(base_url=server.base_url,
                                 headers={"accept-language": "ru-RU,ru;q=0.9,en;q=0.5"}) as http:
        r = await http.get("/")
        assert '<html lang="ru" ' in r.text


@pytest.mark.parametrize("form", [
    {"opponent": "bot:godlike", "target": "75", "bazaar": "draw"},
    {"opponent": "random", "target": "75", "bazaar": "draw"},
    {"opponent": "bot:easy", "target": "100", "bazaar": "draw"},
    {"opponent": "bot:easy", "target": "seventy", "bazaar": "draw"},
    {"opponent": "bot:easy", "target": "-75", "bazaar": "draw"},
    {"opponent": "bot:easy", "target": "75", "bazaar": "maybe"},
    {"opponent": "friend", "target": "75", "bazaar": "draw", "password": "x" * 129},
    {"opponent": "friend", "target": "75", "bazaar": "draw", "clock": "bullet"},
    {},
])
async def test_bad_new_match_form_is_400_and_creates_nothing(
    server: ServerThread, form: dict[str, str]
) -> None:
    async with Visitor(server.base_url) as me:
        r = await me.http.post("/matches", data=form)
        assert r.status_code == 400
        assert 'data-testid="error"' in r.text
        home = await me.http.get("/")
        assert 'data-testid="my-matches"' not in home.text


@pytest.mark.parametrize("path", ["/m/nope", "/m/nope/replay", "/m/nope/record.json",
                                  "/m/" + "x" * 200, "/t/nope", "/no/such/page"])
async def test_unknown_ids_are_404(server: ServerThread, path: str) -> None:
    async with Visitor(server.base_url) as me:
        r = await me.http.get(path)
        assert r.status_code == 404
        assert 'data-testid="error"' in r.text


async def test_record_and_replay_wait_for_the_end(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        match_id = await me.new_match("friend")
        assert (await me.http.get(f"/m/{match_id}")).status_code == 200
        assert (await me.http.get(f"/m/{match_id}/record.json")).status_code == 404
        assert (await me.http.get(f"/m/{match_id}/replay")).status_code == 404


async def test_friend_table_with_password(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        match_id = await host.new_match("friend", password="sesame")
        token = await host.share_token(match_id)
        assert len(token) >= 20  # unguessable
        # The link asks for the password; a wrong one is refused and seats nobody.
        r = await guest.http.get(f"/t/{token}")
        assert r.status_code == 200 and 'data-testid="join"' in r.text
        r = await guest.http.post(f"/t/{token}", data={"password": "wrong"})
        assert r.status_code == 403 and 'data-testid="password-error"' in r.text
        sock = await host.connect(match_id)
        assert sock.state["status"] == "waiting"
        waiting_version = sock.state["version"]
        # The right one seats the guest as player 1 and starts the match.
        r = await guest.http.post(f"/t/{token}", data={"password": "sesame"})
        assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
        joined = await sock.wait_state(waiting_version + 1)
        assert joined["status"] == "active" and joined["event"]["kind"] == "join"
        gsock = await guest.connect(match_id)
        assert gsock.state["you"] == 1
        # Once both seats are taken, the link (with the password) makes a spectator.
        r = await watcher.http.post(f"/t/{token}", data={"password": "sesame"})
        assert r.status_code == 303
        wsock = await watcher.connect(match_id)
        assert wsock.state["you"] is None and wsock.state["view"]["hand"] == []
        # The host's own link just takes them back to their seat.
        r = await host.http.get(f"/t/{token}")
        assert r.status_code == 303
        for s in (sock, gsock, wsock):
            await s.close()


async def test_a_table_is_played_with_the_clock_its_form_chose(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        home = await host.http.get("/")
        assert 'name="clock"' in home.text and 'value="none"' in home.text
        r = await host.http.post("/matches", data={"opponent": "friend", "target": "75",
                                                   "bazaar": "draw", "clock": "blitz"})
        assert r.status_code == 303
        match_id = r.headers["location"].rsplit("/", 1)[1]
        token = await host.share_token(match_id)
        await guest.http.get(f"/t/{token}")
        sock = await guest.connect(match_id)
        clock = sock.state["clock"]
        assert (clock["preset"], clock["per_move"], clock["reserve_s"]) == ("blitz", 10, 60)
        assert clock["left"] == [60_000, 60_000] and clock["flagged"] is None
        await sock.close()
        quick = await host.http.get("/quick", params={"target": "75", "clock": "blitz"})
        assert quick.status_code == 200 and 'data-clock="blitz"' in quick.text
        assert 'data-testid="quick-clock"' in quick.text
        for refused in ("none", "bullet"):  # a quick game always has a clock
            r = await host.http.get("/quick", params={"target": "75", "clock": refused})
            assert r.status_code == 400 and 'data-testid="error"' in r.text
        bot_match = await host.new_match("bot:easy")  # no clock field sent: none
        sock = await host.connect(bot_match)
        assert sock.state["clock"]["preset"] == "none"  # only the first move is timed
        assert sock.state["clock"]["reserve_s"] == 0
        await sock.close()


async def test_friend_table_without_password_joins_at_once(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        match_id = await host.new_match("friend")
        token = await host.share_token(match_id)
        r = await guest.http.get(f"/t/{token}")
        assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
        page = await guest.http.get(f"/m/{match_id}")
        assert 'data-seat="1"' in page.text


@pytest.mark.parametrize("lang", ["ka", "en", "ru", "tr"])
async def test_every_page_renders_in_every_language(server: ServerThread, lang: str) -> None:
    async with Visitor(server.base_url) as me:
        await me.http.get(f"/lang/{lang}")
        match_id = await me.new_match("bot:easy")
        sock = await me.connect(match_id)
        await sock.send({"type": "resign"})
        await sock.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        await sock.close()
        for path in ("/", f"/m/{match_id}", f"/m/{match_id}/replay", "/m/none"):
            r = await me.http.get(path)
            assert r.status_code in (200, 404)
            assert f'<html lang="{lang}" ' in r.text
            assert 'id="kva-strings"' in r.text


async def test_a_link_preview_does_not_take_the_seat(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host:
        match_id = await host.new_match("friend")
        token = await host.share_token(match_id)
        # A client with no session (a messenger fetching a preview) is only asked to confirm.
        async with httpx.AsyncClient(base_url=server.base_url) as preview:
            r = await preview.get(f"/t/{token}")
            assert r.status_code == 200 and 'data-testid="join"' in r.text
            assert 'name="password"' not in r.text
        sock = await host.connect(match_id)
        assert sock.state["status"] == "waiting" and sock.state["players"][1] is None
        # A person who clicks the button joins.
        async with httpx.AsyncClient(base_url=server.base_url) as friend:
            await friend.get(f"/t/{token}")
            r = await friend.post(f"/t/{token}", data={})
            assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
        joined = await sock.wait_state(2)
        assert joined["status"] == "active"
        await sock.close()


async def test_security_headers_on_every_page(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        for path in ("/", "/healthz", "/static/style.css", "/m/nope"):
            r = await me.http.get(path)
            assert r.headers["x-frame-options"] == "DENY", path
            assert r.headers["x-content-type-options"] == "nosniff", path
            assert r.headers["referrer-policy"] == "same-origin", path


async def test_a_bot_opponent_is_named_in_the_page_language(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        await me.http.get("/lang/ka")
        await me.new_match("bot:hard")
        home = await me.http.get("/")
        listed = home.text.split('data-testid="my-matches"', 1)[1]
        assert "ბოტი · რთული" in listed
        assert "· hard" not in listed


async def test_the_home_list_names_every_other_seat_of_a_kozel_table(
        server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        r = await me.http.post("/matches", data={"opponent": "bot:easy", "game": "kozel",
                                                 "seats": "3", "fish": "all"})
        assert r.status_code == 303, r.text
        home = await me.http.get("/")
        listed = home.text.split('data-testid="my-matches"', 1)[1].split("</ul>", 1)[0]
        vs = re.search(r'<span class="vs">(.*?)</span>', listed, re.S)
        assert vs, listed
        assert vs.group(1).count("easy") == 2, vs.group(1)
