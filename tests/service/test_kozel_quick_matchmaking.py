"""Kozel quick-game tables (kva.service.lobby.matchmaking.group): pure, plain numbers suffice."""

from __future__ import annotations

import pytest

from kva.service.lobby.matchmaking import TableSeeker, fill_table, group, offer_bots


def seeker(uid: int, rating: float = 0.0, since: float = 0.0, seats: int = 3,
           fish: str = "all") -> TableSeeker:
    return TableSeeker(uid, rating, seats, fish, since)


def ids(tables: list[tuple[TableSeeker, ...]]) -> list[list[int]]:
    return [[s.user_id for s in table] for table in tables]


@pytest.mark.parametrize("seats", [3, 4])
def test_a_full_group_starts_with_everyone(seats: int) -> None:
    queue = [seeker(uid, since=uid, seats=seats) for uid in range(1, seats + 1)]
    assert ids(group(queue, now=10)) == [list(range(1, seats + 1))]


@pytest.mark.parametrize("seats", [3, 4])
def test_one_short_starts_nobody(seats: int) -> None:
    queue = [seeker(uid, seats=seats) for uid in range(1, seats)]
    assert group(queue, now=10) == []


def test_seats_and_fish_rule_must_match() -> None:
    queue = [seeker(1), seeker(2), seeker(3, seats=4), seeker(4, fish="one")]
    assert group(queue, now=0) == []


def test_rating_window_widens_with_the_wait() -> None:
    queue = [seeker(1, rating=0), seeker(2, rating=50), seeker(3, rating=180)]
    assert group(queue, now=0) == []
    # After 10 s the range is ±200: everyone fits everyone.
    assert ids(group(queue, now=10)) == [[1, 2, 3]]


def test_closest_ratings_are_chosen_and_the_rest_wait() -> None:
    queue = [seeker(1, rating=0), seeker(2, rating=90), seeker(3, rating=10),
             seeker(4, rating=20, since=1)]
    assert ids(group(queue, now=1)) == [[1, 3, 4]]


def test_four_seats_make_two_tables_from_eight() -> None:
    queue = [seeker(uid, rating=uid * 10, since=uid, seats=4) for uid in range(1, 9)]
    assert ids(group(queue, now=8)) == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_duplicates_and_bad_seat_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        group([seeker(1), seeker(1)], now=0)
    with pytest.raises(ValueError):
        group([seeker(1, seats=2)], now=0)


def test_bots_are_offered_after_the_wait() -> None:
    waiting = seeker(1, since=100)
    assert not offer_bots(waiting, now=119.9, after_s=20)
    assert offer_bots(waiting, now=120, after_s=20)


def test_a_short_table_holds_the_players_found_so_far() -> None:
    me = seeker(1, seats=4)
    others = [seeker(2, rating=500, seats=4), seeker(3, rating=30, seats=4), seeker(4)]
    assert [s.user_id for s in fill_table(me, others, now=0)] == [1, 3]
