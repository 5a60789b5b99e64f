"""The play service, split by concern (each module has one job):

* :mod:`~kva.service.play.live`: seats, the in-memory match, the cache that loads them;
* :mod:`~kva.service.play.tables`: the one path that starts a match; tables, joining (the
  deal happens when the second player sits), cancelling, who may watch a private match;
* :mod:`~kva.service.play.reads`: the game page's facts, a viewer's state, records, lists;
* :mod:`~kva.service.play.acting`: actions, resignations, server-decided forfeits;
* :mod:`~kva.service.play.commit`: store at the next version, then publish per-viewer states;
* :mod:`~kva.service.play.scheduler`: every timer of a live match, on one injected clock;
* :mod:`~kva.service.play.turns`: bot moves and forced draws and passes;
* :mod:`~kva.service.play.clock_timers`: the timers of the match clocks that run here;
* :mod:`~kva.service.play.commands`: every change to a live match as a typed command, with
  the wire form it is forwarded in;
* :mod:`~kva.service.play.operations`: the changes and automatic work, as a router runs them;
* :mod:`~kva.service.play.routing`: which process makes each change (one alone, or the owner
  of the match's lease: :mod:`~kva.service.play.owners`, :mod:`~kva.service.play.watchers`);
* :mod:`~kva.service.play.settings`: the settings that may change while the service runs;
* :mod:`~kva.service.play.service`: :class:`PlayService`, which composes them.
"""

from kva.service.play.live import VIEWER_KEYS, LiveMatch, Seat, topic, viewer_key
from kva.service.play.reads import MatchInfo, MatchSummary
from kva.service.play.service import PlayService

__all__ = [
    "VIEWER_KEYS",
    "LiveMatch",
    "MatchInfo",
    "MatchSummary",
    "PlayService",
    "Seat",
    "topic",
    "viewer_key",
]
