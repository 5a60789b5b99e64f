"""What one Kozel seat knows about the hidden tiles, and guesses of them that respect it.

The hidden tiles are the other seats' hands and the bazaar. Public moves narrow them down
(kozel.md §3): a seat that drew or knocked held no tile carrying either end number at that
moment (a kept drawn tile did not fit either, or the seat would not have drawn again), so every
tile it held then lacks both numbers. A seat's tiles are modelled as *groups* by when they came
into its hand (the deal, then each draw), each group with the numbers its tiles are known to
lack; the groups' lack sets are nested (older tiles were seen at more draws and knocks). Which
group a placed tile came from is unknown, except that a tile placed right after a draw is the
drawn one; otherwise it is taken from the oldest group, which can only loosen the constraints,
so the true deal is always among the consistent guesses. In the first hand the opening double
says more: the holder of 1-1 opens with it, so an opening with 3-3 means 1-1 and 2-2 were in the
bazaar (a non-double opening: every double was).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kva.bots.kozel.tiles import ALL_TILES, DOUBLE_OF
from kva.kozel import SeatView
from kva.kozel.engine import (
    NUMBER_MASK,
    OTHER_HALF,
    TILE_BIT,
    TILE_HIGH,
    TILE_LOW,
    mask_of,
    tiles_of,
)

#: The doubles a first hand is opened with, in the order the rules look for them (kozel.md §2).
OPENING_ORDER = (1, 2, 3, 4, 5, 6, 0)


@dataclass(slots=True)
class Group:
    """``count`` tiles of one seat that came into its hand together (``dealt``, or by one
    draw), all lacking the numbers in ``lacks`` (a 7-bit set)."""

    count: int
    lacks: int
    dealt: bool = False


def numbers_mask(lacks: int) -> int:
    """The tiles that carry any number of the 7-bit set ``lacks``."""
    mask = 0
    for n in range(7):
        if lacks >> n & 1:
            mask |= NUMBER_MASK[n]
    return mask


class Knowledge:
    """The hidden tiles as one seat sees them, from its :class:`~kva.kozel.view.SeatView`.

    ``groups[p]`` holds seat p's groups (empty for the viewer); ``lacks[p]`` the numbers seat p
    is sure to lack now (those every tile it holds lacks); ``in_bazaar`` tiles that were not
    dealt to any hand (they may have been drawn since); ``hidden`` every tile the viewer has
    not seen.
    """

    def __init__(self, view: SeatView) -> None:
        me = view.seat
        if me is None:
            raise ValueError("a spectator's view has no seat to guess for")
        self.view = view
        self.me = me
        self.mine = mask_of(view.tiles)
        table = 0
        groups: list[list[Group]] = [[Group(7, 0, True)] for _ in range(view.seats)]
        left = right = -1
        last_drew = -1
        for move in view.moves:
            p = move.p
            if move.kind in ("draw", "knock"):
                ends = (1 << left) | (1 << right)
                for group in groups[p]:
                    group.lacks |= ends
                if move.kind == "draw":
                    groups[p].append(Group(1, 0))
                last_drew = p if move.kind == "draw" else -1
                continue
            tile = move.tile
            assert tile is not None
            table |= TILE_BIT[tile]
            if move.kind == "open":
                left, right = TILE_LOW[tile], TILE_HIGH[tile]
            elif move.end == "L":
                left = OTHER_HALF[tile][left]
            else:
                right = OTHER_HALF[tile][right]
            own = groups[p]
            source = own[-1] if last_drew == p else next(g for g in own if g.count > 0)
            source.count -= 1
            last_drew = -1
        groups[me] = []
        self.groups = groups
        self.table = table
        self.hidden = ALL_TILES & ~self.mine & ~table
        self.lacks = tuple(self._sure_lacks(g) for g in groups)
        self.in_bazaar = self._first_hand_bazaar() & self.hidden

    @staticmethod
    def _sure_lacks(groups: list[Group]) -> int:
        held = [g.lacks for g in groups if g.count > 0]
        sure = 0x7F if held else 0
        for lacks in held:
            sure &= lacks
        return sure

    def _first_hand_bazaar(self) -> int:
        """Doubles the first hand's opening proves were never dealt to a hand."""
        view = self.view
        if view.hand != 1 or not view.moves or view.moves[0].kind != "open":
            return 0
        opened = view.moves[0].tile
        assert opened is not None
        skipped = 0
        for n in OPENING_ORDER:
            if DOUBLE_OF[n] == opened:
                return skipped
            skipped |= TILE_BIT[DOUBLE_OF[n]]
        return skipped if TILE_LOW[opened] != TILE_HIGH[opened] else 0

    def sample(self, rng: random.Random, tries: int = 16) -> tuple[list[int], list[int]]:
        """One guess of every hand (the viewer's is its own) and of the bazaar in draw order,
        consistent with everything seen. Tiles are filled in at random, the most constrained
        group first; if ``tries`` fillings all fail, the draws and knocks are dropped, and then
        the first opening's evidence (a guess of the right sizes is always returned)."""
        for level in (2, 1, 0):
            for _ in range(tries if level else 1):
                guess = self._fill(rng, level)
                if guess is not None:
                    return guess
        raise AssertionError("a guess without constraints always fits")

    def _fill(self, rng: random.Random, level: int) -> tuple[list[int], list[int]] | None:
        """A random filling that respects the draws and knocks (``level`` 2) and the first
        opening (``level`` ≥ 1); None when the random order ran out of allowed tiles."""
        free = self.hidden
        slots: list[tuple[int, int, int]] = []  # (allowed tiles, count, seat)
        for p, own in enumerate(self.groups):
            for group in own:
                if group.count > 0:
                    allowed = ~numbers_mask(group.lacks) if level >= 2 else ALL_TILES
                    if group.dealt and level >= 1:
                        allowed &= ~self.in_bazaar
                    slots.append((allowed & ALL_TILES, group.count, p))
        slots.sort(key=lambda s: (s[0] & free).bit_count())
        hands = [0] * self.view.seats
        hands[self.me] = self.mine
        for allowed, count, p in slots:
            pool = tiles_of(free & allowed)
            if len(pool) < count:
                return None
            for tile in rng.sample(pool, count):
                hands[p] |= TILE_BIT[tile]
                free &= ~TILE_BIT[tile]
        bazaar = tiles_of(free)
        rng.shuffle(bazaar)
        return hands, bazaar
