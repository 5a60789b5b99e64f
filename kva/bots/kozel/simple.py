"""The ``easy`` Kozel bot: sheds the heaviest tile that fits, and nothing more."""

from __future__ import annotations

import random

from kva.kozel import SeatView
from kva.kozel.engine import TILE_PIPS, code_tile


class EasyBot:
    """Places the heaviest fitting tile (pips left in hand are what a hand costs); among equal
    tiles and ends it picks at random, from its seeded RNG."""

    name = "easy"

    def choose(self, view: SeatView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        weights = [_pips(code) for code in legal]
        top = max(weights)
        best = [code for code, w in zip(legal, weights, strict=True) if w == top]
        return best[int(rng.random() * len(best))]


def _pips(code: int) -> int:
    tile = code_tile(code)
    return -1 if tile is None else TILE_PIPS[tile]
