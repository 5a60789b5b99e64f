"""Events: what just happened to a match, as each viewer may see it.

The service builds one full event per committed change (a drawn tile included) and
:func:`event_for` cuts it down per viewer: only the drawer learns which tile was drawn. Revealed
hands at a hand's end are public by then (they are also in every view's ``previous``).
"""

from __future__ import annotations

from typing import Any

from kva.rules import Match
from kva.rules.moves import move_to_json

Event = dict[str, Any]


def move_event(p: int, code: int, x: int, points: int, ends_sum: int) -> Event:
    """The full event of one log entry ``(player, code, x, points, ends_sum)``."""
    return move_to_json((p, code, x, points, ends_sum))


def action_event(match: Match, hand_index: int) -> Event:
    """The event of the action just applied in hand ``hand_index`` of ``match``: the move itself,
    wrapped as ``hand_end``/``match_end`` when it ended the hand or the match."""
    played = match.hands[hand_index]
    move = move_event(*played.state.log[-1])
    if played.result is None:
        return move
    result = played.result
    assert played.score_after is not None
    return {
        "kind": "match_end" if match.over else "hand_end",
        "p": move["p"],
        "move": move,
        "hand": hand_index + 1,
        "result": {
            "end": result.end,
            "winner": result.winner,
            "points": result.points,
            "score_after": list(played.score_after),
        },
    }


def resign_event(match: Match, loser: int) -> Event:
    """The event of ``loser`` resigning (the match is over)."""
    return {"kind": "resign", "p": loser, "winner": match.winner}


def join_event(seat: int) -> Event:
    """The event of a friend taking the free seat."""
    return {"kind": "join", "p": seat}


def event_for(event: Event | None, viewer: int | None) -> Event | None:
    """``event`` as ``viewer`` (a seat, or None for a spectator) may see it."""
    if event is None:
        return None
    move = event.get("move")
    if move is not None and move.get("kind") == "draw" and move.get("p") != viewer:
        return {**event, "move": {k: v for k, v in move.items() if k != "tile"}}
    if event.get("kind") == "draw" and event.get("p") != viewer:
        return {k: v for k, v in event.items() if k != "tile"}
    return event
