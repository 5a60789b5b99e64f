"""The final board of a finished hand in the views of the next hand's first moves.

The next hand is dealt the moment a hand ends, so a view's ``board`` is already the new one;
``last_board`` carries the board the finished hand left, for the hand-end screen, while the new
hand is at most :data:`kva.rules.view.LAST_BOARD_MOVES` moves old, to every seat and to
spectators alike (a finished hand's tiles are public)."""

from __future__ import annotations

import json
import random

from kva.games.georgian_viewtext import ViewText
from kva.rules import Match, player_view
from kva.rules.view import LAST_BOARD_MOVES
from kva.rules.view_json import view_to_json


def _to_next_hand(seed: int) -> Match:
    """A random match to 175 played until its second hand has begun."""
    rng = random.Random(seed)
    match = Match(175, "draw", random.Random(seed))
    while len(match.hands) == 1:
        match.apply(rng.choice(match.legal_codes()))
    return match


def test_a_new_hand_carries_the_last_hands_final_board() -> None:
    for seed in range(20):
        match = _to_next_hand(seed)
        if match.over:
            continue
        finished = match.hands[0].state
        for seat in (0, 1, None):
            view = player_view(match, seat)
            assert view.last_board is not None
            assert view.last_board.ends_sum == finished.ends_sum()
            assert view.board != view.last_board or not finished.placed


def test_the_last_board_goes_once_the_new_hand_is_under_way() -> None:
    match = _to_next_hand(3)
    rng = random.Random(99)
    while len(match.hands) == 2 and not match.over:
        view = player_view(match, 0)
        moves = len(view.moves)
        assert (view.last_board is not None) == (moves <= LAST_BOARD_MOVES)
        match.apply(rng.choice(match.legal_codes()))


def test_the_first_hand_and_a_finished_match_have_no_last_board() -> None:
    match = Match(75, "draw", random.Random(1))
    assert player_view(match, 0).last_board is None
    rng = random.Random(1)
    while not match.over:
        match.apply(rng.choice(match.legal_codes()))
    assert player_view(match, 0).last_board is None


def test_the_last_board_is_encoded_the_same_both_ways() -> None:
    match = _to_next_hand(5)
    view = player_view(match, 1)
    data = view_to_json(view)
    assert data["last_board"] is not None and data["last_board"]["ends"]
    assert json.loads(ViewText().text(view)) == data
