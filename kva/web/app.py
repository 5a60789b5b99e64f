"""The FastAPI application: lifespan (database, migrations, broker, play service), the
identity and language middleware, and the routers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from kva.config import Settings
from kva.service.attendance import make_attendance
from kva.service.bots import make_executor
from kva.service.broker import Broker, make_broker
from kva.service.finish import default_finish_hooks
from kva.service.lobby import Lobby
from kva.service.play import PlayService
from kva.service.presence import Presence
from kva.service.presence_store import make_presence_store
from kva.service.quickshared import make_quick_game
from kva.service.ratelimit import AuthRateLimiter
from kva.service.rematch import RematchService
from kva.service.sweeper import TableSweeper
from kva.storage.db import create_engine, session_factory
from kva.storage.migrate import upgrade
from kva.web import accounts, errors, learn, lobby, pages, preferences, profiles, wallet, ws
from kva.web.bodylimit import BodyLimit
from kva.web.botapi import install as install_bot_api
from kva.web.identity import SessionCodec
from kva.web.middleware import IdentityAndLanguage
from kva.web.runtime import collecting_old_garbage, tune_gc
from kva.web.services import Services
from kva.web.sockets import SocketRegistry

log = logging.getLogger(__name__)
STATIC = Path(__file__).with_name("static")


def create_app(settings: Settings, bot_executor: Executor | None = None) -> FastAPI:
    """The platform as an ASGI app configured by ``settings`` (``bot_executor``: where bots
    think; spawned worker processes by default)."""
    # One limiter for the app's whole life, whatever number of times its lifespan runs.
    rate_limiter = AuthRateLimiter(settings.rate_limit_storage, settings.rate_limits(),
                                   settings.login_suspect_minutes)
    app = FastAPI(lifespan=_lifespan(settings, bot_executor, rate_limiter),
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.codec = SessionCodec(settings.secret_key)  # reads cookies of the old scheme

    app.add_middleware(IdentityAndLanguage, settings=settings, codec=app.state.codec)
    # Outermost: an oversized body is refused before any cookie or session is looked at.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    _install_error_pages(app)
    _install_routes(app)
    return app


def _lifespan(settings: Settings, bot_executor: Executor | None,
              rate_limiter: AuthRateLimiter
              ) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: the database (migrated), the broker and every service started
    before the first request, and stopped in the reverse order after the last."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = create_engine(settings.database_url, settings.engine_options())
        await upgrade(engine)
        broker = make_broker(settings.broker_url)
        await broker.start()
        sessions = session_factory(engine)
        executor = bot_executor if bot_executor is not None else make_executor()
        service = PlayService(sessions, broker, forced_delay=settings.forced_delay,
                              bot_delay=settings.bot_delay, bot_executor=executor,
                              seed_wait=settings.seed_wait, new_match_id=settings.match_ids(),
                              clock_presets={name: (move, reserve) for name, move, reserve
                                             in settings.clock_presets},
                              first_move_timeout=settings.first_move_timeout,
                              finish_hooks=default_finish_hooks())
        presence = Presence(broker, service, grace=settings.disconnect_grace,
                            first_move_timeout=settings.first_move_timeout,
                            store=make_presence_store(settings.broker_url))
        service.commit_hooks.append(presence.after_commit)
        svc = _services(settings, sessions, broker, service, presence, rate_limiter)
        app.state.services = svc
        sweeper = await _start(svc)
        try:
            async with collecting_old_garbage(settings.full_collection_every):
                yield
        finally:
            await _stop(svc, sweeper)
            if bot_executor is None:
                executor.shutdown(wait=True, cancel_futures=True)
            await engine.dispose()

    return lifespan


def _services(settings: Settings, sessions: async_sessionmaker[AsyncSession], broker: Broker,
              service: PlayService, presence: Presence,
              rate_limiter: AuthRateLimiter) -> Services:
    """The services around the play service and its presence, wired to it (none started
    yet)."""
    lobby_service = Lobby(sessions, broker, service, make_attendance(settings.broker_url))
    service.on_tables_changed(lobby_service.changed)
    quick = make_quick_game(service, broker, settings.broker_url)
    sockets = SocketRegistry(per_client=settings.ws_per_client,
                             per_match=settings.ws_per_match,
                             spectators_per_client=settings.ws_spectators_per_client)
    return Services(
        settings=settings, sessions=sessions, broker=broker, play=service,
        presence=presence, rematch=RematchService(sessions, broker, service),
        lobby=lobby_service, quick=quick, rate_limiter=rate_limiter, sockets=sockets)


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


def _install_error_pages(app: FastAPI) -> None:
    """The site's own error page for HTTP errors and for malformed input (400)."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        response = errors.error_page(request, exc.status_code, exc.detail)
        if exc.headers:  # e.g. Retry-After of a refusal
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_input(request: Request, exc: RequestValidationError) -> Response:
        return errors.error_page(request, 400, None)


def _install_routes(app: FastAPI) -> None:
    """The static files, the routers and the features that install their own routes."""
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.include_router(pages.router)
    app.include_router(ws.router)
    app.include_router(accounts.router)
    app.include_router(lobby.router)
    app.include_router(profiles.router)
    install_bot_api(app)  # /api/... (docs/bot-api.md), /bots, /settings/bot
    wallet.install(app)  # Domino Coin pages and refusals
    learn.install(app)  # /learn, /strategy and post-game analysis
    preferences.install(app)  # /settings and the web app manifest


def app_from_env() -> FastAPI:
    """The app configured by the ``KVA_*`` environment: the factory uvicorn's worker
    processes call (``kva serve --workers N``; ``uvicorn --factory kva.web.app:app_from_env``)."""
    return create_app(Settings.from_env())
