"""The app's services as one typed object, built once by the composition root
(:func:`kva.platform.running`, run by the lifespan of :mod:`kva.web.app`).

Routes and sockets reach them with :func:`services` (``services(request).play``), never with
``app.state`` lookups that the type checker cannot follow.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from kva.config import Settings
from kva.service.cluster.broker import Broker
from kva.service.lobby.open_tables import Lobby
from kva.service.lobby.quickgame import QuickGame
from kva.service.lobby.rematch import RematchService
from kva.service.play import PlayService
from kva.service.play.presence import Presence
from kva.service.ratelimit import AuthRateLimiter
from kva.web.sockets import SocketRegistry


@dataclass(frozen=True, slots=True)
class Services:
    """Everything a route or a socket needs, for one running app."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    broker: Broker
    play: PlayService
    presence: Presence
    rematch: RematchService
    lobby: Lobby
    quick: QuickGame
    rate_limiter: AuthRateLimiter
    sockets: SocketRegistry


def services(where: HTTPConnection | Starlette) -> Services:
    """The services of the app serving ``where`` (a request, a WebSocket, or the app)."""
    app = where if isinstance(where, Starlette) else where.app
    found = getattr(app.state, "services", None)
    if not isinstance(found, Services):
        raise RuntimeError("the app's services are not running (lifespan not started)")
    return found
