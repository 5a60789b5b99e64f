"""Kozel's fast layer, for search code: the bitmask hand state, its codes and tables.

:mod:`kva.kozel` is the game as a player, a server or a record checker sees it; bots that play
many hands per decision work on :class:`HandState` directly (tile sets as int bitmasks, actions
as small int codes) and take it, and the tables it runs on, from here only.
"""

from kva.kozel.codes import DRAW, KNOCK, OPEN_BASE, code_tile, open_code, play_code
from kva.kozel.hand import LONE_ZERO_COUNT, NONDOUBLES, HandState, LogEntry, seat_count
from kva.rules.engine import (
    NUMBER_MASK,
    OTHER_HALF,
    TILE_BIT,
    TILE_COUNT,
    TILE_HIGH,
    TILE_LOW,
    TILE_NAME,
    TILE_PIPS,
    mask_of,
    pips_of,
    tiles_of,
)

__all__ = [
    "DRAW",
    "KNOCK",
    "LONE_ZERO_COUNT",
    "NONDOUBLES",
    "NUMBER_MASK",
    "OPEN_BASE",
    "OTHER_HALF",
    "TILE_BIT",
    "TILE_COUNT",
    "TILE_HIGH",
    "TILE_LOW",
    "TILE_NAME",
    "TILE_PIPS",
    "HandState",
    "LogEntry",
    "code_tile",
    "mask_of",
    "open_code",
    "pips_of",
    "play_code",
    "seat_count",
    "tiles_of",
]
