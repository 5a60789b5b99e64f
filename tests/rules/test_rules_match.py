"""rules.md, "The match": targets, when it ends, ties at the target, forfeits."""

from __future__ import annotations

import random

import pytest

from kva.rules import TARGETS, IllegalAction, Match, MatchOver, verify_record, write_record
from tests.rules.ruleshelp import random_match


# ------------------------------------------------------------------ targets
@pytest.mark.parametrize("target", [75, 175, 255, 355])
def test_the_target_may_be_75_175_255_or_355(target: int) -> None:
    match = Match(target, rng=random.Random(1))
    assert match.target == target


@pytest.mark.parametrize("target", [0, 50, 100, 150, 200, 300, 500, -75, 76])
def test_no_other_target_is_allowed(target: int) -> None:
    with pytest.raises(ValueError, match="target"):
        Match(target, rng=random.Random(1))
    assert TARGETS == (75, 175, 255, 355)


def test_the_bazaar_rule_is_draw_or_pass_only() -> None:
    with pytest.raises(ValueError, match="bazaar"):
        Match(75, "pass_only", rng=random.Random(1))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(8))
def test_the_match_is_won_by_the_higher_score_once_someone_reaches_the_target(seed: int) -> None:
    match = random_match(seed, target=75)
    a, b = match.scores
    assert match.over and max(a, b) >= 75 and a != b
    assert match.winner == (0 if a > b else 1)
    # No earlier hand ended with the match decided.
    for played in match.hands[:-1]:
        assert played.score_after is not None
        x, y = played.score_after
        assert max(x, y) < 75 or x == y


# ------------------------------------------------------------------ only at the end of a hand
def _crossing_mid_hand() -> tuple[Match, random.Random]:
    """A match stopped right after a placement took a player past the target mid-hand, with
    the hand not over."""
    for seed in range(2000):
        chooser = random.Random(seed)
        match = Match(75, rng=random.Random(seed))
        while not match.over:
            match.apply(chooser.choice(match.legal_codes()))
            state = match.hand
            if (
                not state.over
                and any(match.scores[p] + state.points[p] >= 75 for p in (0, 1))
                and state.placed > 1
            ):
                return match, chooser
    raise AssertionError("no seed crosses the target mid-hand")


def test_the_match_ends_only_at_the_end_of_a_hand_even_past_the_target() -> None:
    match, chooser = _crossing_mid_hand()
    assert not match.over and match.winner is None and match.legal_codes()
    hands = len(match.hands)
    while len(match.hands) == hands and not match.over:
        match.apply(chooser.choice(match.legal_codes()))
    # The hand was played out; its end decides.
    assert match.hands[hands - 1].result is not None
    a, b = match.scores
    assert match.over == (max(a, b) >= 75 and a != b)


def _before_last_action(seed: int) -> tuple[Match, int, tuple[int, int]]:
    """A fresh match of ``seed`` stopped before the action that ends hand 1; returns the
    match, that action and what hand 1 scores for each player."""
    chooser = random.Random(seed)
    match = Match(75, rng=random.Random(seed))
    while True:
        code = chooser.choice(match.legal_codes())
        trial = match.hand.copy()
        trial.apply(code)
        if trial.over:
            gained = list(trial.points)
            if trial.winner is not None:
                gained[trial.winner] += trial.end_points
            return match, code, (gained[0], gained[1])
        match.apply(code)


def test_both_reaching_the_target_with_equal_scores_plays_another_hand() -> None:
    match, code, gained = _before_last_action(5)
    # As if earlier hands had scored: after this hand both players stand at 100.
    match.scores = [100 - gained[0], 100 - gained[1]]
    match.apply(code)
    assert match.scores == [100, 100]
    assert not match.over and match.winner is None and len(match.hands) == 2
    assert match.legal_codes()


def test_both_past_the_target_with_different_scores_the_higher_wins() -> None:
    match, code, gained = _before_last_action(5)
    match.scores = [90 - gained[0], 95 - gained[1]]
    match.apply(code)
    assert match.over and match.winner == 1 and len(match.hands) == 1


def test_equal_scores_below_the_target_play_on() -> None:
    match, code, gained = _before_last_action(5)
    match.scores = [70 - gained[0], 70 - gained[1]]
    match.apply(code)
    assert not match.over and len(match.hands) == 2


