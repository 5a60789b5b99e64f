"""One hand of Kozel as a bitmask state: the engine's hot path (kozel.md §3, §4).

Hands are int bitmasks of tile ids, the line is its two end numbers, actions are the small int
codes of :mod:`kva.kozel.codes`. The log keeps ``(seat, code, tile)`` per action (``tile`` is
the drawn tile for a draw, -1 for a knock), which is all a record or a view needs.
"""

from __future__ import annotations

from typing import Final

from kva.kozel.codes import DRAW, KNOCK, OPEN_BASE, describe_action
from kva.rules import IllegalAction
from kva.rules.engine import (
    DOUBLE_OF,
    NUMBER_MASK,
    OTHER_HALF,
    TILE_BIT,
    TILE_HIGH,
    TILE_LOW,
    pips_of,
    tiles_of,
)

#: ``NONDOUBLES[n]``: the six non-doubles carrying n; all placed, with n on both ends: a fish.
NONDOUBLES: Final = tuple(NUMBER_MASK[n] & ~TILE_BIT[DOUBLE_OF[n]] for n in range(7))
#: A hand holding only 0-0 counts this much (kozel.md §5.1).
LONE_ZERO_COUNT: Final = 10
_ZERO: Final = TILE_BIT[DOUBLE_OF[0]]

LogEntry = tuple[int, int, int]


def seat_count(mask: int) -> int:
    """A seat's count for a hand: its pips, or 10 for the lone 0-0.

    >>> seat_count(0b1), seat_count(0b1 | 1 << 8)     # 0-0 alone; 0-0 and 1-2
    (10, 3)
    """
    return LONE_ZERO_COUNT if mask == _ZERO else pips_of(mask)


class HandState:
    """The full (hidden-information) state of one hand.

    ``opening`` is the tile the opener must play (the first hand) or None (any tile).
    """

    __slots__ = ("seats", "hands", "bazaar", "drawn", "left", "right", "played", "turn",
                 "opening", "knocks", "placer", "over", "end", "by", "log")

    def __init__(self, hands: list[int], bazaar: tuple[int, ...], opener: int,
                 opening: int | None = None) -> None:
        self.seats = len(hands)
        self.hands = hands
        self.bazaar = bazaar
        self.drawn = 0
        self.left = -1
        self.right = -1
        self.played = 0
        self.turn = opener
        self.opening = opening
        self.knocks = 0
        self.placer = opener
        self.over = False
        self.end: str | None = None
        self.by = -1
        self.log: list[LogEntry] = []

    @property
    def drawable(self) -> int:
        """Tiles that can still be drawn: the bazaar's last tile never is."""
        return max(0, len(self.bazaar) - 1 - self.drawn)

    def legal_codes(self) -> list[int]:
        """The actions the seat on turn may take (empty once the hand is over)."""
        if self.over:
            return []
        hand = self.hands[self.turn]
        left = self.left
        if left < 0:
            if self.opening is not None:
                return [OPEN_BASE + self.opening]
            return [OPEN_BASE + t for t in tiles_of(hand)]
        codes: list[int] = []
        fits = hand & NUMBER_MASK[left]
        while fits:
            low = fits & -fits
            codes.append((low.bit_length() - 1) << 1)
            fits ^= low
        fits = hand & NUMBER_MASK[self.right]
        while fits:
            low = fits & -fits
            codes.append(((low.bit_length() - 1) << 1) | 1)
            fits ^= low
        if codes:
            return codes
        return [DRAW] if len(self.bazaar) - 1 - self.drawn > 0 else [KNOCK]

    def forced(self) -> int | None:
        """The draw or knock the game makes for the seat on turn, if that is all it may do."""
        codes = self.legal_codes()
        return codes[0] if len(codes) == 1 and codes[0] >= DRAW else None

    def apply(self, code: int, seat: int | None = None) -> None:
        """Take an action, checked: IllegalAction says why it is not allowed."""
        if self.over:
            raise IllegalAction("the hand is over")
        if seat is not None and seat != self.turn:
            raise IllegalAction(f"it is seat {self.turn}'s turn, not seat {seat}'s")
        if code not in self.legal_codes():
            what = describe_action(code) if 0 <= code <= KNOCK else repr(code)
            raise IllegalAction(f"{what} is not legal for seat {self.turn} now")
        self.apply_unchecked(code)

    def apply_unchecked(self, code: int) -> None:
        """Take a legal action without checking it (search and self-play)."""
        seat = self.turn
        if code >= DRAW:
            if code == DRAW:
                tile = self.bazaar[self.drawn]
                self.drawn += 1
                self.hands[seat] |= TILE_BIT[tile]
                self.log.append((seat, DRAW, tile))
                return
            self.log.append((seat, KNOCK, -1))
            self.knocks += 1
            if self.knocks == self.seats:
                self.over = True
                self.end = "fish"
                self.by = self.placer
            else:
                self.turn = seat + 1 if seat + 1 < self.seats else 0
            return
        if code >= OPEN_BASE:
            tile = code - OPEN_BASE
            self.left = TILE_LOW[tile]
            self.right = TILE_HIGH[tile]
        else:
            tile = code >> 1
            if code & 1:
                self.right = OTHER_HALF[tile][self.right]
            else:
                self.left = OTHER_HALF[tile][self.left]
        bit = TILE_BIT[tile]
        self.hands[seat] ^= bit
        self.played |= bit
        self.knocks = 0
        self.placer = seat
        self.log.append((seat, code, tile))
        if not self.hands[seat]:
            self.over = True
            self.end = "out"
            self.by = seat
        elif self.left == self.right and (
            self.played & NONDOUBLES[self.left] == NONDOUBLES[self.left]
        ):
            self.over = True
            self.end = "fish"
            self.by = seat
        else:
            self.turn = seat + 1 if seat + 1 < self.seats else 0

    def counts(self) -> list[int]:
        """Each seat's count for the hand (kozel.md §5.1), before sides and scoring."""
        return [seat_count(h) for h in self.hands]

    def __repr__(self) -> str:
        ends = "-" if self.left < 0 else f"{self.left}|{self.right}"
        state = f"over {self.end} by={self.by}" if self.over else f"turn={self.turn}"
        held = ":".join(str(h.bit_count()) for h in self.hands)
        return (f"<HandState seats={self.seats} ends={ends} held={held} "
                f"drawable={self.drawable} {state}>")
