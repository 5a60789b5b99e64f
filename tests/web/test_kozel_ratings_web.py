"""The Kozel rating on the pages: the rating table's game switch (``/ratings?game=kozel``,
Georgian by default) and the profile's Kozel line beside the Georgian rating."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from typing import Any

import httpx

from kva.service import kozel_ratings
from kva.storage.models import MatchRow, User
from kva.web import profiles
from tests.helpers.community_help import make_user, signed_in


async def _rated(sessions: Any, users: Sequence[User], scores: list[int]) -> None:
    """A finished Kozel match of ``users``, rated."""
    row = MatchRow(id=secrets.token_urlsafe(9), status="finished", target=101, bazaar="draw",
                   rated=True, version=1, record={})
    async with sessions() as session, session.begin():
        session.add(row)
    async with sessions() as session, session.begin():
        await kozel_ratings.rate_kozel_match(session, row.id, [u.id for u in users], scores,
                                             None, None, True)


def _rows(html: str, testid: str) -> dict[str, tuple[int, int]]:
    """Each listed nickname's (rating, matches) from the Kozel table."""
    return {name: (int(rating), int(matches)) for name, rating, matches in re.findall(
        rf'data-testid="{testid}" data-nickname="([^"]+)" data-rating="(-?\d+)" '
        r'data-matches="(\d+)"', html)}


def _current(html: str) -> list[str]:
    """The games the switch marks as the page's own."""
    return re.findall(r'data-game="(\w+)" aria-current="page"', html)


async def test_the_kozel_table_is_one_switch_away_and_georgian_stays_the_default(
    make_server, sessions, monkeypatch
) -> None:
    monkeypatch.setattr(profiles, "LEADERBOARD_PAGE", 2)
    server = make_server()
    users = [await make_user(sessions) for _ in range(3)]
    await _rated(sessions, users, [25, 40, 105])
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        georgian = await http.get("/ratings")
        named = await http.get("/ratings", params={"game": "georgian"})
        kozel = await http.get("/ratings", params={"game": "kozel"})
        wrong = await http.get("/ratings", params={"game": "chess"})
        second = await http.get("/ratings", params={"game": "kozel", "page": "2"})
    assert georgian.status_code == named.status_code == kozel.status_code == 200
    assert _current(georgian.text) == _current(named.text) == ["georgian"]
    assert _current(kozel.text) == ["kozel"]
    assert 'href="/ratings?game=kozel"' in georgian.text
    assert 'data-testid="kozel-leaderboard' not in georgian.text
    assert wrong.status_code == 400 and 'data-testid="error"' in wrong.text
    assert 'data-testid="kozel-leaderboard"' in kozel.text
    # Two a page here: the pager keeps the game in its links.
    assert 'href="/ratings?game=kozel&amp;page=2" rel="next"' in kozel.text
    assert 'href="/ratings?game=kozel&amp;page=1" rel="prev"' in second.text
    assert _current(second.text) == ["kozel"]


async def test_every_rated_kozel_player_is_listed_by_rating(make_server, sessions,
                                                            monkeypatch) -> None:
    monkeypatch.setattr(profiles, "LEADERBOARD_PAGE", 10_000)
    server = make_server()
    users = [await make_user(sessions) for _ in range(3)]
    await _rated(sessions, users, [25, 40, 105])
    await _rated(sessions, users, [0, 90, 101])
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        page = await http.get("/ratings?game=kozel")
    rows = _rows(page.text, "kozel-leaderboard-row")
    assert [rows[u.nickname] for u in users] == [(18, 2), (7, 2), (-1, 2)]
    order = [name for name in rows if name in {u.nickname for u in users}]
    assert order == [u.nickname for u in users]


async def test_the_profile_shows_both_games(make_server, sessions) -> None:
    server = make_server()
    players = [await make_user(sessions) for _ in range(2)]
    newcomer = await make_user(sessions)
    await _rated(sessions, players, [30, 101])
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        played = await http.get(f"/u/{players[0].nickname}")
        fresh = await http.get(f"/u/{newcomer.nickname}")
        russian = await http.get(f"/u/{newcomer.nickname}", headers={"accept-language": "ru"})
    line = re.search(r'data-testid="profile-kozel-rating" data-rating="(-?\d+)" '
                     r'data-matches="(\d+)"', played.text)
    assert line and line.groups() == ("7", "1")
    assert 'data-testid="profile-rating"' in played.text  # the Georgian rating as before
    assert "Kozel rating" in played.text and "No Kozel matches yet." not in played.text
    assert 'data-matches="0"' in fresh.text and "No Kozel matches yet." in fresh.text
    assert "«Козёл»" in russian.text and "Матчей в «Козла» пока нет." in russian.text


async def test_a_guest_has_no_kozel_rating_either(make_server, sessions) -> None:
    server = make_server()
    guest = await make_user(sessions, kind="guest")
    visitor = await signed_in(server.base_url, guest)
    page = await visitor.http.get(f"/u/{guest.nickname}")
    assert page.status_code == 200
    assert 'data-testid="profile-kozel-rating"' not in page.text
    await visitor.__aexit__(None, None, None)
