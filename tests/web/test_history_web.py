"""History, profile and export pages: paging, locale formatting, privacy of guests, and clear
refusals of bad input."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import httpx

from kva.service import history
from tests.helpers.community_help import finished_match, make_user, signed_in


async def test_history_pages_newest_first_with_local_dates(make_server, sessions,
                                                           monkeypatch) -> None:
    monkeypatch.setattr(history, "PER_PAGE", 2)
    server = make_server()
    me, rival = await make_user(sessions), await make_user(sessions)
    t0 = datetime(2026, 3, 5, 14, 30, tzinfo=UTC)
    rows = [await finished_match(sessions, me, rival, finished_at=t0 + timedelta(days=i),
                                 rated=False) for i in range(3)]
    async with httpx.AsyncClient(base_url=server.base_url,
                                 headers={"accept-language": "ru"}) as http:
        first = await http.get(f"/u/{me.nickname}/matches")
        second = await http.get(f"/u/{me.nickname}/matches", params={"page": "2"})
    ids = re.findall(r'data-testid="history-row" data-match-id="([^"]+)"', first.text)
    assert ids == [rows[2].id, rows[1].id]
    assert re.findall(r'data-testid="history-row" data-match-id="([^"]+)"',
                      second.text) == [rows[0].id]
    assert 'rel="next"' in first.text and 'rel="prev"' in second.text
    # Russian short dates put the day first: 5 March 2026 is "05.03.2026".
    assert "05.03.2026" in second.text


async def test_pages_refuse_bad_input_clearly(make_server, sessions) -> None:
    server = make_server()
    me = await make_user(sessions)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        for path, status in (
            ("/u/nobody-here-" + me.nickname, 404),
            ("/u/" + "x" * 41, 404),
            ("/u/" + "x" * 41 + "/matches", 404),
            ("/u/" + "x" * 41 + "/records.json", 404),
            (f"/u/{me.nickname}/matches?page=0", 400),
            (f"/u/{me.nickname}/matches?page=abc", 400),
            ("/ratings?page=-1", 400),
            ("/ratings?page=99999999999", 400),
        ):
            response = await http.get(path)
            assert response.status_code == status, path
            assert 'data-testid="error"' in response.text
        assert (await http.get("/ratings?page=2")).status_code == 200
        empty = await http.get(f"/u/{me.nickname}/records.json")
        assert json.loads(empty.content) == []


async def test_a_guest_sees_and_exports_their_own_history(make_server, sessions) -> None:
    server = make_server()
    guest = await make_user(sessions, kind="guest")
    row = await finished_match(sessions, guest, None, bots=(None, "easy"), rated=False)
    visitor = await signed_in(server.base_url, guest)
    page = await visitor.http.get(f"/u/{guest.nickname}")
    assert page.status_code == 200 and row.id in page.text
    assert 'data-testid="profile-rating"' not in page.text  # guests have no rating
    export = await visitor.http.get(f"/u/{guest.nickname}/records.json")
    assert [d["meta"]["match_id"] for d in json.loads(export.content)] == [
        row.record["meta"]["match_id"]]
    await visitor.__aexit__(None, None, None)


async def test_a_kozel_row_names_the_game_the_players_the_place_and_the_goat(
    make_server, sessions,
) -> None:
    from tests.helpers.kozel_finished import finished_kozel_match

    server = make_server()
    me, friend = await make_user(sessions), await make_user(sessions)
    row = await finished_kozel_match(sessions, [me, friend, "easy"], goat=0)
    async with httpx.AsyncClient(base_url=server.base_url,
                                 headers={"accept-language": "ru"}) as http:
        page = await http.get(f"/u/{me.nickname}/matches")
    assert page.status_code == 200
    [li] = re.findall(r'<li class="history-row history-kozel.*?</li>', page.text, re.S)
    assert f'data-match-id="{row.id}"' in li and 'data-result="loss"' in li
    assert 'data-place="3"' in li and 'data-goat="true"' in li
    assert "Козёл" in li and "Место 3 из 3" in li and friend.nickname in li
    assert f"/m/{row.id}/replay" in li
