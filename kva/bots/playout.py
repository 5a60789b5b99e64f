"""The playout policy of the search bots: noisy greedy that can also mind the opponent's reply.

The plain noisy greedy policy (``hard-v1``'s, and what ``threat = block = 0`` gives) values a
placement by its points now, a bonus for going out (the hand's end points dominate a hand) and
a small pull to shed heavy tiles; ``noise`` (in units of five points) keeps playouts from being
a single deterministic line, so averages explore. ``hard``'s policy, for the first
``lookahead`` real choices of a playout, also subtracts ``threat`` times the most the opponent
could score at once on the board the placement leaves, and adds ``block`` when the opponent has
nothing that fits it (it must draw or pass). Both read the tiles the opponent holds in the
guess being played out (a determinization fixes both hands), at the cost of one state copy per
candidate. Later plies fall back to the plain policy, which is several times cheaper.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from kva.bots.fast import DOUBLE_FIVE, best_points, sum_after
from kva.rules.engine import OPEN_BASE, SCORE_OF_SUM, TILE_PIPS, HandState


def _reply_threat(after: HandState) -> int:
    """The most the player to move in ``after`` could score at once (0 if nothing fits)."""
    fits = after.hands[after.turn] & after.ends_mask
    if not fits:
        return 0
    ask, value = after.ask, after.value
    free, stavka = after.opening_double_free, after.stavka
    top = 0
    while fits:
        low = fits & -fits
        fits ^= low
        pts = best_points(ask, value, free, stavka, low.bit_length() - 1)
        if pts > top:
            top = pts
    return top


def playout(
    state: HandState,
    rng: random.Random,
    noise: float = 0.35,
    threat: float = 0.7,
    lookahead: int = 4,
    block: float = 0.0,
    cut: int = -1,
    at_cut: Callable[[HandState], None] | None = None,
) -> None:
    """Play ``state`` (a copy) to the end of the hand; see the module docstring. With ``at_cut``,
    it is called once with the state as it stands when the playout reaches its ``cut``-th real
    choice (if the hand lasts that long), before that choice is made."""
    random_ = rng.random
    smart = lookahead
    choices = 0
    while not state.over:
        codes = state.legal_codes()
        if len(codes) == 1:
            state.apply_unchecked(codes[0])
            continue
        if choices == cut and at_cut is not None:
            at_cut(state)
        choices += 1
        ask = state.ask
        value = state.value
        free = state.opening_double_free
        stavka = state.stavka
        hand_size = state.hands[state.turn].bit_count()
        look = smart > 0 and (threat > 0.0 or block > 0.0)
        smart -= 1
        best = codes[0]
        best_key = -1e9
        for code in codes:
            key: float
            if code < OPEN_BASE:
                key = SCORE_OF_SUM[sum_after(ask, value, free, stavka, code)]
                if hand_size == 1:
                    key += 40
                key += TILE_PIPS[code >> 2] * 0.15
            else:
                tile = (code - OPEN_BASE) >> 1
                key = (10 if tile == DOUBLE_FIVE else 0) + TILE_PIPS[tile] * 0.15
            if look and hand_size > 1:
                after = state.copy()
                after.apply_unchecked(code)
                if not after.over:
                    key -= threat * _reply_threat(after)
                    if block and not after.hands[after.turn] & after.ends_mask:
                        key += block
            key += random_() * noise * 5
            if key > best_key:
                best_key = key
                best = code
        state.apply_unchecked(best)
