"""kozel.md §5-§7, one rule case per test: counts, remembered points, fish, pairs, the end of
the match, forfeits, the rating change."""

from __future__ import annotations

import random

import pytest

from kva.kozel import Match, Options, rating_changes, score_hand, side_counts


def out(counts: list[int], by: int, score: list[int], kept: list[int], carry: int = 0,
        fish: str = "all") -> tuple[tuple[int, ...], tuple[int, ...], int]:
    r = score_hand(counts, end="out", out_side=by, fish=fish, score=score, remembered=kept,
                   carry=carry)
    return r.score, r.remembered, r.carry


def fish(counts: list[int], rule: str, score: list[int], kept: list[int], carry: int = 0
         ) -> tuple[str, tuple[int, ...], tuple[int, ...], int]:
    r = score_hand(counts, end="fish", out_side=None, fish=rule, score=score, remembered=kept,
                   carry=carry)
    return r.end, r.score, r.remembered, r.carry


def test_a_count_of_twelve_or_less_is_remembered_before_the_account_opens() -> None:
    assert out([0, 12], 0, [0, 0], [0, 5]) == ((0, 0), (0, 17), 0)


def test_remembered_points_may_grow_past_twelve() -> None:
    assert out([0, 9], 0, [0, 0], [0, 10]) == ((0, 0), (0, 19), 0)


def test_a_count_of_thirteen_opens_the_account_with_the_remembered_points() -> None:
    assert out([0, 13], 0, [0, 0], [0, 11]) == ((0, 24), (0, 0), 0)


def test_once_open_every_count_is_added_however_small() -> None:
    assert out([0, 2], 0, [0, 30], [0, 0]) == ((0, 32), (0, 0), 0)


def test_the_player_who_goes_out_loses_his_remembered_points() -> None:
    assert out([0, 3], 0, [0, 0], [9, 0]) == ((0, 0), (0, 3), 0)


def test_fish_for_all_scores_every_count_and_nobody_loses_remembered_points() -> None:
    assert fish([5, 20, 3], "all", [0, 0, 40], [6, 1, 0]) == (
        "fish", (0, 21, 43), (11, 0, 0), 0)


def test_fish_for_one_gives_the_largest_count_the_sum_and_clears_the_others() -> None:
    assert fish([5, 8, 3], "one", [0, 0, 40], [6, 1, 0]) == ("fish", (0, 16 + 1, 40), (0, 0, 0), 0)


def test_fish_for_one_below_thirteen_is_remembered_by_the_taker() -> None:
    assert fish([2, 3, 4], "one", [0, 0, 0], [1, 1, 1]) == ("fish", (0, 0, 0), (0, 0, 10), 0)


def test_a_tied_fish_for_one_is_drawn_and_its_sum_carried() -> None:
    assert fish([7, 7, 3], "one", [0, 20, 0], [4, 0, 2]) == ("drawn-fish", (0, 20, 0),
                                                              (4, 0, 2), 17)


def test_a_fish_drawn_again_adds_its_sum_to_the_carry() -> None:
    assert fish([6, 6], "one", [0, 0], [0, 0], carry=17) == ("drawn-fish", (0, 0), (0, 0), 29)


def test_the_carry_goes_to_the_largest_count_of_a_fish_for_one() -> None:
    assert fish([6, 1], "one", [0, 0], [0, 0], carry=10) == ("fish", (17, 0), (0, 0), 0)


def test_the_carry_goes_to_the_largest_count_among_the_scored_after_going_out() -> None:
    assert out([0, 4, 9], 0, [0, 0, 0], [0, 0, 0], carry=20, fish="one") == (
        (0, 0, 29), (0, 4, 0), 0)


def test_the_carry_waits_when_the_largest_count_is_shared() -> None:
    assert out([0, 9, 9], 0, [0, 0, 0], [0, 0, 0], carry=20, fish="one") == (
        (0, 0, 0), (0, 9, 9), 20)


def test_a_pair_counts_both_partners() -> None:
    assert side_counts([[0, 2], [1, 3]], [4, 5, 6, 7]) == (10, 12)


def test_when_a_partner_goes_out_the_other_partners_tiles_count_for_nobody() -> None:
    assert side_counts([[0, 2], [1, 3]], [0, 5, 30, 7], out_seat=0) == (0, 12)


def test_in_the_pair_game_fish_for_one_the_larger_pair_takes_all() -> None:
    counts = side_counts([[0, 2], [1, 3]], [4, 5, 6, 7])
    assert fish(list(counts), "one", [0, 0], [3, 3]) == ("fish", (0, 25), (0, 0), 0)


