"""A rated match between two registered players over the real WebSocket: both ratings move
in the transaction that ends it, and the profile, the rating table, both histories, the
replay and the export all show it. Casual matches move nothing."""

from __future__ import annotations

import json
import re

from kva.rules import verify_record
from tests.helpers.community_help import make_user, signed_in, store_match
from tests.helpers.webhelp import play_out


def _attr(html: str, testid: str, attr: str) -> str:
    found = re.search(rf'data-testid="{testid}"[^>]*?{attr}="([^"]*)"', html)
    assert found, f"no {testid}[{attr}] in the page"
    return found.group(1)


async def test_a_rated_match_moves_both_ratings_and_shows_everywhere(
    make_server, database, sessions
) -> None:
    server = make_server()
    a, b = await make_user(sessions), await make_user(sessions)
    match_id = await store_match(database, [(a, None), (b, None)], rated=True)
    va, vb = await signed_in(server.base_url, a), await signed_in(server.base_url, b)
    sa, sb = await va.connect(match_id), await vb.connect(match_id)
    await play_out([sa, sb])
    end = sa.state["event"]
    assert end["kind"] == "match_end"
    winner = sa.state["view"]["winner"]
    before = [r["before"] for r in end["ratings"]]
    after = [r["after"] for r in end["ratings"]]
    assert before == [1500, 1500] and after[winner] > 1500 > after[1 - winner]
    assert sb.state["event"]["ratings"] == end["ratings"]
    # A page opened after the end hears the change right after its hello.
    late = await vb.connect(match_id)
    told = await late.wait_for(lambda m: m.get("type") == "ratings")
    assert told["ratings"] == end["ratings"]
    await late.close()

    for user, seat in ((a, 0), (b, 1)):
        page = await va.http.get(f"/u/{user.nickname}")
        assert page.status_code == 200
        assert int(_attr(page.text, "profile-rating", "data-rating")) == after[seat]
        assert _attr(page.text, "profile-rating", "data-provisional") == "true"
        assert _attr(page.text, "rating-graph", "data-points") == "2"
        wins = int(re.search(r'data-testid="wins">(\d+)<', page.text).group(1))
        losses = int(re.search(r'data-testid="losses">(\d+)<', page.text).group(1))
        assert (wins, losses) == ((1, 0) if seat == winner else (0, 1))
        history = await vb.http.get(f"/u/{user.nickname}/matches")
        row = re.search(rf'<li[^>]*data-match-id="{match_id}"[^>]*>', history.text)
        assert row, "the match is missing from the history"
        assert 'data-rated="true"' in row.group(0)
        assert f'data-result="{"win" if seat == winner else "loss"}"' in row.group(0)
        assert f'href="/m/{match_id}/replay"' in history.text
        export = await va.http.get(f"/u/{user.nickname}/records.json")
        assert export.status_code == 200
        assert export.headers["content-type"].startswith("application/json")
        assert "attachment" in export.headers["content-disposition"]
        docs = json.loads(export.content)
        mine = [d for d in docs if d["meta"]["match_id"] == match_id]
        assert len(mine) == 1 and mine[0]["meta"]["rated"] is True
        verify_record(mine[0])

    table = await va.http.get("/ratings")
    for user, seat in ((a, 0), (b, 1)):
        line = re.search(rf'<tr data-testid="leaderboard-row" data-nickname="{user.nickname}"'
                         r' data-rating="(\d+)"', table.text)
        assert line and int(line.group(1)) == after[seat]
    replay = await vb.http.get(f"/m/{match_id}/replay")
    assert replay.status_code == 200
    for sock in (sa, sb):
        await sock.close()
    await va.__aexit__(None, None, None)
    await vb.__aexit__(None, None, None)


async def test_a_match_with_a_guest_stays_casual_even_if_flagged_rated(
    make_server, database, sessions
) -> None:
    server = make_server()
    a = await make_user(sessions)
    guest = await make_user(sessions, kind="guest")
    match_id = await store_match(database, [(guest, None), (a, None)], rated=True)
    va, vg = await signed_in(server.base_url, a), await signed_in(server.base_url, guest)
    sa, sg = await va.connect(match_id), await vg.connect(match_id)
    await sg.send({"type": "resign"})
    await sa.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
    assert "ratings" not in sa.state["event"]
    late = await va.connect(match_id)
    await late.send({"type": "ping"})
    await late.wait_for(lambda m: m.get("type") == "pong")
    assert not [m for m in late.messages if m.get("type") == "ratings"]
    await late.close()
    page = await va.http.get(f"/u/{a.nickname}")
    assert _attr(page.text, "profile-rating", "data-rating") == "1500"
    assert 'data-testid="rating-graph"' not in page.text
    row = re.search(rf'<li[^>]*data-match-id="{match_id}"[^>]*>', page.text)
    assert row and 'data-rated="false"' in row.group(0) and 'data-result="win"' in row.group(0)
    # The guest's own page exists for the guest only.
    assert (await vg.http.get(f"/u/{guest.nickname}")).status_code == 200
    assert (await va.http.get(f"/u/{guest.nickname}")).status_code == 404
    assert (await va.http.get(f"/u/{guest.nickname}/records.json")).status_code == 404
    for sock in (sa, sg):
        await sock.close()
    await va.__aexit__(None, None, None)
    await vg.__aexit__(None, None, None)
