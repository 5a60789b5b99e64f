"""How hard values a table: each side's chance of becoming the козёл."""

from __future__ import annotations

from kva.bots.kozel.value import goat_chance


def test_a_side_at_or_past_the_limit_is_the_goat_and_the_others_are_safe() -> None:
    score, remembered = (101, 40, 99), (0, 0, 0)
    assert [goat_chance(s, score, remembered, 101) for s in range(3)] == [1.0, 0.0, 0.0]


def test_the_chances_of_all_sides_add_up_to_one() -> None:
    score, remembered = (30, 55, 0, 70), (0, 0, 9, 0)
    assert abs(sum(goat_chance(s, score, remembered, 101) for s in range(4)) - 1.0) < 1e-9


def test_the_side_nearer_the_limit_is_likelier_the_goat() -> None:
    assert goat_chance(0, (60, 40), (0, 0), 101) > goat_chance(1, (60, 40), (0, 0), 101)


def test_equal_sides_are_equally_likely_the_goat() -> None:
    assert goat_chance(2, (20, 20, 20), (0, 0, 0), 101) == 1 / 3


def test_remembered_points_count_against_a_side() -> None:
    assert goat_chance(0, (0, 0), (12, 0), 101) > 0.5


def test_the_same_gap_matters_more_near_the_limit() -> None:
    early = goat_chance(0, (20, 0), (0, 0), 101)
    late = goat_chance(0, (95, 75), (0, 0), 101)
    assert late > early > 0.5
