"""The play service: tables, turn flow, forced actions, bot turns, resignation and persistence.

It knows nothing of HTTP: the web shell calls :class:`~kva.service.play.PlayService` and relays
what it publishes on the :mod:`broker <kva.service.cluster.broker>` to each connected viewer.
"""

from kva.service.errors import NotFound, PlayError, RatedOnly, WrongPassword
from kva.service.play import PlayService

__all__ = ["NotFound", "PlayError", "PlayService", "RatedOnly", "WrongPassword"]