def test_after_a_tie_at_the_target_the_next_hand_decides_when_one_is_ahead() -> None:
    match, code, gained = _before_last_action(6)
    match.scores = [80 - gained[0], 80 - gained[1]]
    match.apply(code)
    chooser = random.Random(1)
    while not match.over:
        match.apply(chooser.choice(match.legal_codes()))
    a, b = match.scores
    assert a != b and match.winner == (0 if a > b else 1)
    for played in match.hands[1:-1]:  # every hand in between ended level again
        assert played.score_after is not None
        assert played.score_after[0] == played.score_after[1]


# ------------------------------------------------------------------ forfeit
@pytest.mark.parametrize("reason", ["resign", "timeout", "abandon"])
@pytest.mark.parametrize("loser", [0, 1])
def test_forfeit_ends_the_match_at_once_with_the_other_player_winning(
    reason: str, loser: int
) -> None:
    chooser = random.Random(3)
    match = Match(175, rng=random.Random(3))
    for _ in range(9):
        match.apply(chooser.choice(match.legal_codes()))
    scores = [match.scores[0] + match.hand.points[0], match.scores[1] + match.hand.points[1]]
    match.forfeit(loser, reason)  # type: ignore[arg-type]
    assert match.over and match.winner == 1 - loser and match.forfeit_reason == reason
    assert match.scores == scores and match.turn is None and match.legal_codes() == []
    result = match.hands[-1].result
    assert result is not None and (result.end, result.winner, result.reason) == (
        "forfeit",
        1 - loser,
        reason,
    )
    with pytest.raises(MatchOver):
        match.apply(match.hand.legal_codes()[0] if match.hand.legal_codes() else 0)
    with pytest.raises(MatchOver):
        match.forfeit(1 - loser)
    doc = write_record(match)
    assert doc["hands"][-1]["result"]["end"] == "forfeit"
    assert verify_record(doc).winner == 1 - loser


def test_forfeit_even_by_the_leader_gives_the_match_to_the_other() -> None:
    chooser = random.Random(4)
    fresh = Match(355, rng=random.Random(4))
    while len(fresh.hands) < 3:
        fresh.apply(chooser.choice(fresh.legal_codes()))
    leader = 0 if fresh.scores[0] > fresh.scores[1] else 1
    fresh.forfeit(leader, "timeout")
    assert fresh.winner == 1 - leader


def test_a_finished_match_cannot_be_forfeited() -> None:
    match = random_match(11, target=75)
    winner = match.winner
    with pytest.raises(MatchOver):
        match.forfeit(0 if winner == 1 else 1)
    assert match.winner == winner and match.forfeit_reason is None


def test_forfeit_needs_a_real_player_and_reason() -> None:
    match = Match(75, rng=random.Random(2))
    with pytest.raises(ValueError):
        match.forfeit(2)
    with pytest.raises(ValueError):
        match.forfeit(0, "bored")  # type: ignore[arg-type]
    assert not match.over


def test_a_move_out_of_turn_is_refused() -> None:
    match = Match(75, rng=random.Random(2))
    other = 1 - (match.turn or 0)
    with pytest.raises(IllegalAction, match="turn"):
        match.apply(match.legal_codes()[0], player=other)


def _scored_mid_hand(seed: int) -> Match:
    """A match in its second hand or later where a placement of this hand has already scored."""
    chooser = random.Random(seed)
    match = Match(355, rng=random.Random(seed))
    while len(match.hands) < 2 or match.hand.points == [0, 0]:
        match.apply(chooser.choice(match.legal_codes()))
    assert not match.over and not match.hand.over
    return match


@pytest.mark.parametrize("reason", ["resign", "timeout", "abandon"])
@pytest.mark.parametrize("loser", [0, 1])
def test_points_scored_in_the_hand_a_forfeit_ends_stay_on_the_score(
    reason: str, loser: int
) -> None:
    match = _scored_mid_hand(5)
    before = list(match.scores)
    in_hand = list(match.hand.points)
    match.forfeit(loser, reason)  # type: ignore[arg-type]
    expected = [before[0] + in_hand[0], before[1] + in_hand[1]]
    assert match.scores == expected
    assert match.hands[-1].score_after == tuple(expected)
    doc = write_record(match)
    assert doc["score"] == expected and doc["hands"][-1]["score"] == expected
    assert verify_record(doc).scores == expected
