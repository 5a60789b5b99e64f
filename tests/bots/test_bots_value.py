"""Match-win chances: finished matches are certain, level scores even, more points better."""

from __future__ import annotations

from kva.bots.value import match_win_chance


def test_a_finished_match_is_won_or_lost_and_a_level_finish_is_a_coin_flip() -> None:
    assert match_win_chance(180, 170, 175) == 1.0
    assert match_win_chance(170, 180, 175) == 0.0
    assert match_win_chance(180, 180, 175) == 0.5


def test_level_scores_are_even_and_symmetric() -> None:
    for target in (75, 175, 255, 355):
        for score in range(0, target, 25):
            assert abs(match_win_chance(score, score, target) - 0.5) < 1e-9
            a = match_win_chance(score + 5, score, target)
            b = match_win_chance(score, score + 5, target)
            assert abs(a + b - 1.0) < 1e-9


def test_more_points_never_lower_the_chance() -> None:
    target = 175
    for theirs in range(0, target, 10):
        chances = [match_win_chance(mine, theirs, target) for mine in range(0, target, 5)]
        assert chances == sorted(chances)
    assert match_win_chance(170, 100, 175) > 0.9
