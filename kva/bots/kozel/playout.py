"""The playout policy of the Kozel search: everyone sheds the heaviest tile that fits.

The ``hard`` bot plays thousands of hand endings per decision, one for each guess of the hidden
tiles and each candidate move, on the engine's own bitmask :class:`~kva.kozel.HandState` with
``apply_unchecked`` (the rules are the engine's, never copied). The policy is the ``easy`` bot's
(the heaviest fitting tile, the 0-0 valued as the 10 it may cost) with a little uniform noise so
that the endings of one guess are not a single line; draws and knocks are forced.
"""

from __future__ import annotations

import random

from kva.bots.kozel.tiles import SHED_VALUE
from kva.kozel.engine import DRAW, NUMBER_MASK, OPEN_BASE, HandState


def code_tile_fast(code: int) -> int:
    """The tile a placement or opening code places (codes below ``DRAW`` only)."""
    return code >> 1 if code < OPEN_BASE else code - OPEN_BASE


def heaviest(codes: list[int], noise: float, rng: random.Random) -> int:
    """The placement of the heaviest tile among ``codes`` (each placement, not draw or knock),
    with uniform noise of up to ``noise`` pips; ties go to the first code."""
    best = codes[0]
    best_value = -1.0
    random_ = rng.random
    for code in codes:
        value = SHED_VALUE[code_tile_fast(code)] + noise * random_()
        if value > best_value:
            best_value = value
            best = code
    return best


def play_out(state: HandState, rng: random.Random, noise: float = 3.0) -> None:
    """Play ``state`` (mutated: pass a fresh one) to the end of its hand with :func:`heaviest`
    for every seat."""
    while not state.over:
        codes = state.legal_codes()
        if len(codes) == 1 or codes[0] >= DRAW:
            state.apply_unchecked(codes[0])
        else:
            state.apply_unchecked(heaviest(codes, noise, rng))


def fitting(hand: int, left: int, right: int) -> int:
    """The tiles of ``hand`` that fit an open end, as a set (all of them on an empty line)."""
    if left < 0:
        return hand
    return hand & (NUMBER_MASK[left] | NUMBER_MASK[right])
