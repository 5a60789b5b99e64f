"""The rules as a library: readable reprs, a hand from a deal, and a match that refuses what no
rule allows (an unknown action code, an action after the end) without changing anything."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kva.rules import DRAW, PASS, IllegalAction, Match, MatchOver, open_code, player_view
from kva.rules.codes import OPEN_BASE
from kva.rules.engine import HandState, LogEntry
from kva.rules.tiles import TILE_COUNT, mask_of
from tests.rules.ruleshelp import full_deal, random_match, row


def _snapshot(match: Match) -> tuple[object, ...]:
    state = match.hand
    return (
        list(match.scores),
        len(match.hands),
        match.over,
        match.winner,
        [getattr(state, name) for name in HandState.__slots__],
    )


# ------------------------------------------------------------------ unknown codes
NOT_ACTIONS = [-1, -4, -(10**6), 112 + 2 * TILE_COUNT, 199, 202, 10**6, 2**70]


@pytest.mark.parametrize("code", NOT_ACTIONS)
def test_a_code_that_names_no_action_is_illegal_and_changes_nothing(code: int) -> None:
    for match in (Match(175, rng=random.Random(5)), _mid_hand_match()):
        before = copy.deepcopy(_snapshot(match))
        with pytest.raises(IllegalAction, match="no action"):
            match.apply(code)
        assert _snapshot(match) == before


def _mid_hand_match() -> Match:
    match = Match(175, rng=random.Random(9))
    chooser = random.Random(9)
    for _ in range(4):
        match.apply(chooser.choice(match.legal_codes()))
    assert match.hand.placed > 0 and not match.over
    return match


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 30), code=st.integers())
@example(seed=364, steps=16, code=145)  # an opening written high half first (found by chance)
def test_apply_either_plays_a_legal_code_or_raises_illegal_action_and_changes_nothing(
    seed: int, steps: int, code: int
) -> None:
    match = Match(75, rng=random.Random(seed))
    chooser = random.Random(seed)
    for _ in range(steps):
        if match.over:
            break
        match.apply(chooser.choice(match.legal_codes()))
    legal = match.legal_codes()
    # An opening tile may also be written high half first: the canonical code plus one
    # (kva.rules.codes); legal_codes lists only the canonical one, apply takes both.
    written_either_way = set(legal) | {c + 1 for c in legal if c >= OPEN_BASE}
    before = copy.deepcopy(_snapshot(match))
    if code in written_either_way:
        match.apply(code)
    else:
        with pytest.raises(IllegalAction):
            match.apply(code)
        assert _snapshot(match) == before


# ------------------------------------------------------------------ after the end
def test_apply_unchecked_after_the_match_is_over_raises_match_over_and_keeps_the_score() -> None:
    match = random_match(3)
    before = copy.deepcopy(_snapshot(match))
    for code in (DRAW, PASS, 0, open_code(27)):
        with pytest.raises(MatchOver):
            match.apply_unchecked(code)
        with pytest.raises(MatchOver):
            match.apply(code)
    assert _snapshot(match) == before


def test_apply_unchecked_after_a_forfeit_raises_match_over() -> None:
    match = Match(175, rng=random.Random(2))
    match.forfeit(0, "resign")
    with pytest.raises(MatchOver):
        match.apply_unchecked(match.hand.legal_codes()[0] if match.hand.legal_codes() else PASS)
    assert match.scores == [0, 0]


# ------------------------------------------------------------------ a hand from a deal
def test_a_hand_from_a_deal_holds_the_dealt_tiles_and_bazaar_in_order() -> None:
    deal = full_deal(row("6-6 6-5 6-4 6-3 6-2 6-1 6-0"), row("5-5 5-4 5-3 5-2 5-1 5-0 4-4"))
    state = HandState.from_deal(deal, 1, pass_only=True, forced_opening=27)
    assert state.hands == [mask_of(deal.hands[0]), mask_of(deal.hands[1])]
    assert state.bazaar == list(deal.bazaar)
    assert state.turn == state.opener == 1
    assert state.pass_only and state.forced_opening == 27
    assert state.bazaar is not deal.bazaar  # the state owns its list


def test_the_match_starts_each_hand_the_way_from_deal_does() -> None:
    match = random_match(4)
    for played in match.hands:
        fresh = HandState.from_deal(
            played.deal, played.opener, forced_opening=played.state.forced_opening
        )
        for entry in played.state.log:
            fresh.apply(entry[1])
        assert fresh.log == played.state.log


@pytest.mark.parametrize("seed", range(6))
def test_a_copy_holds_every_slot_and_changes_apart_from_the_original(seed: int) -> None:
    # Part-way through some hand of a seeded match: copy, then play on the copy only.
    match = random_match(seed)
    played = match.hands[seed % len(match.hands)]
    state = HandState.from_deal(played.deal, played.opener,
                                forced_opening=played.state.forced_opening)
    log = played.state.log
    for entry in log[: len(log) // 2]:
        state.apply(entry[1])
    twin = state.copy()
    for name in HandState.__slots__:  # an unassigned slot raises AttributeError here
        assert getattr(twin, name) == getattr(state, name), name
    before = [(name, copy.copy(getattr(state, name))) for name in HandState.__slots__]
    for entry in log[len(log) // 2:]:
        twin.apply(entry[1])
    assert twin.log == log
    assert [(name, getattr(state, name)) for name in HandState.__slots__] == before


def test_log_entries_are_plain_five_tuples() -> None:
    match = random_match(1)
    entry: LogEntry = match.hands[0].state.log[0]
    assert type(entry) is tuple and len(entry) == 5


# ------------------------------------------------------------------ reprs
def test_the_repr_of_a_match_says_target_rule_hand_score_and_turn() -> None:
    match = Match(175, "pass-only", rng=random.Random(7))
    assert repr(match) == f"<Match target=175 pass-only hand=1 score=0:0 turn={match.turn}>"


def test_the_repr_of_a_finished_match_says_who_won() -> None:
    match = random_match(2)
    a, b = match.scores
    assert repr(match) == (
        f"<Match target=75 draw hand={len(match.hands)} score={a}:{b} over winner={match.winner}>"
    )
    resigned = Match(255, rng=random.Random(1))
    resigned.forfeit(1, "timeout")
    assert repr(resigned) == "<Match target=255 draw hand=1 score=0:0 over winner=0 timeout>"


def test_the_repr_of_a_hand_and_of_the_views_is_one_readable_line() -> None:
    match = _mid_hand_match()
    texts = [repr(match.hand), repr(player_view(match, 0)), repr(player_view(match, None))]
    view = player_view(match, 0)
    texts += [repr(view.board), repr(view.moves[0])]
    for text in texts:
        assert text.startswith("<") and text.endswith(">") and "\n" not in text
        assert len(text) < 200
    assert repr(match.hand).startswith(f"<HandState turn={match.hand.turn} placed=")
    assert "ends_sum=" in repr(view.board)
    assert repr(view).startswith(f"<PlayerView player=0 hand=1 turn={match.turn} score=")
