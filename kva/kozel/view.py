"""What a seat, or a spectator, may know of a Kozel match (kozel.md §3.4; docs/kozel.md).

A seat's view holds its own tiles and everything every player saw: the line, the others' tile
counts, the bazaar's size, each move of the hand (a draw without its tile, a knock with the ends
it was made on), the scores. It never holds another seat's tile or the bazaar's order. A
spectator's view holds no hand tile at all.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from kva.kozel.codes import DRAW, ENDS, KNOCK, OPEN_BASE, action_to_json
from kva.kozel.hand import HandState
from kva.kozel.match import HandResult, Match
from kva.rules.engine import OTHER_HALF, TILE_HIGH, TILE_LOW, TILE_NAME, tiles_of


@dataclass(frozen=True, slots=True)
class PublicMove:
    """One action as everyone saw it: ``kind`` is ``open``, ``play``, ``draw`` or ``knock``;
    ``tile`` and ``end`` for a placed tile; ``ends`` the line's two numbers for a knock."""

    p: int
    kind: str
    tile: int | None = None
    end: str | None = None
    ends: tuple[int, int] | None = None

    def __repr__(self) -> str:
        what = {"open": f"open {TILE_NAME[self.tile or 0]}",
                "play": f"{TILE_NAME[self.tile or 0]} on {self.end}",
                "draw": "draw", "knock": f"knock on {self.ends}"}[self.kind]
        return f"<PublicMove p={self.p} {what}>"


@dataclass(frozen=True, slots=True)
class SeatView:
    """A seat's view of the match (``seat`` None: a spectator's, with no tiles and no actions).

    ``line`` is the placed tiles from end L to end R, each as its two halves in line order;
    ``held`` each seat's tile count; ``drawn`` how many tiles each seat drew this hand; scores,
    remembered points and counts are per side (``sides``)."""

    seat: int | None
    seats: int
    sides: tuple[tuple[int, ...], ...]
    fish: str
    limit: int
    hand: int
    opener: int
    turn: int | None
    tiles: tuple[int, ...]
    held: tuple[int, ...]
    bazaar: int
    drawable: int
    line: tuple[tuple[int, int], ...]
    ends: tuple[int, int] | None
    score: tuple[int, ...]
    remembered: tuple[int, ...]
    carry: int
    moves: tuple[PublicMove, ...]
    drawn: tuple[int, ...]
    legal: tuple[int, ...]
    forced: int | None
    last: HandResult | None
    over: bool
    losers: tuple[int, ...]

    def __repr__(self) -> str:
        who = "spectator" if self.seat is None else f"seat={self.seat}"
        holds = " ".join(TILE_NAME[t] for t in self.tiles)
        ends = "-" if self.ends is None else f"{self.ends[0]}|{self.ends[1]}"
        return (f"<SeatView {who} hand={self.hand} turn={self.turn} holds={holds or '-'} "
                f"held={':'.join(map(str, self.held))} bazaar={self.bazaar} ends={ends} "
                f"score={':'.join(map(str, self.score))} legal={len(self.legal)}>")


def public_moves(state: HandState) -> tuple[tuple[PublicMove, ...], tuple[tuple[int, int], ...]]:
    """The hand's moves as everyone saw them, and the line they built (L to R)."""
    line: deque[tuple[int, int]] = deque()
    moves: list[PublicMove] = []
    left = right = -1
    for seat, code, tile in state.log:
        if code == DRAW:
            moves.append(PublicMove(seat, "draw"))
        elif code == KNOCK:
            moves.append(PublicMove(seat, "knock", ends=(left, right)))
        elif code >= OPEN_BASE:
            left, right = TILE_LOW[tile], TILE_HIGH[tile]
            line.append((left, right))
            moves.append(PublicMove(seat, "open", tile))
        elif code & 1:
            new = OTHER_HALF[tile][right]
            line.append((right, new))
            right = new
            moves.append(PublicMove(seat, "play", tile, "R"))
        else:
            new = OTHER_HALF[tile][left]
            line.appendleft((new, left))
            left = new
            moves.append(PublicMove(seat, "play", tile, "L"))
    return tuple(moves), tuple(line)


