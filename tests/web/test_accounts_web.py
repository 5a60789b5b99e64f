"""Accounts over HTTP: registering keeps a guest's matches, logging in and out, server-side
sessions in the cookie, wrong passwords, and the rate limit on guessing them."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.accounts.registration import nickname_key
from kva.storage.models import MatchRow, SessionRow, User
from tests.helpers.accounts_help import PASSWORD, login, new_nickname, register, registered
from tests.helpers.webhelp import Visitor


async def _user_named(sessions: async_sessionmaker, nickname: str) -> User | None:
    async with sessions() as s:
        return await s.scalar(select(User).where(User.nickname == nickname))


async def test_a_guest_who_registers_keeps_their_matches(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        home = await v.http.get("/")
        guest_name = re.search(r"guest-\d{4,}", home.text)
        assert guest_name is not None
        guest = await _user_named(sessions, guest_name.group(0))
        assert guest is not None and guest.kind == "guest"
        match_id = await v.new_match("bot:easy", target=75)
        name = new_nickname("nino")
        page = await v.http.get("/register")
        assert page.status_code == 200 and 'data-testid="keeps-matches"' in page.text
        old_cookie = v.cookie
        r = await register(v, name)
        assert r.status_code == 303, r.text
        assert v.cookie and v.cookie != old_cookie  # a new session on registering
        async with sessions() as s:
            user = await s.get(User, guest.id)
            assert user is not None
            assert (user.nickname, user.kind) == (name, "registered")
            assert user.nickname_key == nickname_key(name)  # the skeleton (issue 8)
            assert user.password_hash and user.password_hash.startswith("$argon2")
            assert PASSWORD not in user.password_hash
            match = await s.get(MatchRow, match_id)
            assert match is not None and match.user_at(0) == guest.id
        home = await v.http.get("/")
        assert name in home.text and f"/m/{match_id}" in home.text
        game = await v.http.get(f"/m/{match_id}")
        assert game.status_code == 200
        sock = await v.connect(match_id)
        try:
            assert sock.state["you"] == 0  # still seated in the guest's match
            assert sock.state["players"][0]["name"] == name  # under the new name
        finally:
            await sock.close()
        # Registering twice is refused, and changes nothing.
        r = await register(v, new_nickname())
        assert r.status_code == 400 and 'data-code="already_registered"' in r.text
        assert (await v.http.get("/register")).status_code == 303  # sent on
        assert (await _user_named(sessions, name)) is not None


@pytest.mark.parametrize(("nickname", "password", "code"), [
    ("ab", PASSWORD, "nickname_length"),
    ("x" * 21, PASSWORD, "nickname_length"),
    ("has space", PASSWORD, "nickname_chars"),
    ("_under", PASSWORD, "nickname_chars"),
    ("semi;colon", PASSWORD, "nickname_chars"),
    ("Guest-1234", PASSWORD, "nickname_reserved"),
    ("bot-hard", PASSWORD, "nickname_reserved"),
    ("{new}", "short", "password_short"),
    ("{new}", "x" * 129, "password_long"),
    ("{new}", "{same}", "password_is_nickname"),
])
async def test_bad_registrations_are_refused_and_change_nothing(
    make_server: Callable[..., Any], sessions: async_sessionmaker,
    nickname: str, password: str, code: str,
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        name = new_nickname("q") if nickname == "{new}" else nickname
        pw = name.upper() if password == "{same}" else password
        before = (await v.http.get("/")).text
        guest_name = re.search(r"guest-\d{4,}", before)
        assert guest_name
        r = await register(v, name, pw)
        assert r.status_code == 400
        assert f'data-code="{code}"' in r.text and 'data-testid="auth-error"' in r.text
        guest = await _user_named(sessions, guest_name.group(0))
        assert guest is not None and guest.kind == "guest" and guest.password_hash is None


async def test_a_nickname_is_taken_whatever_its_case(make_server: Callable[..., Any]) -> None:
    server = make_server()
    first, name = await registered(server.base_url)
    await first.__aexit__()
    async with Visitor(server.base_url) as v:
        r = await register(v, name.upper())
        assert r.status_code == 400 and 'data-code="nickname_taken"' in r.text


async def test_georgian_and_cyrillic_nicknames(make_server: Callable[..., Any]) -> None:
    server = make_server()
    suffix = f"{secrets.randbelow(10 ** 4):04d}"  # digits: letters of one script only
    for name in (f"ნინო{suffix}", f"Гиорги{suffix}"):
        async with Visitor(server.base_url) as v:
            r = await register(v, name)
            assert r.status_code == 303, r.text
            assert name in (await v.http.get("/")).text


async def test_log_out_then_log_in(make_server: Callable[..., Any],
                                   sessions: async_sessionmaker) -> None:
    server = make_server()
    v, name = await registered(server.base_url)
    try:
        token = v.cookie
        r = await v.http.post("/logout")
        assert r.status_code == 303
        assert not v.cookie  # the cookie is deleted...
        async with sessions() as s:  # ...and its session revoked on the server
            row = await s.scalar(select(SessionRow).where(
                SessionRow.token_hash == hashlib.sha256(token.encode()).hexdigest()))
            assert row is not None and row.revoked_at is not None
        # The old cookie, replayed, is worth nothing: nobody (a guest only once they act).
        async with httpx.AsyncClient(base_url=server.base_url,
                                     cookies={"kva_session": token}) as http:
            page = await http.get("/")
            assert name not in page.text and 'data-testid="whoami"' not in page.text
        r = await login(v, name.swapcase())  # nicknames are case-insensitive
        assert r.status_code == 303, r.text
        assert name in (await v.http.get("/")).text
    finally:
        await v.__aexit__()


async def test_session_cookie_is_an_http_only_token_kept_only_as_a_hash(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.get("/quick?target=75")  # acting creates the guest (issue 8)
        header = r.headers["set-cookie"]
        assert "HttpOnly" in header and "samesite=lax" in header.lower()
        token = r.cookies["kva_session"]
        assert len(token) >= 43 and "." not in token
    async with sessions() as s:
        assert await s.scalar(select(func.count()).select_from(SessionRow).where(
            SessionRow.token_hash == token)) == 0
        assert await s.scalar(select(func.count()).select_from(SessionRow).where(
            SessionRow.token_hash == hashlib.sha256(token.encode()).hexdigest())) == 1


async def test_wrong_password_and_unknown_nickname_get_the_same_answer(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    v, name = await registered(server.base_url)
    await v.__aexit__()
    async with Visitor(server.base_url) as other:
        wrong = await login(other, name, "not the password")
        unknown = await login(other, new_nickname("nobody"), "not the password")
        for r in (wrong, unknown):
            assert r.status_code == 400
            assert 'data-code="wrong_credentials"' in r.text
        assert name not in (await other.http.get("/")).text  # still a guest


async def test_brute_force_hits_the_rate_limit(make_server: Callable[..., Any]) -> None:
    server = make_server(login_rate_nickname="5/minute", login_rate_ip="100/minute")
    v, name = await registered(server.base_url)
    await v.__aexit__()
    async with Visitor(server.base_url) as attacker:
        codes = [(await login(attacker, name, f"guess-{i:04d}")).status_code for i in range(5)]
        assert codes == [400] * 5
        r = await login(attacker, name, "guess-0006")
        assert r.status_code == 429
        assert int(r.headers["retry-after"]) >= 1
        assert 'data-code="rate_limited"' in r.text
        # Even the right password is refused until the window has passed.
        r = await login(attacker, name, PASSWORD)
        assert r.status_code == 429
        assert name not in (await attacker.http.get("/")).text


async def test_registrations_are_rate_limited_per_address(
    make_server: Callable[..., Any]
) -> None:
    server = make_server(register_rate_ip="2/hour")
    statuses = []
    for _ in range(3):
        async with Visitor(server.base_url) as v:
            statuses.append((await register(v, new_nickname())).status_code)
    assert statuses == [303, 303, 429]


async def test_a_cross_site_form_post_is_refused(make_server: Callable[..., Any]) -> None:
    server = make_server()
    v, name = await registered(server.base_url)
    try:
        r = await v.http.post("/logout", headers={"origin": "https://evil.example"})
        assert r.status_code == 403
        assert name in (await v.http.get("/")).text  # still logged in
        r = await v.http.post("/logout", headers={"origin": server.base_url})
        assert r.status_code == 303
    finally:
        await v.__aexit__()


async def _pre_session_guest(sessions: async_sessionmaker, age_days: int = 30) -> User:
    """A guest of the signed-cookie era: a user row and no session row yet."""
    async with sessions() as s:
        user = User(nickname=f"guest-{secrets.randbelow(10**8):08d}", kind="guest",
                    created_at=datetime.now(UTC) - timedelta(days=age_days))
        s.add(user)
        await s.commit()
        return user


def _legacy_cookie(user: User) -> str:
    from kva.web.identity import SessionCodec
    from tests.helpers.webhelp import SECRET

    return SessionCodec(SECRET).dumps(user.id)


async def _opened_by(base_url: str, cookie: str) -> str | None:
    """The session token a request with ``cookie`` is given, None if it opens nothing."""
    async with httpx.AsyncClient(base_url=base_url, cookies={"kva_session": cookie}) as http:
        r = await http.get("/")
        return r.cookies.get("kva_session")


async def test_a_cookie_of_the_old_signed_scheme_is_exchanged_for_a_session(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    user = await _pre_session_guest(sessions)
    legacy = _legacy_cookie(user)
    async with httpx.AsyncClient(base_url=server.base_url,
                                 cookies={"kva_session": legacy}) as http:
        r = await http.get("/")
        assert user.nickname in r.text  # the same user...
        token = r.cookies["kva_session"]
        assert token != legacy  # ...now with a session token
        async with sessions() as s:
            row = await s.scalar(select(SessionRow).where(
                SessionRow.token_hash == hashlib.sha256(token.encode()).hexdigest()))
            assert row is not None and row.user_id == user.id


async def test_an_old_signed_cookie_cannot_be_replayed(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    legacy = _legacy_cookie(await _pre_session_guest(sessions))
    assert await _opened_by(server.base_url, legacy) is not None
    assert await _opened_by(server.base_url, legacy) is None


async def test_an_old_signed_cookie_opens_nothing_after_its_user_logged_out(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    user = await _pre_session_guest(sessions)
    token = await _opened_by(server.base_url, _legacy_cookie(user))
    assert token is not None
    async with httpx.AsyncClient(base_url=server.base_url,
                                 cookies={"kva_session": token}) as http:
        assert (await http.post("/logout")).status_code in (200, 303)
    assert await _opened_by(server.base_url, _legacy_cookie(user)) is None


async def test_an_old_signed_cookie_older_than_a_cookie_lives_opens_nothing(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    user = await _pre_session_guest(sessions, age_days=400)
    assert await _opened_by(server.base_url, _legacy_cookie(user)) is None


async def test_every_look_alike_of_a_registered_name_is_taken(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    digits = f"{secrets.randbelow(10 ** 6):06d}"
    async with Visitor(server.base_url) as owner:
        assert (await register(owner, f"admin{digits}")).status_code == 303
    for letters in ("ᴀᴅᴍɪɴ", "aᴅmin", "admɪn", "admǀn", "admꞁn", "admIn", "admln"):
        async with Visitor(server.base_url) as v:
            r = await register(v, letters + digits)
            assert r.status_code == 400, letters
            assert 'data-code="nickname_taken"' in r.text, letters


async def test_a_name_that_only_differs_is_still_free(make_server: Callable[..., Any]) -> None:
    server = make_server()
    digits = f"{secrets.randbelow(10 ** 6):06d}"
    async with Visitor(server.base_url) as owner:
        assert (await register(owner, f"nino{digits}")).status_code == 303
    async with Visitor(server.base_url) as v:
        assert (await register(v, f"nina{digits}")).status_code == 303
