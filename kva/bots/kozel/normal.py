"""The ``normal`` Kozel bot: heaviest tile first, plus what its move leaves the next seat.

Each legal placement is priced on the line it leaves:

- going out above everything;
- the tile's weight (pips left in hand are the hand's cost; the 0-0 counts as the 10 it costs
  when it is the last tile);
- blocking: ends the next seat is known to lack (from its draws and knocks) make it draw or
  knock;
- a follow-up of its own: keeping a tile that fits the new ends, the more of them the better;
- doubles early: a double fits one number only, so it is the tile most likely to be stuck;
- the fish: a placement that makes one ends the hand now, which is good when its own count is
  below what the others are likely to hold and bad when it would be the largest («рыба на
  одного») or above the others' («рыба на всех»).
"""

from __future__ import annotations

import random

from kva.bots.kozel.knowledge import Knowledge
from kva.bots.kozel.playout import fitting
from kva.bots.kozel.tiles import SHED_VALUE
from kva.kozel import SeatView
from kva.kozel.engine import (
    NONDOUBLES,
    OTHER_HALF,
    TILE_BIT,
    TILE_HIGH,
    TILE_LOW,
    code_tile,
    pips_of,
    seat_count,
)

#: Bonus for ends the next seat is known to lack both of.
BLOCK_BONUS = 6.0
#: Bonus for keeping a tile that fits the new ends.
FOLLOW_BONUS = 2.0
#: Bonus for placing a double: it fits one number only, so it is the hardest tile to place later.
DOUBLE_BONUS = 3.0
#: Bonus per further tile of its own that fits the new ends (room to keep playing).
SPREAD_BONUS = 1.0
#: Cost of a fish for one that this seat may take: its whole count and the others'.
FISH_ONE_RISK = 40.0


def ends_after(code: int, ends: tuple[int, int] | None) -> tuple[int, int]:
    """The line's ends after placement ``code`` (an opening, or a tile on end L or R)."""
    tile = code_tile(code)
    assert tile is not None
    if ends is None:
        return TILE_LOW[tile], TILE_HIGH[tile]
    left, right = ends
    if code & 1:
        return left, OTHER_HALF[tile][right]
    return OTHER_HALF[tile][left], right


class NormalBot:
    """Sheds weight, blocks the next seat where it can, and makes a fish only when it pays."""

    name = "normal"

    def __init__(self, block: float = BLOCK_BONUS, follow: float = FOLLOW_BONUS,
                 double: float = DOUBLE_BONUS, spread: float = SPREAD_BONUS) -> None:
        self.block = block
        self.follow = follow
        self.double = double
        self.spread = spread

    def choose(self, view: SeatView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        know = Knowledge(view)
        me = know.me
        nxt = (me + 1) % view.seats
        mine = know.mine
        best = legal[0]
        best_value = float("-inf")
        for code in legal:
            tile = code_tile(code)
            assert tile is not None
            rest = mine & ~TILE_BIT[tile]
            if not rest:
                return code
            left, right = ends_after(code, view.ends)
            value = float(SHED_VALUE[tile])
            if know.lacks[nxt] >> left & 1 and know.lacks[nxt] >> right & 1:
                value += self.block
            follow = fitting(rest, left, right)
            if follow:
                value += self.follow + self.spread * (follow.bit_count() - 1)
            if TILE_LOW[tile] == TILE_HIGH[tile]:
                value += self.double
            table = know.table | TILE_BIT[tile]
            if left == right and table & NONDOUBLES[left] == NONDOUBLES[left]:
                value += fish_value(view, know, rest)
            value += 0.01 * rng.random()
            if value > best_value:
                best_value = value
                best = code
        return best


def fish_value(view: SeatView, know: Knowledge, rest: int) -> float:
    """What ending the hand by a fish now is worth to this seat's side, roughly, in points:
    the others' expected counts (their tile counts times the mean hidden tile) against its own."""
    hidden = know.hidden
    mean_tile = pips_of(hidden) / max(1, hidden.bit_count())
    seat_counts = [
        seat_count(rest) if p == know.me else view.held[p] * mean_tile for p in range(view.seats)
    ]
    side_counts = [sum(seat_counts[p] for p in side) for side in view.sides]
    mine = next(i for i, side in enumerate(view.sides) if know.me in side)
    others = [c for i, c in enumerate(side_counts) if i != mine]
    if view.fish == "one":
        return -FISH_ONE_RISK if side_counts[mine] >= max(others) - 3 else 5.0
    return sum(others) / len(others) - side_counts[mine]

