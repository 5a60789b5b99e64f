"""The per-player view as plain JSON data: what the server sends a client, and nothing more.

This is the contract between the play service and the browser (and any other client). It is
built only from a :class:`PlayerView`, so it cannot leak what the view does not hold.
"""

from __future__ import annotations

from typing import Any

from kva.rules.actions import action_to_json
from kva.rules.codes import END_NAMES
from kva.rules.tiles import DOUBLE_OF, IS_DOUBLE, OTHER_HALF, TILE_NAME
from kva.rules.view import BoardView, HandSummary, PlayerView, PublicMove


def public_move_to_json(move: PublicMove) -> dict[str, Any]:
    """A move as a player's view shows it (:class:`~kva.rules.view.PublicMove`): every key
    always present, ``tile`` written low half first and None for a draw the viewer may not see,
    ``end`` and ``ends_sum`` None where the kind has none."""
    return {
        "p": move.player,
        "kind": move.kind,
        "tile": TILE_NAME[move.tile] if move.tile is not None else None,
        "end": move.end,
        "points": move.points,
        "ends_sum": move.ends_sum,
    }


def placed_to_json(tile: int, touch: int, stavka_tile: int | None) -> dict[str, Any]:
    """One tile of a board line: ``touch`` is its half that touches the line."""
    return {
        "tile": TILE_NAME[tile],
        "touch": touch,
        "outer": OTHER_HALF[tile][touch],
        "double": IS_DOUBLE[tile],
        "stavka": tile == stavka_tile,
    }


def opening_to_json(tile: int, left: int, stavka_tile: int | None) -> dict[str, Any]:
    """The opening tile, ``left`` its half on end L."""
    return {
        "tile": TILE_NAME[tile],
        "left": left,
        "right": OTHER_HALF[tile][left],
        "double": IS_DOUBLE[tile],
        "stavka": tile == stavka_tile,
    }


def summary_to_json(h: HandSummary) -> dict[str, Any]:
    """A finished hand of ``previous``."""
    return {
        "number": h.number,
        "opener": h.opener,
        "end": h.end,
        "winner": h.winner,
        "points": h.points,
        "reason": h.reason,
        "score_after": list(h.score_after),
        "left_in_hand": [[TILE_NAME[t] for t in hand] for hand in h.left_in_hand],
    }


def board_to_json(board: BoardView) -> dict[str, Any]:
    """The ``board`` of a view."""
    stavka_tile = DOUBLE_OF[board.stavka] if board.stavka >= 0 else None
    lines: dict[str, list[dict[str, Any]]] = {}
    for e, line in enumerate(board.lines):
        lines[END_NAMES[e]] = [
            placed_to_json(tile, touch, stavka_tile) for tile, touch in line
        ]
    opening = None
    if board.opening is not None:
        opening = opening_to_json(*board.opening, stavka_tile)
    return {
        "ends": [
            {"end": END_NAMES[e], "asks": board.ask[e], "counts": board.value[e]}
            for e in range(4)
            if board.ask[e] >= 0
        ],
        "ends_sum": board.ends_sum,
        "stavka": (
            {"number": board.stavka, "closed": board.stavka_closed}
            if board.stavka >= 0
            else None
        ),
        "opening": opening,
        "lines": lines,
    }


def view_to_json(view: PlayerView) -> dict[str, Any]:
    """The JSON form of ``view`` (see module docstring; field names are stable)."""
    return {
        "player": view.player,
        "target": view.target,
        "bazaar": view.bazaar,
        "scores": list(view.scores),
        "hand_number": view.hand_number,
        "turn": view.turn,
        "over": view.over,
        "winner": view.winner,
        "forfeit_reason": view.forfeit_reason,
        "hand": [TILE_NAME[t] for t in view.hand],
        "hand_counts": list(view.hand_counts),
        "hand_points": list(view.hand_points),
        "bazaar_counts": {
            "drawable": view.drawable_count,
            "out_of_play": view.out_of_play_count,
            "drawn": view.drawn_count,
        },
        "pending": TILE_NAME[view.pending] if view.pending is not None else None,
        "forced_opening": (
            TILE_NAME[view.forced_opening] if view.forced_opening is not None else None
        ),
        "board": board_to_json(view.board),
        "moves": [public_move_to_json(m) for m in view.moves],
        "legal": [action_to_json(c) for c in view.legal],
        "previous": [summary_to_json(h) for h in view.previous],
        "last_board": board_to_json(view.last_board) if view.last_board is not None else None,
    }
