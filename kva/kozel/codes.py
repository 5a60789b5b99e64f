"""Kozel actions as small int codes, and their JSON and text forms.

``tile * 2 + end`` places a tile on end L (0) or R (1); ``OPEN_BASE + tile`` opens the line (its
low half becomes end L); :data:`DRAW` takes the next bazaar tile; :data:`KNOCK` passes the turn.
"""

from __future__ import annotations

from typing import Any, Final

from kva.rules import IllegalAction, parse_tile
from kva.rules.engine import TILE_NAME

OPEN_BASE: Final = 56
DRAW: Final = 84
KNOCK: Final = 85
#: End names by index: the line always has exactly two ends.
ENDS: Final = ("L", "R")


def play_code(tile: int, end: int) -> int:
    """Place ``tile`` on end ``end`` (0 = L, 1 = R)."""
    return tile * 2 + end


def open_code(tile: int) -> int:
    """Open the line with ``tile``."""
    return OPEN_BASE + tile


def code_tile(code: int) -> int | None:
    """The tile a code places (None for a draw or a knock)."""
    if code < OPEN_BASE:
        return code >> 1
    if code < DRAW:
        return code - OPEN_BASE
    return None


def describe_action(code: int) -> str:
    """``open 1-1``, ``3-5 on L``, ``draw``, ``knock``.

    >>> [describe_action(c) for c in (open_code(7), play_code(20, 1), DRAW, KNOCK)]
    ['open 1-1', '3-5 on R', 'draw', 'knock']
    """
    if code == DRAW:
        return "draw"
    if code == KNOCK:
        return "knock"
    if code >= OPEN_BASE:
        return f"open {TILE_NAME[code - OPEN_BASE]}"
    return f"{TILE_NAME[code >> 1]} on {ENDS[code & 1]}"


def action_to_json(code: int) -> dict[str, Any]:
    """The JSON form of an action code: what a server offers a client."""
    if code == DRAW:
        return {"type": "draw"}
    if code == KNOCK:
        return {"type": "knock"}
    if code >= OPEN_BASE:
        return {"type": "play", "tile": TILE_NAME[code - OPEN_BASE]}
    return {"type": "play", "tile": TILE_NAME[code >> 1], "end": ENDS[code & 1]}


def action_from_json(message: Any, legal: list[int] | tuple[int, ...]) -> int:
    """The legal code a client's message names; IllegalAction saying why for anything else.

    >>> action_from_json({"type": "play", "tile": "5-3", "end": "R"}, [play_code(20, 1)])
    41
    >>> action_from_json({"type": "draw"}, [KNOCK])
    Traceback (most recent call last):
    ...
    kva.rules.hand.IllegalAction: you cannot draw now
    """
    if not isinstance(message, dict):
        raise IllegalAction("an action must be an object")
    kind = message.get("type")
    if kind in ("draw", "knock"):
        code = DRAW if kind == "draw" else KNOCK
        if code not in legal:
            raise IllegalAction(f"you cannot {kind} now")
        return code
    if kind != "play":
        raise IllegalAction("unknown action type: play, draw or knock")
    text = message.get("tile")
    try:
        tile = parse_tile(text) if isinstance(text, str) else None
    except ValueError:
        tile = None
    if tile is None:
        raise IllegalAction("a tile must be a string like '6-4'")
    end = message.get("end")
    if end is not None and end not in ENDS:
        raise IllegalAction("end must be L or R")
    matching = [c for c in legal if c < DRAW and code_tile(c) == tile]
    if end is not None:
        matching = [c for c in matching if c < OPEN_BASE and ENDS[c & 1] == end]
    if not matching:
        raise IllegalAction(f"{TILE_NAME[tile]} cannot be placed{' on ' + end if end else ''} now")
    if len(matching) > 1:
        raise IllegalAction(f"{TILE_NAME[tile]} fits both ends: say which")
    return matching[0]
