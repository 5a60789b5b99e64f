"""One hand (ხელი) of Georgian domino: the board, the turn, scoring and the hand's end.

This is the engine's hot path, so it works on integers only: a tile is an index, a set of tiles a
bitmask, an action an int code (see :mod:`kva.rules.codes`). ``Match`` wraps hands into a match and
``kva.rules.actions`` gives the readable API on top. Rules are in ``docs/rules.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from kva.rules.codes import DRAW, END_NAMES, OPEN_BASE, PASS, D, L, R, U
from kva.rules.tiles import (
    IS_DOUBLE,
    NUMBER_MASK,
    OTHER_HALF,
    TILE_BIT,
    TILE_COUNT,
    TILE_HIGH,
    TILE_ID,
    TILE_LOW,
    TILE_PIPS,
    mask_of,
    round_up_to_five,
)

#: Drawable bazaar tiles: the last two of the 14 are protected and never drawn.
DRAWABLE: Final = 12
#: ``SCORE_OF_SUM[s]``: points for an open-ends sum ``s`` (5, 10 … 35 score themselves).
SCORE_OF_SUM: Final[tuple[int, ...]] = tuple(
    s if s % 5 == 0 and 5 <= s <= 35 else 0 for s in range(64)
)

# Hand end kinds.
DOMINO: Final = "domino"
FISH: Final = "fish"

_NO_END = -1
_OPEN_END: Final = OPEN_BASE + 2 * TILE_COUNT  # one past the last opening code

#: One entry of a hand's log: ``(player, code, x, points, ends_sum)``. For a placement ``x`` is
#: the touching half (for the opening, the half on ``L``), for a draw the drawn tile, for a
#: pass -1; ``points`` are what the action scored, ``ends_sum`` the open-ends sum after a
#: placement (-1 after a draw or a pass). A plain tuple, for speed.
LogEntry: TypeAlias = tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Deal:
    """One hand's deal: 7 tiles to each player and the 14-tile bazaar in draw order."""

    hands: tuple[tuple[int, ...], tuple[int, ...]]
    bazaar: tuple[int, ...]

    def holder_of(self, tile: int) -> int | None:
        """Which player was dealt ``tile`` (None if it lies in the bazaar)."""
        for p in (0, 1):
            if tile in self.hands[p]:
                return p
        return None


class IllegalAction(ValueError):
    """An action that the rules do not allow in this position."""


