"""The composition root: the one place the running platform is put together from its
settings.

``kva serve`` runs it through the web app's lifespan (:mod:`kva.web.app`), and so do the
test suite's servers (tests/helpers/webhelp.py serves that app). :func:`running` makes the
database (migrated), the broker, the play service with its finish hooks and presence, the
lobby, the quick game, rematches and the socket registry, wires them to one another, starts
them, yields them as one :class:`~kva.web.services.Services`, and stops them in the reverse
order. Nothing else builds these objects for a serving process; everything that needs the
database is handed the :class:`~kva.storage.db.Database` made here, or what it gives out.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures import Executor
from contextlib import asynccontextmanager

from kva.config import Settings
from kva.service.cluster.attendance import RedisAttendance
from kva.service.cluster.broker import Broker, make_broker
from kva.service.cluster.presence_store import (
    MemoryPresenceStore,
    PresenceStore,
    RedisPresenceStore,
)
from kva.service.cluster.quickgame import RedisQuickGame
from kva.service.finish import default_finish_hooks
from kva.service.lobby.attendance import Attendance, MemoryAttendance
from kva.service.lobby.open_tables import Lobby
from kva.service.lobby.quickgame import MemoryQuickGame, QuickGame
from kva.service.lobby.rematch import RematchService
from kva.service.lobby.sweeper import TableSweeper
from kva.service.play import PlayService
from kva.service.play.bot_moves import make_executor
from kva.service.play.presence import Presence
from kva.service.ratelimit import AuthRateLimiter
from kva.storage.db import Database
from kva.storage.migrate import upgrade
from kva.web.runtime import collecting_old_garbage, tune_gc
from kva.web.services import Services
from kva.web.sockets import SocketRegistry


def shared_redis(settings: Settings) -> str | None:
    """The Redis URL this deployment's processes share (``KVA_BROKER_URL``), or None for a
    process alone (no broker URL, or ``memory``). The one choice between the in-memory and the
    Redis implementation of each part that processes share: the broker
    (:func:`~kva.service.cluster.broker.make_broker` reads the same setting), presence records,
    attendance and the quick-game queue."""
    url = settings.broker_url
    return url if url and url != "memory" else None


def rate_limiter(settings: Settings) -> AuthRateLimiter:
    """The counters of ``settings``' rate limits (one for an app's whole life, whatever number
    of times its lifespan runs)."""
    return AuthRateLimiter(settings.rate_limit_storage, settings.rate_limits(),
                           settings.login_suspect_minutes)


@asynccontextmanager
async def running(settings: Settings, bot_executor: Executor | None = None,
                  limiter: AuthRateLimiter | None = None) -> AsyncIterator[Services]:
    """The platform ``settings`` configure, started, until the block ends (``bot_executor``:
    where bots think, spawned worker processes by default; ``limiter``: the rate-limit
    counters, new ones by default)."""
    database = Database(settings.database_url, settings.engine_options())
    await upgrade(database.engine)
    broker = make_broker(settings.broker_url)
    await broker.start()
    executor = bot_executor if bot_executor is not None else make_executor()
    svc = build(settings, database, broker, executor,
                limiter if limiter is not None else rate_limiter(settings))
    sweeper = await _start(svc)
    try:
        async with collecting_old_garbage(settings.full_collection_every):
            yield svc
    finally:
        await _stop(svc, sweeper)
        if bot_executor is None:
            executor.shutdown(wait=True, cancel_futures=True)
        await database.dispose()


def build(settings: Settings, database: Database, broker: Broker, executor: Executor,
          limiter: AuthRateLimiter) -> Services:
    """Every service of the platform on ``database`` and ``broker``, wired to one another
    (none started yet)."""
    play = PlayService(database, broker, forced_delay=settings.forced_delay,
                       bot_delay=settings.bot_delay, bot_executor=executor,
                       seed_wait=settings.seed_wait, new_match_id=settings.match_ids(),
                       clock_presets={name: (move, reserve) for name, move, reserve
                                      in settings.clock_presets},
                       first_move_timeout=settings.first_move_timeout,
                       finish_hooks=default_finish_hooks())
    redis_url = shared_redis(settings)
    store: PresenceStore = (MemoryPresenceStore() if redis_url is None
                            else RedisPresenceStore(redis_url))
    attendance: Attendance = (MemoryAttendance() if redis_url is None
                              else RedisAttendance(redis_url))
    quick: QuickGame = (MemoryQuickGame(play, bot_offer=settings.quick_bot_offer)
                        if redis_url is None
                        else RedisQuickGame(play, broker, redis_url,
                                            bot_offer=settings.quick_bot_offer))
    presence = Presence(broker, play, grace=settings.disconnect_grace,
                        first_move_timeout=settings.first_move_timeout, store=store)
    play.commit_hooks.append(presence.after_commit)
    sessions = database.sessions
    lobby = Lobby(sessions, broker, play, attendance)
    play.on_tables_changed(lobby.changed)
    sockets = SocketRegistry(per_client=settings.ws_per_client,
                             per_match=settings.ws_per_match,
                             spectators_per_client=settings.ws_spectators_per_client)
    return Services(
        settings=settings, sessions=sessions, broker=broker, play=play, presence=presence,
        rematch=RematchService(sessions, broker, play), lobby=lobby,
        quick=quick, rate_limiter=limiter,
        sockets=sockets)


async def _start(svc: Services) -> TableSweeper:
    """Start the services (the broker is already); the sweeper of abandoned tables, which
    :func:`_stop` stops first."""
    await svc.sockets.start(svc.broker)  # revoked sessions' sockets close, whichever process
    await svc.play.start()
    await svc.presence.start()  # with Redis: presence records and process liveness shared
    tune_gc()  # start-up's heap frozen, collections rarer: no long pauses in the tail
    # Open tables whose creator left (no socket on any process for the grace period) go.
    sweeper = TableSweeper(svc.lobby, svc.play, svc.lobby.attendance,
                           grace=svc.settings.disconnect_grace)
    await svc.lobby.attendance.start()
    await sweeper.start()
    return sweeper


async def _stop(svc: Services, sweeper: TableSweeper) -> None:
    """Stop what :func:`_start` started, and the broker, in the reverse order."""
    await sweeper.stop()
    await svc.lobby.attendance.stop()
    await svc.sockets.stop()
    await svc.quick.stop()
    await svc.presence.stop()
    await svc.play.stop()
    await svc.broker.stop()