def seat_view(match: Match, seat: int | None) -> SeatView:
    """What ``seat`` may know now; ``seat=None`` for a spectator.

    >>> import random
    >>> match = Match(4, rng=random.Random(3))
    >>> seat_view(match, 2)
    <SeatView seat=2 hand=1 turn=3 holds=0-0 0-2 1-2 2-5 3-5 3-6 5-6 held=7:7:7:7 bazaar=0 \
ends=- score=0:0:0:0 legal=0>
    >>> seat_view(match, None).tiles
    ()
    """
    if seat is not None and not 0 <= seat < match.seats:
        raise ValueError(f"no seat {seat!r} at {match.seats} seats")
    hand = match.current
    state = hand.state
    moves, line = public_moves(state)
    mine = seat is not None and not match.over and seat == state.turn
    drawn = [0] * match.seats
    for move in moves:
        if move.kind == "draw":
            drawn[move.p] += 1
    previous = match.hands[-2].result if len(match.hands) > 1 else None
    return SeatView(
        seat=seat, seats=match.seats, sides=match.sides, fish=match.options.fish,
        limit=match.options.limit, hand=hand.number + 1, opener=hand.opener, turn=match.turn,
        tiles=() if seat is None else tuple(tiles_of(state.hands[seat])),
        held=tuple(h.bit_count() for h in state.hands),
        bazaar=len(state.bazaar) - state.drawn, drawable=state.drawable, line=line,
        ends=None if state.left < 0 else (state.left, state.right),
        score=match.score, remembered=match.remembered, carry=match.carry, moves=moves,
        drawn=tuple(drawn), legal=tuple(state.legal_codes()) if mine else (),
        forced=state.forced() if mine else None,
        last=hand.result if hand.result is not None else previous,
        over=match.over, losers=match.losers)


def spectator_view(match: Match) -> SeatView:
    """What anyone watching may know: no hand tile at all."""
    return seat_view(match, None)


def _half_name(halves: tuple[int, int]) -> str:
    return f"{halves[0]}-{halves[1]}"


def move_to_json(move: PublicMove) -> dict[str, Any]:
    """A public move as JSON: ``{"p": 1, "play": "3-5", "end": "L"}``, ``{"p": 0, "draw": true}``,
    ``{"p": 2, "knock": true, "ends": [3, 5]}``; the opening has no ``end``."""
    if move.kind == "draw":
        return {"p": move.p, "draw": True}
    if move.kind == "knock":
        return {"p": move.p, "knock": True, "ends": list(move.ends or ())}
    out: dict[str, Any] = {"p": move.p, "play": TILE_NAME[move.tile or 0]}
    if move.end is not None:
        out["end"] = move.end
    return out


def result_to_json(result: HandResult) -> dict[str, Any]:
    """A hand's result in the record's shape (kozel-record.md)."""
    out: dict[str, Any] = {"end": result.end, "by": result.by, "counts": list(result.counts),
                           "scored": list(result.scored), "carry": result.carry}
    if result.reason is not None:
        out["reason"] = result.reason
    return out


def view_to_json(view: SeatView) -> dict[str, Any]:
    """The JSON a client gets: tiles as ``a-b`` names, the line as oriented names."""
    return {
        "seat": view.seat, "seats": view.seats, "sides": [list(s) for s in view.sides],
        "options": {"fish": view.fish, "limit": view.limit, "pairs": len(view.sides) == 2
                    and view.seats == 4},
        "hand": view.hand, "opener": view.opener, "turn": view.turn,
        "tiles": [TILE_NAME[t] for t in view.tiles], "held": list(view.held),
        "bazaar": view.bazaar, "drawable": view.drawable,
        "line": [_half_name(h) for h in view.line],
        "ends": None if view.ends is None else dict(zip(ENDS, view.ends, strict=True)),
        "score": list(view.score), "remembered": list(view.remembered), "carry": view.carry,
        "moves": [move_to_json(m) for m in view.moves], "drawn": list(view.drawn),
        "legal": [action_to_json(c) for c in view.legal],
        "forced": None if view.forced is None else action_to_json(view.forced),
        "last": None if view.last is None else result_to_json(view.last),
        "over": view.over, "losers": list(view.losers),
    }
