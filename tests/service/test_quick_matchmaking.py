"""The quick-game pairing rules (kva.service.lobby.matchmaking): pure, so plain numbers suffice."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kva.service.lobby.matchmaking import (
    BOT_OFFER_AFTER,
    RANGE_MAX,
    Seeker,
    compatible,
    offer_bot,
    pair,
    rating_range,
)


def seeker(uid: int, rating: float = 1500, since: float = 0.0, target: int = 175,
           bazaar: str = "draw", rated: bool = False) -> Seeker:
    return Seeker(uid, rating, target, bazaar, rated, since)


@pytest.mark.parametrize(("waited", "expected"), [
    (0, 100), (4.99, 100), (5, 150), (9.9, 150), (10, 200), (29.9, 350), (30, 400),
    (100, 600), (10_000, 600),
])
def test_range_grows_by_50_every_5_seconds_up_to_600(waited: float, expected: float) -> None:
    assert rating_range(waited) == expected


@pytest.mark.parametrize("bad", [-1, -0.001, math.nan])
def test_range_of_a_negative_wait_is_an_error(bad: float) -> None:
    with pytest.raises(ValueError):
        rating_range(bad)


def test_same_rating_and_settings_pair_at_once() -> None:
    a, b = seeker(1, 1500, since=10), seeker(2, 1520, since=10)
    assert pair([a, b], now=10) == [(a, b)]


@pytest.mark.parametrize("other", [
    seeker(2, target=75), seeker(2, bazaar="pass-only"), seeker(2, rated=True),
])
def test_different_settings_never_pair(other: Seeker) -> None:
    me = seeker(1)
    for now in (0, 30, 10_000):
        assert pair([me, other], now) == []
        assert not compatible(me, other, now)


def test_gap_closes_as_the_longer_waiter_waits() -> None:
    old = seeker(1, 1500, since=0)
    new = seeker(2, 1730, since=14)  # gap 230
    assert pair([old, new], now=14) == []       # old waited 14 s: ±200
    assert pair([old, new], now=14.99) == []
    assert pair([old, new], now=15) == [(old, new)]  # 15 s: ±250


def test_newcomer_alone_does_not_widen() -> None:
    a, b = seeker(1, 1500, since=100), seeker(2, 1650, since=100)  # gap 150
    assert pair([a, b], now=104) == []
    assert pair([a, b], now=105) == [(a, b)]


def test_never_beyond_the_widest_range() -> None:
    a, b = seeker(1, 1000, since=0), seeker(2, 1000 + RANGE_MAX + 1, since=0)
    assert pair([a, b], now=1e6) == []


def test_longest_waiter_first_and_closest_rating_wins() -> None:
    oldest = seeker(1, 1500, since=0)
    far = seeker(2, 1590, since=1)
    near = seeker(3, 1480, since=2)
    fourth = seeker(4, 1600, since=3)
    pairs = pair([fourth, near, far, oldest], now=3)
    assert pairs == [(oldest, near), (far, fourth)]


def test_nobody_is_paired_twice_or_with_themselves() -> None:
    with pytest.raises(ValueError):
        pair([seeker(1), seeker(1, since=3)], now=5)
    assert pair([seeker(7)], now=1000) == []


def test_bot_offered_after_30_seconds() -> None:
    s = seeker(1, since=100)
    assert not offer_bot(s, 100 + BOT_OFFER_AFTER - 0.01)
    assert offer_bot(s, 100 + BOT_OFFER_AFTER)
    assert BOT_OFFER_AFTER == 30


def test_same_inputs_same_pairs_whatever_the_order() -> None:
    rng = random.Random(5)
    queue = [seeker(i, rng.uniform(1200, 1800), since=rng.uniform(0, 20),
                    target=rng.choice([75, 175])) for i in range(40)]
    expected = pair(queue, now=25)
    for _ in range(5):
        rng.shuffle(queue)
        assert pair(queue, now=25) == expected


@given(st.lists(st.tuples(st.floats(800, 2400), st.floats(0, 60), st.sampled_from([75, 175]),
                          st.booleans()), max_size=30),
       st.floats(0, 120))
def test_every_pair_is_valid_and_no_valid_pair_is_left(
    rows: list[tuple[float, float, int, bool]], now: float
) -> None:
    queue = [seeker(i, r, since=s, target=t, rated=rated)
             for i, (r, s, t, rated) in enumerate(rows)]
    pairs = pair(queue, now)
    seen: set[int] = set()
    for a, b in pairs:
        assert compatible(a, b, now)
        assert (a.since, a.user_id) <= (b.since, b.user_id)
        assert a.user_id not in seen and b.user_id not in seen
        seen.update((a.user_id, b.user_id))
    left = [s for s in queue if s.user_id not in seen]
    for i, a in enumerate(left):
        for b in left[i + 1:]:
            assert not compatible(a, b, now), (a, b)