class HandState:
    """The full (hidden-information) state of one hand.

    Its ``log`` lists :data:`LogEntry` tuples ``(player, code, x, points, ends_sum)``.
    """

    __slots__ = (
        "hands",
        "pips",
        "bazaar",
        "draw_pos",
        "drawable",
        "pass_only",
        "ask",
        "value",
        "ends_mask",
        "stavka",
        "stavka_end",
        "opening_double_free",
        "turn",
        "opener",
        "forced_opening",
        "pending",
        "passes",
        "placed",
        "last_placer",
        "last_nondouble_placer",
        "points",
        "over",
        "end",
        "winner",
        "end_points",
        "log",
        "_opening_side",
    )

    def __init__(
        self,
        hands: tuple[int, int],
        bazaar: list[int],
        opener: int,
        *,
        pass_only: bool = False,
        forced_opening: int = -1,
    ) -> None:
        self.hands = [hands[0], hands[1]]
        self.pips = [_pips(hands[0]), _pips(hands[1])]
        self.bazaar = bazaar
        self.draw_pos = 0
        drawable = 0
        if not pass_only:
            for t in bazaar[:DRAWABLE]:
                drawable |= TILE_BIT[t]
        self.drawable = drawable
        self.pass_only = pass_only
        # Per end L, R, U, D: the number it asks (-1: not open) and what it adds to the sum.
        self.ask = [-1, -1, -1, -1]
        self.value = [0, 0, 0, 0]
        self.ends_mask = 0
        self.stavka = -1  # the stavka's number once placed
        self.stavka_end = _NO_END  # end where an unclosed later stavka stands
        self.opening_double_free = 0  # free main sides of an opening stavka (2, 1, then 0)
        self.turn = opener
        self.opener = opener
        self.forced_opening = forced_opening
        self.pending = -1  # a drawn tile that fits and must be placed now
        self.passes = 0  # consecutive passes
        self.placed = 0
        self.last_placer = -1
        self.last_nondouble_placer = -1
        self.points = [0, 0]
        self.over = False
        self.end: str | None = None
        self.winner: int | None = None
        self.end_points = 0
        self.log: list[LogEntry] = []
        self._opening_side = -1  # the main side covered first on an opening stavka

    @classmethod
    def from_deal(
        cls, deal: Deal, opener: int, *, pass_only: bool = False, forced_opening: int = -1
    ) -> HandState:
        """The hand dealt ``deal`` (7 tiles each, the bazaar in draw order), ``opener`` to
        open; ``forced_opening`` is the double the first hand of a match must open with."""
        return cls(
            (mask_of(deal.hands[0]), mask_of(deal.hands[1])),
            list(deal.bazaar),
            opener,
            pass_only=pass_only,
            forced_opening=forced_opening,
        )

    def __repr__(self) -> str:
        held = f"held={self.hands[0].bit_count()}:{self.hands[1].bit_count()}"
        points = f"points={self.points[0]}:{self.points[1]}"
        if self.over:
            winner = "nobody" if self.winner is None else self.winner
            return (
                f"<HandState over {self.end} winner={winner} end_points={self.end_points} "
                f"{held} {points}>"
            )
        ends = " ".join(f"{END_NAMES[e]}={self.ask[e]}" for e in (L, R, U, D) if self.ask[e] >= 0)
        board = f" {ends} ends_sum={self.ends_sum()}" if self.placed else ""
        pending = f" pending={TILE_LOW[self.pending]}-{TILE_HIGH[self.pending]}" * (
            self.pending >= 0
        )
        return (
            f"<HandState turn={self.turn} placed={self.placed}{board} {held} "
            f"drawable={self.drawable_count()}{pending} {points}>"
        )

    # ----------------------------------------------------------------- legal actions
    def legal_codes(self) -> list[int]:
        """Every legal action code for the player to move (empty once the hand is over)."""
        if self.over:
            return []
        hand = self.hands[self.turn]
        if self.placed == 0:
            if self.forced_opening >= 0:
                return [OPEN_BASE + 2 * self.forced_opening]
            codes = []
            while hand:
                low = hand & -hand
                codes.append(OPEN_BASE + 2 * (low.bit_length() - 1))
                hand ^= low
            return codes
        pending = self.pending
        fits = TILE_BIT[pending] if pending >= 0 else hand & self.ends_mask
        if not fits:
            return [DRAW] if self.drawable else [PASS]
        codes = []
        ask = self.ask
        for end in (L, R, U, D):
            n = ask[end]
            if n >= 0:
                m = fits & NUMBER_MASK[n]
                while m:
                    low = m & -m
                    codes.append(((low.bit_length() - 1) << 2) | end)
                    m ^= low
        return codes

    # ----------------------------------------------------------------- applying
    def apply(self, code: int) -> None:
        """Apply a legal action; raise :class:`IllegalAction` (state unchanged) otherwise."""
        if self.over:
            raise IllegalAction("the hand is over")
        if type(code) is not int:
            raise IllegalAction(f"no action has code {code!r}")
        if code in (DRAW, PASS):
            if code not in self.legal_codes():
                raise IllegalAction(_why_not_draw_or_pass(self, code))
        elif OPEN_BASE <= code < _OPEN_END:
            tile = (code - OPEN_BASE) >> 1
            if self.placed or OPEN_BASE + 2 * tile not in self.legal_codes():
                raise IllegalAction(_why_not_open(self, tile))
        elif not 0 <= code < OPEN_BASE:
            raise IllegalAction(f"no action has code {code!r}")
        elif code not in self.legal_codes():
            raise IllegalAction(_why_not_play(self, code >> 2, code & 3))
        self.apply_unchecked(code)

    def apply_unchecked(self, code: int) -> None:
        """Apply an action known to be legal (bots' playouts and replays call this)."""
        if code < OPEN_BASE:
            self._place(code >> 2, code & 3)
        elif code == DRAW:
            self._draw()
        elif code == PASS:
            self._pass()
        else:
            self._open((code - OPEN_BASE) >> 1, code & 1)

    def _open(self, tile: int, flipped: int) -> None:
        p = self.turn
        bit = TILE_BIT[tile]
        self.hands[p] ^= bit
        self.pips[p] -= TILE_PIPS[tile]
        low, high = TILE_LOW[tile], TILE_HIGH[tile]
        left, right = (high, low) if flipped else (low, high)
        ask = self.ask
        value = self.value
        ask[L] = left
        ask[R] = right
        if low == high:
            self.stavka = low
            self.opening_double_free = 2
            value[L] = 2 * low  # the lone stavka counts both halves once
            value[R] = 0
        else:
            value[L] = left
            value[R] = right
        self.ends_mask = NUMBER_MASK[left] | NUMBER_MASK[right]
        points = 10 if tile == _DOUBLE_FIVE else 0
        self.placed = 1
        self._after_placement(
            p, tile, points, left, value[L] + value[R], OPEN_BASE + 2 * tile + flipped
        )

    def _place(self, tile: int, end: int) -> None:
        p = self.turn
        ask = self.ask
        value = self.value
        touching = ask[end]
        other = OTHER_HALF[tile][touching]
        self.hands[p] ^= TILE_BIT[tile]
        self.pips[p] -= TILE_PIPS[tile]
        self.pending = -1
        double = IS_DOUBLE[tile]
        ask[end] = other
        value[end] = 2 * other if double else other
        free = self.opening_double_free
        if free:
            if free == 2:
                # First tile on an opening stavka: the other main side shows the stavka itself.
                value[R if end == L else L] = 2 * self.stavka
                self.opening_double_free = 1
                self._opening_side = end
            elif end != self._opening_side and end <= R:
                self.opening_double_free = 0
                self._close_stavka()
        elif self.stavka_end == end:
            self.stavka_end = _NO_END
            self._close_stavka()
        elif double and self.stavka < 0:
            self.stavka = other
            self.stavka_end = end
        mask = 0
        for n in ask:
            if n >= 0:
                mask |= NUMBER_MASK[n]
        self.ends_mask = mask
        ends_sum = value[0] + value[1] + value[2] + value[3]
        self.placed += 1
        self._after_placement(
            p, tile, SCORE_OF_SUM[ends_sum], touching, ends_sum, (tile << 2) | end
        )

    def _close_stavka(self) -> None:
        s = self.stavka
        self.ask[U] = s
        self.ask[D] = s
        self.value[U] = 0
        self.value[D] = 0

    def _after_placement(
        self, p: int, tile: int, points: int, x: int, ends_sum: int, code: int
    ) -> None:
        self.log.append((p, code, x, points, ends_sum))
        self.points[p] += points
        self.passes = 0
        self.last_placer = p
        if not IS_DOUBLE[tile]:
            self.last_nondouble_placer = p
        hands = self.hands
        if not hands[p]:
            opp_hand = hands[1 - p]
            self._finish(
                DOMINO,
                p,
                10 if opp_hand == _DOUBLE_ZERO_BIT else round_up_to_five(self.pips[1 - p]),
            )
        elif not (hands[0] | hands[1] | self.drawable) & self.ends_mask:
            self._finish_closed()
        else:
            self.turn = 1 - p

    def _draw(self) -> None:
        p = self.turn
        tile = self.bazaar[self.draw_pos]
        self.draw_pos += 1
        bit = TILE_BIT[tile]
        self.drawable ^= bit
        self.hands[p] |= bit
        self.pips[p] += TILE_PIPS[tile]
        if bit & self.ends_mask:
            self.pending = tile
        self.log.append((p, DRAW, tile, 0, -1))

    def _pass(self) -> None:
        p = self.turn
        self.log.append((p, PASS, -1, 0, -1))
        self.passes += 1
        if self.passes >= 2:
            self._finish_closed()
        else:
            self.turn = 1 - p

    def _finish_closed(self) -> None:
        """A fish, or two passes in a row: the smaller pip total wins the other's, rounded up."""
        a, b = self.pips
        if a == b:
            self._finish(FISH, None, 0)
        elif a < b:
            self._finish(FISH, 0, round_up_to_five(b))
        else:
            self._finish(FISH, 1, round_up_to_five(a))

    def _finish(self, end: str, winner: int | None, points: int) -> None:
        self.over = True
        self.end = end
        self.winner = winner
        self.end_points = points

    # ----------------------------------------------------------------- queries
    def ends_sum(self) -> int:
        """The current open-ends sum."""
        v = self.value
        return v[0] + v[1] + v[2] + v[3]

    def drawable_count(self) -> int:
        """Tiles that can still be drawn (0 under "pass only")."""
        return 0 if self.pass_only else DRAWABLE - self.draw_pos

    def next_opener(self) -> int:
        """Who opens the next hand: the winner after a domino; after a fish, the last non-double
        placer, else the last placer."""
        if self.end == DOMINO:
            assert self.winner is not None
            return self.winner
        if self.last_nondouble_placer >= 0:
            return self.last_nondouble_placer
        return self.last_placer

    def copy(self) -> HandState:
        """An independent copy (bots search on copies, hundreds of thousands per decision).

        Every slot is assigned by name: a loop of ``setattr(getattr(...))`` over ``__slots__``
        cost a third of an exact endgame search. The lists are copied; ``bazaar`` is shared,
        since a hand never changes it (it draws by advancing ``draw_pos``). A test checks
        that every slot is copied."""
        new = HandState.__new__(HandState)
        new.hands = self.hands[:]
        new.pips = self.pips[:]
        new.bazaar = self.bazaar
        new.draw_pos = self.draw_pos
        new.drawable = self.drawable
        new.pass_only = self.pass_only
        new.ask = self.ask[:]
        new.value = self.value[:]
        new.ends_mask = self.ends_mask
        new.stavka = self.stavka
        new.stavka_end = self.stavka_end
        new.opening_double_free = self.opening_double_free
        new.turn = self.turn
        new.opener = self.opener
        new.forced_opening = self.forced_opening
        new.pending = self.pending
        new.passes = self.passes
        new.placed = self.placed
        new.last_placer = self.last_placer
        new.last_nondouble_placer = self.last_nondouble_placer
        new.points = self.points[:]
        new.over = self.over
        new.end = self.end
        new.winner = self.winner
        new.end_points = self.end_points
        new.log = self.log[:]
        new._opening_side = self._opening_side
        return new


