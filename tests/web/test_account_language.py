"""The language follows the account (docs/community.md, settings): logging in on a new
browser applies the account's language; a language picked there updates the account."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.storage.models import User
from tests.helpers.accounts_help import login, new_nickname, register, registered
from tests.helpers.webhelp import Visitor


async def _locale_of(sessions: async_sessionmaker, nickname: str) -> str | None:
    async with sessions() as s:
        user = await s.scalar(select(User).where(User.nickname == nickname))
        assert user is not None
        return user.locale


async def _page_language(v: Visitor) -> str:
    page = await v.http.get("/")
    return page.text.split('<html lang="', 1)[1].split('"', 1)[0]


async def test_the_accounts_language_is_used_after_login_on_a_new_browser(
    make_server: Callable[..., Any],
) -> None:
    server = make_server()
    first, name = await registered(server.base_url)
    try:
        assert (await first.http.get("/lang/ka", params={"next": "/"})).status_code == 303
    finally:
        await first.__aexit__()
    async with Visitor(server.base_url, accept_language="en") as fresh:
        assert await _page_language(fresh) == "en"
        assert (await login(fresh, name)).status_code == 303
        assert fresh.http.cookies.get("kva_lang") == "ka"
        assert await _page_language(fresh) == "ka"


async def test_a_language_picked_on_the_new_browser_updates_the_account(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    first, name = await registered(server.base_url)
    try:
        await first.http.get("/lang/ka", params={"next": "/"})
    finally:
        await first.__aexit__()
    async with Visitor(server.base_url) as second:
        await login(second, name)
        await second.http.get("/lang/ru", params={"next": "/settings"})
        assert await _locale_of(sessions, name) == "ru"
    async with Visitor(server.base_url) as third:
        await login(third, name)
        assert await _page_language(third) == "ru"


async def test_registering_keeps_the_language_in_use(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    async with Visitor(server.base_url, accept_language="tr") as v:
        name = new_nickname("lang")
        r = await register(v, name)
        assert r.status_code == 303, r.text
        assert await _locale_of(sessions, name) == "tr"


async def test_a_guests_language_choice_is_kept_only_in_the_browser(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as guest:
        assert (await guest.http.get("/lang/ka", params={"next": "/"})).status_code == 303
        assert guest.http.cookies.get("kva_lang") == "ka"
    async with sessions() as s:
        kept = await s.scalars(select(User.locale).where(User.kind != "registered"))
        assert set(kept) <= {None}
