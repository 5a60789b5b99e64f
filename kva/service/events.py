"""Events: what just happened to a match, as each viewer may see it.

Each viewer's event is built from that viewer's own :func:`~kva.rules.player_view` (one path
for secrets): a drawn tile is in the event only where the view's move shows it, so only the
drawer learns it. Revealed hands at a hand's end are public by then (they are also in every
view's ``previous``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kva.rules import Match, PlayerView, hand_moves, move_to_json
from kva.rules.engine import TILE_NAME

Event = dict[str, Any]
#: The event of one change as a given viewer sees it, built from that viewer's view.
EventSource = Callable[[PlayerView], Event]


def public(event: Event) -> EventSource:
    """An event everyone sees alike (a join, a resignation, a forfeit, a cancelled table)."""
    return lambda _view: event


def move_event(p: int, code: int, x: int, points: int, ends_sum: int) -> Event:
    """The full event of one log entry ``(player, code, x, points, ends_sum)``."""
    return move_to_json((p, code, x, points, ends_sum))


def action_event(match: Match, hand_index: int, view: PlayerView) -> Event:
    """The event of the action just applied in hand ``hand_index`` of ``match``, as the viewer
    of ``view`` sees it: the move itself, wrapped as ``hand_end``/``match_end`` when it ended
    the hand or the match. A draw's tile is there only if the view's move shows it."""
    played = match.hands[hand_index]
    move = move_event(*played.state.log[-1])
    if move["kind"] == "draw":
        current = played is match.hands[-1] and len(view.moves) == len(played.state.log)
        seen = view.moves[-1] if current else hand_moves(played, view.player)[-1]
        move = {k: v for k, v in move.items() if k != "tile"}
        if seen.tile is not None:
            move["tile"] = TILE_NAME[seen.tile]
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
