"""The deal (kozel.md §1): 7 tiles a seat, the rest to the bazaar, the redeal rule, the opener.

A deal is a :class:`Deal` of tile ids (0-0 is 0, 6-6 is 27, as in :mod:`kva.rules.engine`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple, Protocol

from kva.rules.engine import (
    DOUBLE_OF,
    IS_DOUBLE,
    NUMBER_MASK,
    TILE_COUNT,
    TILE_HIGH,
    TILE_PIPS,
    mask_of,
)

#: Tiles dealt to each seat.
HAND_SIZE: Final = 7
#: Doubles in one hand that void the deal.
REDEAL_DOUBLES: Final = 5
#: Tiles carrying one number in one hand that void the deal.
REDEAL_SUIT: Final = 6
#: The seven doubles as a tile set.
DOUBLES: Final = mask_of([t for t in range(TILE_COUNT) if IS_DOUBLE[t]])
#: The doubles that open a match's first hand, in the order they are looked for.
OPENING_DOUBLES: Final = (1, 2, 3, 4, 5, 6, 0)


class RandomSource(Protocol):
    """What dealing needs: ``random.Random`` and ``secrets.SystemRandom`` both qualify."""

    def shuffle(self, x: list[int]) -> None: ...


class Deal(NamedTuple):
    """Each seat's 7 tiles and the bazaar in draw order (28 − 7n tiles)."""

    hands: tuple[tuple[int, ...], ...]
    bazaar: tuple[int, ...]

    @classmethod
    def from_order(cls, order: list[int] | tuple[int, ...], seats: int) -> Deal:
        """Positions 0-6 to seat 0, 7-13 to seat 1, …, the rest to the bazaar in order."""
        cut = HAND_SIZE * seats
        hands = tuple(tuple(order[HAND_SIZE * p:HAND_SIZE * (p + 1)]) for p in range(seats))
        return cls(hands, tuple(order[cut:]))


class Voided(NamedTuple):
    """A deal thrown back: ``why`` is ``doubles`` or ``suit``, ``seat`` whose hand broke it."""

    deal: Deal
    why: str
    seat: int


#: What a match takes as its deal source: ``dealer(hand, redeal)``, both 0-based.
Dealer = Callable[[int, int], Deal]


def shuffled_deal(rng: RandomSource, seats: int) -> Deal:
    """Shuffle the 28 tiles with ``rng`` and deal them to ``seats`` players."""
    tiles = list(range(TILE_COUNT))
    rng.shuffle(tiles)
    return Deal.from_order(tiles, seats)


def redeal_reason(deal: Deal) -> tuple[str, int] | None:
    """Why the deal is void, and whose hand: seats in order, five doubles before six of a number.

    >>> redeal_reason(Deal(((0, 7, 13, 18, 22, 1, 2),), ()))   # 0-0 1-1 2-2 3-3 4-4 0-1 0-2
    ('doubles', 0)
    >>> redeal_reason(Deal(((8, 9, 10, 11, 12, 13, 14), (1, 2, 3, 4, 5, 6, 7)), ()))  # 0-1 … 0-6
    ('suit', 1)
    """
    for seat, hand in enumerate(deal.hands):
        mask = mask_of(hand)
        if (mask & DOUBLES).bit_count() >= REDEAL_DOUBLES:
            return "doubles", seat
        for number in NUMBER_MASK:
            if (mask & number).bit_count() >= REDEAL_SUIT:
                return "suit", seat
    return None


def ladder_key(tile: int) -> tuple[int, int]:
    """A non-double's rank for opening: pip sum, then the higher half (5-6, 4-6, 3-6, 4-5, …)."""
    return TILE_PIPS[tile], TILE_HIGH[tile]


def first_opening(deal: Deal) -> tuple[int, int]:
    """The seat that opens a match's first hand and the tile it must play (kozel.md §2)."""
    holder = {t: p for p, hand in enumerate(deal.hands) for t in hand}
    for n in OPENING_DOUBLES:
        if DOUBLE_OF[n] in holder:
            return holder[DOUBLE_OF[n]], DOUBLE_OF[n]
    best = max(holder, key=ladder_key)
    return holder[best], best
