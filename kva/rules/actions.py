"""Actions as people and clients write them: text for the terminal, JSON for the WebSocket.

A client says ``{"type": "play", "tile": "6-4", "end": "R"}`` (``end`` omitted for the opening or
when the tile fits one end only), ``{"type": "draw"}`` or ``{"type": "pass"}``; the engine wants an
int code. :func:`action_from_json` maps one to the other against the legal codes, so a bad or
illegal action is a clear :class:`IllegalAction` and never reaches the state.
"""

from __future__ import annotations

from typing import Any

from kva.rules.codes import DRAW, END_INDEX, END_NAMES, OPEN_BASE, PASS, code_tile
from kva.rules.hand import IllegalAction
from kva.rules.moves import code_parts
from kva.rules.tiles import TILE_NAME, parse_tile, tile_name


def describe_action(code: int, first: int | None = None) -> str:
    """``open 6-6``, ``6-4 on R``, ``draw``, ``pass``; ``first`` orients the tile's halves."""
    kind, tile, end = code_parts(code)
    if tile is None:
        return kind
    name = tile_name(tile, first)
    return f"open {name}" if end is None else f"{name} on {end}"


def action_to_json(code: int) -> dict[str, Any]:
    """The JSON form of a legal action code (what the server offers a client)."""
    kind, tile, end = code_parts(code)
    if tile is None:
        return {"type": kind}
    if end is None:
        return {"type": "play", "tile": TILE_NAME[tile]}
    return {"type": "play", "tile": TILE_NAME[tile], "end": end}


def _shown(value: Any) -> str:
    """A short description of a client's JSON value for an error message."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 12 else repr(value[:12] + "…")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def action_from_json(message: Any, legal: list[int] | tuple[int, ...]) -> int:
    """The legal code a client's action message names; IllegalAction with a short reason for
    anything else, whatever JSON value ``message`` and its fields are."""
    if not isinstance(message, dict):
        raise IllegalAction(f"an action must be an object, not {_shown(message)}")
    kind = message.get("type")
    if kind == "draw":
        if DRAW not in legal:
            raise IllegalAction("you cannot draw now")
        return DRAW
    if kind == "pass":
        if PASS not in legal:
            raise IllegalAction("you cannot pass now")
        return PASS
    if kind != "play":
        raise IllegalAction(f"unknown action type {_shown(kind)}: play, draw or pass")
    text = message.get("tile")
    if not isinstance(text, str):
        raise IllegalAction(f"a tile must be a string like '6-4', not {_shown(text)}")
    try:
        tile = parse_tile(text)
    except ValueError:
        raise IllegalAction(
            f"not a tile: {_shown(text)} (expected 'a-b' with halves 0..6)"
        ) from None
    end = message.get("end")
    if end is not None and (not isinstance(end, str) or end not in END_INDEX):
        raise IllegalAction(f"end must be L, R, U or D, not {_shown(end)}")
    matching = [c for c in legal if c < DRAW and code_tile(c) == tile]
    if end is not None:
        matching = [c for c in matching if c < OPEN_BASE and c & 3 == END_INDEX[end]]
    if not matching:
        where = f" on {end}" if end is not None else ""
        raise IllegalAction(f"{TILE_NAME[tile]} cannot be placed{where} now")
    if len(matching) > 1:
        ends = ", ".join(END_NAMES[c & 3] for c in matching)
        raise IllegalAction(f"{TILE_NAME[tile]} fits several ends ({ends}): say which")
    return matching[0]
