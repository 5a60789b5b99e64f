"""A rated Kozel match's end over the socket: the finishing state's event carries each seat's
Kozel rating change, and a page opened after the end is told the same in a ``ratings``
message; the home form offers "rated" on a Kozel open table as on a Georgian one."""

from __future__ import annotations

from typing import Any

from kva.service.play import Seat
from kva.storage.models import MatchRow, User
from tests.helpers.community_help import make_user, signed_in
from tests.helpers.play import make_play


async def _rated_kozel_match(database: Any, users: list[User]) -> str:
    """A rated two-player Kozel match between ``users``, active, written to the database the
    server loads it from; its id."""
    play = make_play(database)
    row = play.prepare_match([Seat(u.id, u.nickname) for u in users], rated=True,
                             game="kozel", options={})
    async with database.sessions() as session, session.begin():
        session.add(row)
    return row.id


async def test_the_end_of_a_rated_kozel_match_shows_each_seats_change(
    make_server, database, sessions,
) -> None:
    server = make_server()
    users = [await make_user(sessions), await make_user(sessions)]
    match_id = await _rated_kozel_match(database, users)
    va, vb = [await signed_in(server.base_url, u) for u in users]
    try:
        sa, sb = await va.connect(match_id), await vb.connect(match_id)
        await sb.send({"type": "resign"})  # a forfeit stops the match as a time loss does
        over = await sa.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        ratings = over["event"]["ratings"]
        assert [(r["seat"], r["before"], r["change"]) for r in ratings] == [(0, 0, 1), (1, 0, 0)]
        assert all(r["after"] == r["before"] + r["change"] for r in ratings)
        late = await va.connect(match_id)  # a page opened after the end is told the same
        told = await late.wait_for(lambda m: m.get("type") == "ratings")
        assert told["ratings"] == ratings
        for sock in (sa, sb, late):
            await sock.close()
    finally:
        await va.__aexit__(None, None, None)
        await vb.__aexit__(None, None, None)


async def test_the_home_form_creates_a_rated_kozel_open_table(make_server, sessions) -> None:
    server = make_server()
    me = await signed_in(server.base_url, await make_user(sessions))
    try:
        page = (await me.http.get("/")).text
        assert 'name="rated"' in page
        r = await me.http.post("/matches", data={"game": "kozel", "opponent": "open",
                                                 "fish": "all", "rated": "1",
                                                 "clock": "blitz"})
        assert r.status_code == 303, r.text
        match_id = r.headers["location"].rsplit("/", 1)[-1]
    finally:
        await me.__aexit__(None, None, None)
    async with sessions() as session:  # a shared database holds other tests' matches too
        row = await session.get(MatchRow, match_id)
    assert row is not None and row.game == "kozel"
    assert row.rated and row.status == "waiting"
