"""The engine's fast layer, for search code: the bitmask hand state and its tables.

:mod:`kva.rules` is the game as a player, a server or a record checker sees it (matches,
views, actions, records, fair deals). Bots that play thousands of hands per decision work one
level down, on :class:`HandState` (tile sets as int bitmasks, actions as small int codes) and
the lookup tables it runs on; this module is the one place they take them from, so the
engine's inner modules stay free to change behind it.
"""

from kva.rules.codes import END_INDEX, END_NAMES, OPEN_BASE, D, L, R, U
from kva.rules.hand import DRAWABLE, SCORE_OF_SUM, HandState, LogEntry
from kva.rules.moves import code_parts
from kva.rules.tiles import (
    ALL_TILES,
    DOUBLE_OF,
    IS_DOUBLE,
    NUMBER_MASK,
    OTHER_HALF,
    TILE_BIT,
    TILE_COUNT,
    TILE_HIGH,
    TILE_ID,
    TILE_LOW,
    TILE_NAME,
    TILE_PIPS,
    TOTAL_PIPS,
    mask_of,
    pips_of,
    round_up_to_five,
    tiles_of,
)
from kva.rules.view import board_view, determinize

__all__ = [
    "ALL_TILES",
    "D",
    "DOUBLE_OF",
    "DRAWABLE",
    "END_INDEX",
    "END_NAMES",
    "HandState",
    "IS_DOUBLE",
    "L",
    "LogEntry",
    "NUMBER_MASK",
    "OPEN_BASE",
    "OTHER_HALF",
    "R",
    "SCORE_OF_SUM",
    "TILE_BIT",
    "TILE_COUNT",
    "TILE_HIGH",
    "TILE_ID",
    "TILE_LOW",
    "TILE_NAME",
    "TILE_PIPS",
    "TOTAL_PIPS",
    "U",
    "board_view",
    "code_parts",
    "determinize",
    "mask_of",
    "pips_of",
    "round_up_to_five",
    "tiles_of",
]
