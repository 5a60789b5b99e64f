"""Finished Kozel matches in a player's history and counts: the game, every other player,
the player's place and whether they were the козёл (a Kozel match is a win unless one is the
козёл), and the home page's match list reads a Kozel record's per-side scores."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.games.standing import kozel_place, seat_scores
from kva.service import history
from kva.storage.models import utcnow
from tests.helpers.community_help import finished_match, make_user
from tests.helpers.kozel_finished import finished_kozel_match, kozel_record


def test_a_place_ranks_the_goats_last_and_the_others_by_score() -> None:
    record = {"format": "kozel/1", "sides": [[0], [1], [2]], "loser": [1],
              "score": [40, 104, 12]}
    assert [kozel_place(record, 3, s) for s in range(3)] == [(2, False), (3, True), (1, False)]
    pairs = {"format": "kozel/1", "sides": [[0, 2], [1, 3]], "loser": [0], "score": [101, 30]}
    assert [kozel_place(pairs, 4, s) for s in range(4)] == [
        (2, True), (1, False), (2, True), (1, False)]
    assert seat_scores(pairs, 4) == [101, 30, 101, 30]
    tie = {"format": "kozel/1", "sides": [[0], [1], [2]], "loser": [2], "score": [5, 5, 101]}
    assert [kozel_place(tie, 3, s)[0] for s in range(3)] == [1, 1, 3]


async def test_a_finished_kozel_match_is_listed_with_its_place_and_goat(
    sessions: async_sessionmaker,
) -> None:
    me, friend = await make_user(sessions), await make_user(sessions)
    t0 = utcnow() - timedelta(hours=2)
    georgian = await finished_match(sessions, me, friend, winner=0, finished_at=t0)
    goat = await finished_kozel_match(sessions, [me, friend, "easy"], goat=0,
                                      finished_at=t0 + timedelta(minutes=1))
    not_goat = await finished_kozel_match(sessions, [friend, me, "hard"], goat=0,
                                          finished_at=t0 + timedelta(minutes=2))
    async with sessions() as session:
        lines, total = await history.history(session, me.id)
        tally = await history.counts(session, me.id)
        friends = await history.counts(session, friend.id)
    assert total == 3 and [line.id for line in lines] == [not_goat.id, goat.id, georgian.id]
    won, lost, g = lines
    assert (g.game, g.result, g.opponent, g.place, g.others) == (
        "georgian", "win", friend.nickname, None, ())
    assert (lost.game, lost.result, lost.goat, lost.place) == ("kozel", "loss", True, 3)
    assert [(o.nickname, o.bot) for o in lost.others] == [
        (friend.nickname, None), (None, "easy")]
    assert lost.score == (goat.record["score"][0], 25) and lost.target == 25
    assert (won.result, won.goat) == ("win", False)
    assert won.place == kozel_place(not_goat.record, 3, 1)[0]
    assert [(o.nickname, o.bot) for o in won.others] == [(friend.nickname, None), (None, "hard")]
    # one Georgian win, one Kozel loss (the goat), one Kozel win (not the goat)
    assert (tally.wins, tally.losses, tally.draws) == (2, 1, 0)
    assert (friends.wins, friends.losses, friends.draws) == (1, 2, 0)


async def test_the_home_list_of_a_pair_game_shows_each_partner_its_pairs_score(
    sessions: async_sessionmaker, play,  # type: ignore[no-untyped-def]
) -> None:
    me = await make_user(sessions)
    row = await finished_kozel_match(sessions, ["easy", me, "easy", "easy"], pairs=True)
    [summary] = await play.matches_of(me.id)
    assert summary.id == row.id and summary.seat == 1
    assert summary.score == (row.record["score"][1], row.record["score"][0])
    assert summary.target == 25  # the limit, from the record


def test_a_seeded_record_is_the_same_each_time() -> None:
    assert kozel_record(3, 7, ["a", "b", "c"]) == kozel_record(3, 7, ["a", "b", "c"])


async def test_the_home_list_of_a_kozel_match_names_every_other_seat_and_how_it_went(
    sessions: async_sessionmaker, play,  # type: ignore[no-untyped-def]
) -> None:
    me, friend = await make_user(sessions), await make_user(sessions)
    row = await finished_kozel_match(sessions, [me, friend, "hard"])
    [summary] = await play.matches_of(me.id)
    assert summary.game == "kozel"
    assert [(o.nickname, o.bot) for o in summary.others] == [(friend.nickname, None),
                                                              (None, "hard")]
    assert summary.won == (not kozel_place(row.record, 3, 0)[1])
