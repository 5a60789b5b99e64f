"""Hot-path helpers shared by every bot: what a placement scores, and the greedy choice.

Everything here reads plain ints and lists (a :class:`~kva.rules.HandState`'s ``ask``/``value``
arrays or a :class:`~kva.rules.BoardView`'s tuples), so the same arithmetic serves a bot looking
at its view and a search running thousands of playouts on ``HandState`` copies (the playout
policy itself is :func:`kva.bots.playout.playout`). Nothing here mutates a state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kva.rules import DRAW
from kva.rules.engine import (
    IS_DOUBLE,
    OPEN_BASE,
    OTHER_HALF,
    SCORE_OF_SUM,
    TILE_ID,
    TILE_PIPS,
)

#: The 5-5 tile: the only opening that scores (10 points).
DOUBLE_FIVE: Final = TILE_ID[5][5]


def sum_after(ask: Sequence[int], value: Sequence[int], free: int, stavka: int, code: int) -> int:
    """The open-ends sum right after play ``code`` (not an opening, draw or pass).

    Mirrors the engine's scoring without copying the state: the end played on now counts the
    tile's outer half (both halves for a double); the first tile on an opening stavka makes the
    stavka's other main side count both its halves; closing a stavka opens U and D at 0.
    """
    end = code & 3
    tile = code >> 2
    other = OTHER_HALF[tile][ask[end]]
    new = 2 * other if IS_DOUBLE[tile] else other
    if free == 2:
        return 2 * stavka + new
    return value[0] + value[1] + value[2] + value[3] - value[end] + new


def points_of(ask: Sequence[int], value: Sequence[int], free: int, stavka: int, code: int) -> int:
    """Points the mover scores at once for ``code``: ends-sum points, or 10 for opening 5-5."""
    if code < OPEN_BASE:
        return SCORE_OF_SUM[sum_after(ask, value, free, stavka, code)]
    if code >= DRAW:
        return 0
    return 10 if (code - OPEN_BASE) >> 1 == DOUBLE_FIVE else 0


def code_pips(code: int) -> int:
    """Pips on the tile a placement code places (0 for a draw or pass)."""
    if code < OPEN_BASE:
        return TILE_PIPS[code >> 2]
    if code >= DRAW:
        return 0
    return TILE_PIPS[(code - OPEN_BASE) >> 1]


def greedy_pick(
    ask: Sequence[int], value: Sequence[int], free: int, stavka: int, legal: Sequence[int]
) -> int:
    """The legal code that scores most now; ties go to the heaviest tile, then the lowest code."""
    best = legal[0]
    best_key = -1
    for code in legal:
        key = points_of(ask, value, free, stavka, code) * 64 + code_pips(code)
        if key > best_key:
            best_key = key
            best = code
    return best


def best_points(
    ask: Sequence[int], value: Sequence[int], free: int, stavka: int, tile: int
) -> int:
    """The most ``tile`` could score now on any open end it fits (0 if it fits none)."""
    top = 0
    for end in range(4):
        n = ask[end]
        if n >= 0 and OTHER_HALF[tile][n] >= 0:
            pts = SCORE_OF_SUM[sum_after(ask, value, free, stavka, (tile << 2) | end)]
            if pts > top:
                top = pts
    return top


def expected_best(replies: list[int], q: float) -> float:
    """The expected largest of ``replies`` when each is available independently with chance
    ``q`` (the opponent holds that tile): taken best first, each counts if no better one is
    held. ``replies`` is sorted in place. ``normal`` prices the opponent's reply with it."""
    replies.sort(reverse=True)
    out = 0.0
    miss = 1.0
    for r in replies:
        out += r * q * miss
        miss *= 1.0 - q
    return out
