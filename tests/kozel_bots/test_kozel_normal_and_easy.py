"""The easier Kozel bots by their rules: easy sheds the heaviest tile, normal also blocks the
next seat with ends it is known to lack."""

from __future__ import annotations

import random

from kva.bots.kozel import EasyBot, NormalBot
from kva.kozel import play_code
from kva.kozel.view import PublicMove, SeatView
from kva.rules.engine import TILE_ID


def tile(a: int, b: int) -> int:
    return TILE_ID[a][b]


def blocking_position() -> SeatView:
    """Four seats, seat 0 to play on ends 1|6. Seat 1 knocked on 1|3, so it holds no 1 and no
    3; 6-1 on R leaves 1|1 (seat 1 must knock again), 6-2 on R is heavier but leaves 1|2."""
    moves = (
        PublicMove(0, "open", tile(1, 3)),
        PublicMove(1, "knock", ends=(1, 3)),
        PublicMove(2, "play", tile(3, 6), "R"),
        PublicMove(3, "knock", ends=(1, 6)),
    )
    mine = (tile(1, 6), tile(2, 6), tile(0, 4), tile(0, 5), tile(2, 4), tile(2, 5))
    return SeatView(
        seat=0, seats=4, sides=((0,), (1,), (2,), (3,)), fish="all", limit=101, hand=2,
        opener=0, turn=0, tiles=tuple(sorted(mine)), held=(6, 7, 6, 7), bazaar=0, drawable=0,
        line=((1, 3), (3, 6)), ends=(1, 6), score=(0, 0, 0, 0), remembered=(0, 0, 0, 0),
        carry=0, moves=moves, drawn=(0, 0, 0, 0),
        legal=(play_code(tile(1, 6), 0), play_code(tile(1, 6), 1), play_code(tile(2, 6), 1)),
        forced=None, last=None, over=False, losers=(),
    )


def test_easy_places_the_heaviest_tile_that_fits() -> None:
    assert EasyBot().choose(blocking_position(), random.Random(1)) == play_code(tile(2, 6), 1)


def test_normal_leaves_ends_the_next_seat_is_known_to_lack() -> None:
    assert NormalBot().choose(blocking_position(), random.Random(1)) == play_code(tile(1, 6), 1)


def test_normal_does_not_block_a_seat_that_showed_no_gap() -> None:
    view = blocking_position()
    moves = (view.moves[0], PublicMove(1, "play", tile(3, 3), "R")) + view.moves[2:]
    unblocked = SeatView(**{**{f: getattr(view, f) for f in SeatView.__slots__}, "moves": moves})
    assert NormalBot().choose(unblocked, random.Random(1)) == play_code(tile(2, 6), 1)
