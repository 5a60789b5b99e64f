"""Inference from the view never rules out the truth, and guesses respect what it proves."""

from __future__ import annotations

import random

from kva.bots.knowledge import HELD, Knowledge
from kva.rules.engine import NUMBER_MASK, TILE_BIT, mask_of
from tests.bots.botshelp import positions


def test_the_real_opponent_hand_is_always_among_the_possible_tiles() -> None:
    informative = 0
    for match, view in positions(seed=41, choices=3000):
        seat = view.player
        assert seat is not None
        knowledge = Knowledge(view)
        truth = match.hand.hands[1 - seat]
        possible = knowledge.possible_opponent_tiles()
        assert truth & ~possible == 0
        informative += possible != knowledge.unseen
    assert informative > 300  # draws and passes do narrow things down


def test_guesses_partition_the_unseen_tiles_with_the_right_sizes() -> None:
    rng = random.Random(1)
    for _match, view in positions(seed=42, choices=800):
        knowledge = Knowledge(view)
        for _ in range(3):
            opp_hand, rest, items = knowledge.sample(rng)
            assert opp_hand.bit_count() == knowledge.opp_count == len(items)
            assert len(rest) == 14 - view.drawn_count
            assert opp_hand & mask_of(rest) == 0
            assert opp_hand | mask_of(rest) == view.unseen()
            assert opp_hand & ~knowledge.possible_opponent_tiles() == 0


def test_a_pass_proves_the_opponent_lacks_the_asked_numbers() -> None:
    seen = 0
    for _match, view in positions(seed=43, choices=4000):
        seat = view.player
        assert seat is not None
        moves = view.moves
        last_opp = [m for m in moves if m.player != seat]
        if not last_opp or last_opp[-1].kind != "pass":
            continue
        knowledge = Knowledge(view)
        for n in last_opp[-1].open_numbers:
            assert knowledge.lacks[n]
            assert knowledge.possible_opponent_tiles() & NUMBER_MASK[n] == 0
        seen += 1
    assert seen > 20


def test_kept_draws_enter_the_opponent_hand_after_the_deal() -> None:
    # A held tile drawn later must avoid only what was asked from its draw on.
    rng = random.Random(2)
    for _match, view in positions(seed=44, choices=1500):
        knowledge = Knowledge(view)
        _opp, _rest, items = knowledge.sample(rng)
        for packed in items:
            entry, tile = packed >> 5, packed & 31
            assert not TILE_BIT[tile] & knowledge._forbid(entry, HELD)
