"""Events: what just happened to a match, as each viewer may see it.

Each viewer's event is built from that viewer's own view (one path for secrets): the event of
an action is its game's (:meth:`kva.games.LivePlay.action_event`), so a game shows each
viewer only what that viewer's view shows (a Georgian drawn tile reaches its drawer alone).
The other events (a join, a resignation, a forfeit, a cancelled table) are the same for
everyone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kva.games import LivePlay

Event = dict[str, Any]
#: The event of one change as a given viewer sees it, built from that viewer's view.
EventSource = Callable[[Any], Event]


def public(event: Event) -> EventSource:
    """An event everyone sees alike (a join, a resignation, a forfeit, a cancelled table)."""
    return lambda _view: event


def action_source(play: LivePlay, state: Any, mark: Any, seat: int, action: Any) -> EventSource:
    """The event of the action ``seat`` just applied to ``state`` at ``mark`` (the game's
    :meth:`~kva.games.LivePlay.mark` taken before it), for each viewer's view."""
    return partial(play.action_event, state, mark, seat, action)


def resign_event(winner: int | None, loser: int) -> Event:
    """The event of ``loser`` resigning (the match is over; ``winner`` the seat that won)."""
    return {"kind": "resign", "p": loser, "winner": winner}


def join_event(seat: int) -> Event:
    """The event of a friend taking the free seat."""
    return {"kind": "join", "p": seat}
