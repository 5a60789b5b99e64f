"""The per-player view as plain JSON data: what the server sends a client, and nothing more.

This is the contract between the play service and the browser (and any other client). It is
built only from a :class:`PlayerView`, so it cannot leak what the view does not hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from kva.rules.actions import action_to_json
from kva.rules.codes import DRAW, END_NAMES, OPEN_BASE, PASS
from kva.rules.moves import public_move_to_json
from kva.rules.tiles import (
    DOUBLE_OF,
    IS_DOUBLE,
    OTHER_HALF,
    TILE_COUNT,
    TILE_HIGH,
    TILE_LOW,
    TILE_NAME,
)
from kva.rules.view import BoardView, HandSummary, PlayerView, PublicMove

#: How the play service encodes a state (compact, not ASCII-escaped); the texts built here
#: are exactly what it would write for the same data.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

def moves_json_text(moves: tuple[PublicMove, ...]) -> str:
    """``json.dumps`` of the ``moves`` of :func:`view_to_json`, compact and not ASCII-escaped
    (as the play service sends states), each move encoded once in its life: its text is kept
    with it (:attr:`~kva.rules.view.PublicMove.json_text`)."""
    return f'[{",".join([m.json_text or _kept_text(m, public_move_to_json) for m in moves])}]'


def _kept_text(item: PublicMove | HandSummary, to_json: Callable[[Any], dict[str, Any]]) -> str:
    """``item``'s text, written now and kept in its ``json_text`` (the frozen object's memo:
    ``compare=False``, not an ``__init__`` argument)."""
    text = _encode(to_json(item))
    object.__setattr__(item, "json_text", text)
    return text


def _placed_to_json(tile: int, touch: int, stavka_tile: int | None) -> dict[str, Any]:
    """One tile of a board line: ``touch`` is its half that touches the line."""
    return {
        "tile": TILE_NAME[tile],
        "touch": touch,
        "outer": OTHER_HALF[tile][touch],
        "double": IS_DOUBLE[tile],
        "stavka": tile == stavka_tile,
    }


def _opening_to_json(tile: int, left: int, stavka_tile: int | None) -> dict[str, Any]:
    """The opening tile, ``left`` its half on end L."""
    return {
        "tile": TILE_NAME[tile],
        "left": left,
        "right": OTHER_HALF[tile][left],
        "double": IS_DOUBLE[tile],
        "stavka": tile == stavka_tile,
    }


def _summary_to_json(h: HandSummary) -> dict[str, Any]:
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


def _board_to_json(board: BoardView) -> dict[str, Any]:
    """The ``board`` of a view."""
    stavka_tile = DOUBLE_OF[board.stavka] if board.stavka >= 0 else None
    lines: dict[str, list[dict[str, Any]]] = {}
    for e, line in enumerate(board.lines):
        lines[END_NAMES[e]] = [
            _placed_to_json(tile, touch, stavka_tile) for tile, touch in line
        ]
    opening = None
    if board.opening is not None:
        opening = _opening_to_json(*board.opening, stavka_tile)
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


def view_to_json(view: PlayerView, *, moves: Any = None) -> dict[str, Any]:
    """The JSON form of ``view`` (see module docstring; field names are stable). ``moves``,
    if given, stands in for the list of moves (a placeholder the caller replaces by
    :func:`moves_json_text` in the encoded text)."""
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
        "board": _board_to_json(view.board),
        "moves": [public_move_to_json(m) for m in view.moves] if moves is None else moves,
        "legal": [action_to_json(c) for c in view.legal],
        "previous": [_summary_to_json(h) for h in view.previous],
        "last_board": _board_to_json(view.last_board) if view.last_board is not None else None,
    }


# ----------------------------------------------------------------- the same, as text
#
# The play service sends every viewer a state after every action; building the dict above and
# encoding it cost more than anything else in the state. :func:`view_json_text` writes the
# same text from fragments: tables of every placed tile's, legal action's and tile name's text
# (built once, from the functions above), each finished hand's text kept, and the board's text
# kept for the next view of the same board (both players and the spectators see one board).


def _placements(
    make: Callable[[int, int, int | None], dict[str, Any]],
) -> tuple[dict[tuple[int, int], str], ...]:
    """For each stavka (index ``stavka + 1``; 0: none yet), the text ``make`` gives every
    tile with each of its halves."""
    tables = []
    for stavka in range(-1, 7):
        stavka_tile = DOUBLE_OF[stavka] if stavka >= 0 else None
        tables.append({
            (tile, half): _encode(make(tile, half, stavka_tile))
            for tile in range(TILE_COUNT)
            for half in (TILE_LOW[tile], TILE_HIGH[tile])
        })
    return tuple(tables)


_PLACED_TEXT = _placements(_placed_to_json)
_OPENING_TEXT = _placements(_opening_to_json)
#: A tile's name as a JSON string.
_TILE_TEXT: tuple[str, ...] = tuple(_encode(name) for name in TILE_NAME)
#: Every action code's :func:`action_to_json` as text.
_LEGAL_TEXT: dict[int, str] = {
    code: _encode(action_to_json(code))
    for code in (*range(OPEN_BASE + 2 * TILE_COUNT), DRAW, PASS)
}
_END_TEXT: tuple[str, ...] = tuple('{"end":' + _encode(name) + ',"asks":' for name in END_NAMES)

#: The text of the last board encoded, kept for the views after it of an equal board.
_BOARD_KEPT: tuple[BoardView | None, str] = (None, "")


def _board_text(board: BoardView) -> str:
    global _BOARD_KEPT
    kept = _BOARD_KEPT
    if kept[0] is board or kept[0] == board:
        return kept[1]
    stavka = board.stavka
    table = stavka + 1 if stavka >= 0 else 0
    ask = board.ask
    value = board.value
    ends = ",".join([
        f"{_END_TEXT[e]}{ask[e]},\"counts\":{value[e]}}}" for e in range(4) if ask[e] >= 0
    ])
    if stavka < 0:
        stavka_text = "null"
    else:
        closed = "true" if board.stavka_closed else "false"
        stavka_text = f'{{"number":{stavka},"closed":{closed}}}'
    opening = board.opening
    opening_text = "null" if opening is None else _OPENING_TEXT[table][opening]
    get = _PLACED_TEXT[table].__getitem__
    lines = ",".join([
        f'"{END_NAMES[e]}":[{",".join(map(get, line))}]' for e, line in enumerate(board.lines)
    ])
    text = (
        f'{{"ends":[{ends}],"ends_sum":{board.ends_sum},"stavka":{stavka_text},'
        f'"opening":{opening_text},"lines":{{{lines}}}}}'
    )
    _BOARD_KEPT = (board, text)
    return text


def _previous_text(previous: tuple[HandSummary, ...]) -> str:
    return f'[{",".join([h.json_text or _kept_text(h, _summary_to_json) for h in previous])}]'


def view_json_text(view: PlayerView) -> str:
    """Exactly ``json.dumps(view_to_json(view), ensure_ascii=False, separators=(",", ":"))``
    (as the play service encodes states), built faster from kept texts (see above)."""
    try:
        return _view_text(view)
    except (KeyError, IndexError, TypeError):  # nothing the engine makes: the plain way
        return _encode(view_to_json(view))


def _view_text(view: PlayerView) -> str:
    player = view.player
    turn = view.turn
    winner = view.winner
    reason = view.forfeit_reason
    pending = view.pending
    forced = view.forced_opening
    scores = view.scores
    counts = view.hand_counts
    points = view.hand_points
    tile_text = _TILE_TEXT
    return (
        f'{{"player":{"null" if player is None else player},"target":{view.target},'
        f'"bazaar":{encode_basestring(view.bazaar)},'
        f'"scores":[{scores[0]},{scores[1]}],'
        f'"hand_number":{view.hand_number},'
        f'"turn":{"null" if turn is None else turn},'
        f'"over":{"true" if view.over else "false"},'
        f'"winner":{"null" if winner is None else winner},'
        f'"forfeit_reason":{"null" if reason is None else encode_basestring(reason)},'
        f'"hand":[{",".join([tile_text[t] for t in view.hand])}],'
        f'"hand_counts":[{counts[0]},{counts[1]}],'
        f'"hand_points":[{points[0]},{points[1]}],'
        f'"bazaar_counts":{{"drawable":{view.drawable_count},'
        f'"out_of_play":{view.out_of_play_count},"drawn":{view.drawn_count}}},'
        f'"pending":{"null" if pending is None else tile_text[pending]},'
        f'"forced_opening":{"null" if forced is None else tile_text[forced]},'
        f'"board":{_board_text(view.board)},'
        f'"moves":{moves_json_text(view.moves)},'
        f'"legal":[{",".join(map(_LEGAL_TEXT.__getitem__, view.legal))}],'
        f'"previous":{_previous_text(view.previous)},'
        f'"last_board":{_last_board_text(view.last_board)}}}'
    )


def _last_board_text(board: BoardView | None) -> str:
    """The last hand's final board: sent in a new hand's first few states only, so written
    the plain way (the kept text of :func:`_board_text` stays the current board's)."""
    return "null" if board is None else _encode(_board_to_json(board))