def test_partners_sit_opposite() -> None:
    assert Options(pairs=True).sides(4) == ((0, 2), (1, 3))
    match = Match(4, Options(pairs=True), rng=random.Random(1))
    assert match.side_of == (0, 1, 0, 1)


def test_the_pair_game_needs_four_players() -> None:
    with pytest.raises(ValueError, match="four players"):
        Match(3, Options(pairs=True), rng=random.Random(1))


def test_the_match_ends_when_a_score_reaches_the_limit_and_every_side_past_it_is_a_goat() -> None:
    for seed in range(400):
        match = Match(3, rng=random.Random(seed))
        chooser = random.Random(seed)
        while not match.over:
            match.apply(chooser.choice(match.legal(match.turn)))
        if len(match.losers) > 1:
            break
    assert all(match.score[s] >= 101 for s in match.losers)
    assert all(match.score[s] < 101 for s in range(3) if s not in match.losers)
    assert all(max(h.score) < 101 for h in match.hands[:-1])


def test_the_others_are_ranked_by_score_lowest_first() -> None:
    match = Match(4, rng=random.Random(2))
    chooser = random.Random(2)
    while not match.over:
        match.apply(chooser.choice(match.legal(match.turn)))
    ranking = match.standings()
    winners = [s for s in ranking if s not in match.losers]
    assert [match.score[s] for s in winners] == sorted(match.score[s] for s in winners)
    assert set(ranking[len(winners):]) == set(match.losers)


@pytest.mark.parametrize("reason", ["time", "resign", "abandon"])
def test_a_forfeit_ends_the_match_and_its_hand_scores_nothing(reason: str) -> None:
    match = Match(4, Options(pairs=True), rng=random.Random(3))
    chooser = random.Random(3)
    while len(match.hands) < 2:
        match.apply(chooser.choice(match.legal(match.turn)))
    before = (match.score, match.remembered)
    match.forfeit(3, reason)
    result = match.current.result
    assert match.over and match.losers == (1,)
    assert result is not None and result.scored == (0, 0) and result.reason == reason
    assert (match.score, match.remembered) == before


def test_a_forfeit_needs_a_known_reason() -> None:
    match = Match(2, rng=random.Random(3))
    with pytest.raises(ValueError, match="time, resign or abandon"):
        match.forfeit(0, "bored")
    assert not match.over


def test_no_action_is_taken_after_the_match_is_over() -> None:
    match = Match(2, rng=random.Random(3))
    match.forfeit(1, "resign")
    with pytest.raises(ValueError, match="the match is over"):
        match.apply(0)


def test_the_rating_change_rounds_halves_away_from_zero() -> None:
    assert rating_changes([25, 105, 95, 100]) == [8, -1, 1, 0]


def test_after_a_time_loss_each_other_player_gets_at_least_one() -> None:
    assert rating_changes([50, 10, 20, 80], time_loser=1) == [1, 0, 1, 1]


def test_a_match_needs_a_seeded_rng_or_a_dealer() -> None:
    with pytest.raises(ValueError, match="rng"):
        Match(2)


@pytest.mark.parametrize("options", [dict(fish="some"), dict(limit=0), dict(pairs="yes")])
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Options(**options)  # type: ignore[arg-type]


def test_in_the_pair_game_each_partner_gets_his_pairs_rating_change() -> None:
    match = Match(4, Options(pairs=True), rng=random.Random(5))
    chooser = random.Random(5)
    while not match.over:
        match.apply(chooser.choice(match.legal(match.turn)))
    changes = rating_changes(match.seat_scores())
    assert changes[0] == changes[2] and changes[1] == changes[3]
    assert match.seat_scores() == [match.score[0], match.score[1]] * 2


def test_options_read_from_json_with_clear_errors() -> None:
    assert Options.from_json({}) == Options()
    assert Options.from_json({"fish": "one", "pairs": True, "limit": 101}) == Options(
        fish="one", pairs=True)
    for bad in ([], {"fish": 1}, {"pairs": "no"}, {"limit": "101"}, {"goat": 1}):
        with pytest.raises(ValueError):
            Options.from_json(bad)


def test_after_a_time_loss_in_the_pair_game_the_losers_partner_gets_nothing_too() -> None:
    assert rating_changes([40, 25, 40, 25], time_loser=2, partners=[[0, 2], [1, 3]]) == [
        0, 2, 0, 2]
