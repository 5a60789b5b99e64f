"""The per-player view as plain JSON data: what the server sends a client, and nothing more.

This is the contract between the play service and the browser (and any other client). It is
built only from a :class:`PlayerView`, so it cannot leak what the view does not hold.
"""

from __future__ import annotations

import json
from typing import Any

from kva.rules.actions import action_to_json
from kva.rules.codes import END_NAMES
from kva.rules.moves import public_move_to_json
from kva.rules.tiles import DOUBLE_OF, IS_DOUBLE, OTHER_HALF, TILE_NAME
from kva.rules.view import PlayerView, PublicMove

#: Texts of moves already encoded, by the identity of the (immutable) move; kept alive by
#: the entry itself, so an id is never reused while it is here. A view built after every action
#: shares its moves with the previous one (:class:`kva.rules.view.PublicLog`), so all but the
#: new move are found here.
_MOVE_TEXTS: dict[int, tuple[PublicMove, str]] = {}
_MOVE_TEXTS_KEPT = 50_000


def moves_json_text(moves: tuple[PublicMove, ...]) -> str:
    """``json.dumps`` of the ``moves`` of :func:`view_to_json`, compact and not ASCII-escaped
    (as the play service sends states), each move encoded once in the process's life."""
    texts = _MOVE_TEXTS
    parts = []
    for move in moves:
        kept = texts.get(id(move))
        if kept is None or kept[0] is not move:
            if len(texts) >= _MOVE_TEXTS_KEPT:
                texts.clear()
            kept = (move, json.dumps(public_move_to_json(move), ensure_ascii=False,
                                     separators=(",", ":")))
            texts[id(move)] = kept
        parts.append(kept[1])
    return "[" + ",".join(parts) + "]"


def view_to_json(view: PlayerView, *, moves: Any = None) -> dict[str, Any]:
    """The JSON form of ``view`` (see module docstring; field names are stable). ``moves``,
    if given, stands in for the list of moves (a placeholder the caller replaces by
    :func:`moves_json_text` in the encoded text)."""
    board = view.board
    stavka_tile = DOUBLE_OF[board.stavka] if board.stavka >= 0 else None
    lines: dict[str, list[dict[str, Any]]] = {}
    for e, line in enumerate(board.lines):
        lines[END_NAMES[e]] = [
            {
                "tile": TILE_NAME[tile],
                "touch": touch,
                "outer": OTHER_HALF[tile][touch],
                "double": IS_DOUBLE[tile],
                "stavka": tile == stavka_tile,
            }
            for tile, touch in line
        ]
    opening = None
    if board.opening is not None:
        tile, left = board.opening
        opening = {
            "tile": TILE_NAME[tile],
            "left": left,
            "right": OTHER_HALF[tile][left],
            "double": IS_DOUBLE[tile],
            "stavka": tile == stavka_tile,
        }
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
        "board": {
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
        },
        "moves": [public_move_to_json(m) for m in view.moves] if moves is None else moves,
        "legal": [action_to_json(c) for c in view.legal],
        "previous": [
            {
                "number": h.number,
                "opener": h.opener,
                "end": h.end,
                "winner": h.winner,
                "points": h.points,
                "reason": h.reason,
                "score_after": list(h.score_after),
                "left_in_hand": [[TILE_NAME[t] for t in hand] for hand in h.left_in_hand],
            }
            for h in view.previous
        ],
    }
