"""kozel.md's worked examples, verbatim, against the scoring and rating functions."""

from __future__ import annotations

from kva.kozel import rating_changes, score_hand, seat_count
from kva.rules import parse_tile
from kva.rules.engine import mask_of


def test_example_1_going_out_table() -> None:
    """Masha goes out with +19 remembered: she is 0, remembered 0. Alex (nothing yet) counts 3:
    remembered +3. Olya (+7) counts 13: her account opens at 20. Serg (+4) counts 5:
    remembered +9."""
    r = score_hand([0, 3, 13, 5], end="out", out_side=0, fish="all",
                   score=[0, 0, 0, 0], remembered=[19, 0, 7, 4], carry=0)
    assert r.end == "out"
    assert r.score == (0, 0, 20, 0)
    assert r.remembered == (0, 3, 0, 9)
    assert r.scored == (0, 0, 20, 0)


def test_example_2_fish_for_one() -> None:
    """Counts Masha 2, Alex 3, Olya 13, Serg 5, sum 23. Olya has the largest count and takes 23:
    her account opens at 23 + 7 remembered = 30. The others' remembered points become 0."""
    r = score_hand([2, 3, 13, 5], end="fish", out_side=None, fish="one",
                   score=[0, 0, 0, 0], remembered=[19, 3, 7, 9], carry=0)
    assert r.score == (0, 0, 30, 0)
    assert r.remembered == (0, 0, 0, 0)


def test_example_3_tied_fish_for_one_is_carried_to_the_next_largest_count() -> None:
    """Counts 4, 14, 14, 3 in «рыба на одного»: a draw, 35 carried. The next hand ends by going
    out with counts 0, 6, 9, 2: the player with 9 scores 9 + 35 = 44 (it opens his account,
    with his remembered points added)."""
    drawn = score_hand([4, 14, 14, 3], end="fish", out_side=None, fish="one",
                       score=[0, 0, 0, 0], remembered=[1, 2, 5, 0], carry=0)
    assert drawn.end == "drawn-fish"
    assert drawn.carry == 35
    assert drawn.score == (0, 0, 0, 0) and drawn.remembered == (1, 2, 5, 0)
    after = score_hand([0, 6, 9, 2], end="out", out_side=0, fish="one",
                       score=drawn.score, remembered=drawn.remembered, carry=drawn.carry)
    assert after.scored[2] == 44 + 5
    assert after.score == (0, 0, 49, 0)
    assert after.remembered == (0, 8, 0, 2)
    assert after.carry == 0


def test_example_4_lone_double_blank_counts_ten() -> None:
    """A player holding only 0-0 counts 10; holding 0-0 and 1-2 he counts 3."""
    assert seat_count(mask_of([parse_tile("0-0")])) == 10
    assert seat_count(mask_of([parse_tile("0-0"), parse_tile("1-2")])) == 3


def test_example_5_rating_after_a_finished_match() -> None:
    """Final scores 25, 40, 61, 105: changes +8 (7.5 rounds to 8), +6, +4 (3.9), −1 (−0.5
    rounds to −1, the козёл)."""
    assert rating_changes([25, 40, 61, 105]) == [8, 6, 4, -1]


def test_example_5_rating_after_a_time_loss() -> None:
    """Stopped by Alex's time loss at 32: Masha (30) gets 1 (0.2, at least 1), Olya (13) gets 2
    (1.9), Alex nothing."""
    assert rating_changes([30, 32, 13], time_loser=1) == [1, 0, 2]
