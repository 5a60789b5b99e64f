"""A rated match's rating change says whether each rating was provisional (Glicko-2 RD above
110), so the result page can explain a new player's large swing."""

from __future__ import annotations

from kva.ratings import PROVISIONAL_RD, Rating
from kva.service.ratings import change_message
from tests.helpers.community_help import make_user, signed_in, store_match
from tests.helpers.webhelp import play_out


def test_a_rating_above_the_rd_limit_is_marked_provisional() -> None:
    entry = change_message(Rating(1500, 350), Rating(1662, 290))
    assert entry == {"before": 1500, "after": 1662, "rd": 350, "provisional": True}


def test_an_established_rating_is_not_marked_provisional() -> None:
    entry = change_message(Rating(1710, PROVISIONAL_RD), Rating(1702, 109))
    assert entry == {"before": 1710, "after": 1702, "rd": 110, "provisional": False}


async def test_the_end_of_a_rated_match_tells_each_seat_whether_it_was_provisional(
    make_server, database, sessions
) -> None:
    server = make_server()
    newcomer = await make_user(sessions)
    veteran = await make_user(sessions, rating=1500.0, rating_deviation=60.0)
    match_id = await store_match(database, [(newcomer, None), (veteran, None)], rated=True)
    va, vb = await signed_in(server.base_url, newcomer), await signed_in(server.base_url, veteran)
    try:
        sa, sb = await va.connect(match_id), await vb.connect(match_id)
        await play_out([sa, sb])
        ratings = sa.state["event"]["ratings"]
        assert [(r["rd"], r["provisional"]) for r in ratings] == [(350, True), (60, False)]
        # the newcomer's swing is the larger one: that is what the note explains
        swings = [abs(r["after"] - r["before"]) for r in ratings]
        assert swings[0] > swings[1]
        late = await va.connect(match_id)  # a page opened after the end is told the same
        told = await late.wait_for(lambda m: m.get("type") == "ratings")
        assert told["ratings"] == ratings
        page = await va.http.get(f"/m/{match_id}")
        assert 'data-testid="rating-provisional"' in page.text
        assert f"above {int(PROVISIONAL_RD)}" in page.text and "{rd}" in page.text
        for sock in (sa, sb, late):
            await sock.close()
    finally:
        await va.__aexit__(None, None, None)
        await vb.__aexit__(None, None, None)
