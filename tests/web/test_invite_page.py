"""A friend's table link names who invites and the match's terms before the seat is taken."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx

from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import Visitor


def _field(text: str, testid: str) -> str:
    found = re.search(rf'data-testid="{testid}">(.*?)</', text, re.S)
    assert found, f"no {testid} on the page"
    return found.group(1).strip()


async def _friend_table(host: Visitor, **form: str) -> str:
    """A closed table created by ``host`` with ``form``; its link's token."""
    data = {"opponent": "friend", "target": "255", "bazaar": "pass-only", "clock": "blitz"}
    r = await host.http.post("/matches", data=data | form)
    assert r.status_code == 303, r.text
    return await host.share_token(r.headers["location"].rsplit("/", 1)[1])


async def test_the_invite_names_the_inviter_target_rules_clock_and_rating(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    host, name = await registered(server.base_url, "host")
    try:
        token = await _friend_table(host, opponent="open", rated="1")  # rated: open only
        async with httpx.AsyncClient(base_url=server.base_url,
                                     headers={"Accept-Language": "en"}) as friend:
            page = await friend.get(f"/t/{token}")
    finally:
        await host.__aexit__(None, None, None)
    assert page.status_code == 200
    assert name in _field(page.text, "invite-inviter")
    assert _field(page.text, "invite-target") == "255 points"
    assert _field(page.text, "invite-rules") == "Pass only: nobody draws"
    assert _field(page.text, "invite-clock").startswith("Blitz:")
    assert _field(page.text, "invite-rated") == "Rated"
    assert 'data-testid="invite-taken"' not in page.text


async def test_a_password_table_names_its_terms_above_the_password(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as friend:
        token = await _friend_table(host, password="s3cret-table", clock="none", target="75",
                                    bazaar="draw")
        page = await friend.http.get(f"/t/{token}")
        wrong = await friend.http.post(f"/t/{token}", data={"password": "nope"})
    assert page.status_code == 200 and 'name="password"' in page.text
    assert _field(page.text, "invite-target") == "75 points"
    assert _field(page.text, "invite-rules") == "Standard: draw from the bazaar"
    assert _field(page.text, "invite-clock") == "No clock (casual tables only)"
    assert _field(page.text, "invite-rated") == "Casual"
    assert wrong.status_code == 403 and _field(wrong.text, "invite-target") == "75 points"


async def test_a_link_whose_seats_are_taken_offers_to_watch(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as friend:
        token = await _friend_table(host)
        assert (await friend.http.get(f"/t/{token}")).status_code == 303  # seated at once
        async with httpx.AsyncClient(base_url=server.base_url,
                                     headers={"Accept-Language": "en"}) as late:
            page = await late.get(f"/t/{token}")
    assert page.status_code == 200 and 'data-testid="invite-taken"' in page.text
    assert _field(page.text, "join") == "Watch the match"


async def test_an_unknown_link_is_404(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with httpx.AsyncClient(base_url=server.base_url) as visitor:
        r = await visitor.get("/t/no-such-table")
    assert r.status_code == 404
