"""The few tile tables the Kozel bots need beyond those of :mod:`kva.kozel.engine`, derived
from them (so the bots take every table from the Kozel rules' fast layer)."""

from __future__ import annotations

from typing import Final

from kva.kozel.engine import TILE_COUNT, TILE_HIGH, TILE_LOW, TILE_PIPS

#: All 28 tiles as a set.
ALL_TILES: Final = (1 << TILE_COUNT) - 1
#: ``DOUBLE_OF[n]``: the tile n-n (tiles are numbered low half first, so the doubles come in
#: order of their number).
DOUBLE_OF: Final[tuple[int, ...]] = tuple(
    t for t in range(TILE_COUNT) if TILE_LOW[t] == TILE_HIGH[t]
)
#: The 0-0 tile, which counts 10 when it is the only tile left in a hand (kozel.md §5.1).
ZERO_ZERO: Final = DOUBLE_OF[0]
#: What a tile costs to keep: its pips, and the 0-0 the 10 it counts alone.
SHED_VALUE: Final[tuple[int, ...]] = tuple(
    10 if t == ZERO_ZERO else TILE_PIPS[t] for t in range(TILE_COUNT)
)
