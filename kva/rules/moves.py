"""One move encoder: a log entry or an action code as JSON, in one place.

A hand's log holds :data:`~kva.rules.hand.LogEntry` tuples ``(player, code, x, points,
ends_sum)``: for a placement ``x`` is the touching half (for the opening, the half on ``L``),
for a draw the drawn tile, for a pass -1. :func:`move_to_json` writes one as the event the
WebSocket sends; the record form (:func:`move_to_record`) is derived from it.
:func:`code_parts` is the one decoder of an action code into kind, tile and end, which the
actions, the views and the encoder share.

>>> from kva.rules.codes import DRAW, open_code, play_code
>>> from kva.rules.tiles import TILE_ID
>>> move_to_json((0, open_code(TILE_ID[5][5]), 5, 10, 10))
{'kind': 'open', 'p': 0, 'tile': '5-5', 'points': 10}
>>> entry = (1, play_code(TILE_ID[4][5], 0), 5, 0, 9)
>>> move_to_json(entry)
{'kind': 'play', 'p': 1, 'tile': '5-4', 'end': 'L', 'points': 0, 'ends_sum': 9}
>>> move_to_record(entry)
{'p': 1, 'play': '5-4', 'end': 'L', 'points': 0, 'ends_sum': 9}
>>> move_to_record((0, DRAW, TILE_ID[0][3], 0, -1))
{'p': 0, 'draw': '0-3'}
"""

from __future__ import annotations

from typing import Any, Literal

from kva.rules.codes import DRAW, END_NAMES, OPEN_BASE, PASS
from kva.rules.hand import LogEntry
from kva.rules.tiles import TILE_COUNT, TILE_NAME, tile_name

MoveKind = Literal["open", "play", "draw", "pass"]


def code_parts(code: int) -> tuple[MoveKind, int | None, str | None]:
    """The kind of an action code, the tile it places (None for a draw or a pass) and the end
    it uses (None but for a play on an end).

    >>> from kva.rules.codes import PASS, play_code
    >>> code_parts(play_code(27, 1))
    ('play', 27, 'R')
    >>> code_parts(PASS)
    ('pass', None, None)
    """
    if code == DRAW:
        return "draw", None, None
    if code == PASS:
        return "pass", None, None
    if 0 <= code < OPEN_BASE:
        return "play", code >> 2, END_NAMES[code & 3]
    if OPEN_BASE <= code < OPEN_BASE + 2 * TILE_COUNT:
        return "open", (code - OPEN_BASE) >> 1, None
    raise ValueError(f"no action has code {code!r}")


def move_to_json(entry: LogEntry) -> dict[str, Any]:
    """The event of one log entry, as the WebSocket sends it: ``kind`` (open, play, draw,
    pass), ``p``, and as the kind has them ``tile`` (written touching half first; for the
    opening, the half on L first), ``end``, ``points`` and ``ends_sum``."""
    p, code, x, points, ends_sum = entry
    kind, tile, end = code_parts(code)
    if kind == "draw":
        return {"kind": kind, "p": p, "tile": TILE_NAME[x]}
    if kind == "pass":
        return {"kind": kind, "p": p}
    assert tile is not None
    if kind == "open":
        return {"kind": kind, "p": p, "tile": tile_name(tile, x), "points": points}
    return {
        "kind": kind,
        "p": p,
        "tile": tile_name(tile, x),
        "end": end,
        "points": points,
        "ends_sum": ends_sum,
    }


def move_to_record(entry: LogEntry) -> dict[str, Any]:
    """The ``georgian-domino/1`` record form of one log entry, derived from
    :func:`move_to_json`: ``{"p", "draw": tile}``, ``{"p", "pass": true}`` or
    ``{"p", "play": tile, ["end",] "points"[, "ends_sum"]}``."""
    event = move_to_json(entry)
    kind = event["kind"]
    if kind == "draw":
        return {"p": event["p"], "draw": event["tile"]}
    if kind == "pass":
        return {"p": event["p"], "pass": True}
    out: dict[str, Any] = {"p": event["p"], "play": event["tile"]}
    for key in ("end", "points", "ends_sum"):
        if key in event:
            out[key] = event[key]
    return out