_DOUBLE_FIVE: Final = TILE_ID[5][5]
_DOUBLE_ZERO_BIT: Final = TILE_BIT[0]


def _pips(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += TILE_PIPS[low.bit_length() - 1]
        mask ^= low
    return total


def _why_not_draw_or_pass(state: HandState, code: int) -> str:
    what = "draw" if code == DRAW else "pass"
    if state.placed == 0:
        return f"cannot {what} before the opening tile is placed"
    if state.pending >= 0:
        return f"cannot {what}: the drawn tile fits and must be placed at once"
    if state.hands[state.turn] & state.ends_mask:
        return f"cannot {what} while holding a tile that can be placed"
    if code == DRAW:
        return (
            "cannot draw: no drawable tile is left"
            if not state.pass_only
            else ("cannot draw: the table plays 'pass only'")
        )
    return "cannot pass while a drawable tile is left in the bazaar"


def _why_not_open(state: HandState, tile: int) -> str:
    name = f"{TILE_LOW[tile]}-{TILE_HIGH[tile]}"
    if state.placed:
        return "the hand is already opened"
    if not state.hands[state.turn] & TILE_BIT[tile]:
        return f"player {state.turn} does not hold {name}"
    forced = state.forced_opening
    return (
        f"the first hand must open with the highest double {TILE_LOW[forced]}-{TILE_HIGH[forced]}"
    )


def _why_not_play(state: HandState, tile: int, end: int) -> str:
    name = f"{TILE_LOW[tile]}-{TILE_HIGH[tile]}"
    if state.placed == 0:
        return "the hand must be opened first"
    if not state.hands[state.turn] & TILE_BIT[tile]:
        return f"player {state.turn} does not hold {name}"
    if state.pending >= 0 and state.pending != tile:
        return "the drawn tile fits and must be placed at once"
    n = state.ask[end]
    if n < 0:
        return f"end {END_NAMES[end]} is not open"
    return f"{name} does not fit end {END_NAMES[end]}, which asks {n}"
