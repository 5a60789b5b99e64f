"""The FastAPI application: its lifespan runs the platform (:mod:`kva.platform`, the
composition root), then the identity and language middleware, and the routers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from kva import platform
from kva.config import Settings
from kva.service.ratelimit import AuthRateLimiter
from kva.web import accounts, errors, learn, lobby, pages, preferences, profiles, wallet, ws
from kva.web.bodylimit import BodyLimit
from kva.web.botapi import install as install_bot_api
from kva.web.identity import SessionCodec
from kva.web.middleware import IdentityAndLanguage

log = logging.getLogger(__name__)
STATIC = Path(__file__).with_name("static")


def create_app(settings: Settings, bot_executor: Executor | None = None) -> FastAPI:
    """The platform as an ASGI app configured by ``settings`` (``bot_executor``: where bots
    think; spawned worker processes by default)."""
    # One limiter for the app's whole life, whatever number of times its lifespan runs.
    limiter = platform.rate_limiter(settings)
    app = FastAPI(lifespan=_lifespan(settings, bot_executor, limiter),
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.codec = SessionCodec(settings.secret_key)  # reads cookies of the old scheme

    app.add_middleware(IdentityAndLanguage, settings=settings, codec=app.state.codec)
    # Outermost: an oversized body is refused before any cookie or session is looked at.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes,
                       timeout=settings.body_timeout)
    _install_error_pages(app)
    _install_routes(app)
    return app


def _lifespan(settings: Settings, bot_executor: Executor | None,
              limiter: AuthRateLimiter
              ) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: the platform (:func:`kva.platform.running`) started before the
    first request, and stopped after the last."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with platform.running(settings, bot_executor, limiter) as svc:
            app.state.services = svc
            yield

    return lifespan


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
    learn.install(app)  # /learn, /strategy, /rules/kozel, post-game analysis
    preferences.install(app)  # /settings and the web app manifest


def app_from_env() -> FastAPI:
    """The app configured by the ``KVA_*`` environment: the factory uvicorn's worker
    processes call (``kva serve --workers N``; ``uvicorn --factory kva.web.app:app_from_env``)."""
    return create_app(Settings.from_env())
