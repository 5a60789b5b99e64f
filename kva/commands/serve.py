"""``kva serve``: run the platform (web pages, WebSocket play, bots).

With no configuration it uses a SQLite file in ``./var/``, applies the migrations, and keeps
the broker in memory; ``docs/configuration.md`` lists the ``KVA_*`` variables that change that.
``--workers N`` runs N processes on the same port (uvicorn's workers, each building the app
with :func:`kva.web.app.app_from_env`); they must share a Redis broker, and should share a
PostgreSQL database (docs/deployment.md).

``KVA_WS_DEFLATE=0`` turns off the WebSockets' per-message deflate (on by default): states
travel about 11 times larger (2.6 KB instead of ~0.23 KB), and the server saves the
compression's CPU and its memory per socket (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import sys
from typing import Any

from kva.config import ConfigurationError, Settings
from kva.settings.caps import EngineOptions

#: The import string uvicorn's worker processes build the app from.
APP_FACTORY = "kva.web.app:app_from_env"


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``serve`` with the ``kva`` command."""
    parser = subparsers.add_parser(
        "serve", help="run the platform on http://127.0.0.1:8000",
        description="Run the kva platform: pages, real-time play over WebSocket, bots.",
    )
    parser.add_argument("--host", default=None, help="address to bind (default: KVA_HOST or "
                                                     "127.0.0.1)")
    parser.add_argument("--port", type=int, default=None,
                        help="port to listen on (default: KVA_PORT or 8000)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="processes serving the same port (default 1; more than one needs "
                             "KVA_BROKER_URL=redis://..., see docs/deployment.md)")
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug"])
    parser.set_defaults(func=run)


def workers_problem(settings: Settings, workers: int) -> tuple[str | None, list[str]]:
    """Why ``workers`` processes cannot serve with ``settings`` (None if they can), and the
    warnings worth printing."""
    if workers < 1:
        return "--workers must be at least 1", []
    try:
        settings.match_ids()  # KVA_UPSTREAMS must list this process
    except ValueError as exc:
        return str(exc), []
    if workers == 1:
        return None, []
    broker = settings.broker_url or "memory"
    if not broker.startswith(("redis://", "rediss://", "unix://")):
        return (f"--workers {workers} needs a shared broker: set KVA_BROKER_URL=redis://host:6379/0"
                " (with the in-memory broker, players on different processes would never see"
                " each other's moves, and quick game would never pair them)"), []
    warnings = []
    if settings.database_url.startswith("sqlite"):
        warnings.append("SQLite has one writer at a time: with several processes, use "
                        "PostgreSQL (KVA_DATABASE_URL=postgresql://...) for anything but a trial")
    if not settings.rate_limit_storage.startswith(("redis://", "rediss://")):
        warnings.append("rate limits are counted per process (KVA_RATE_LIMIT_STORAGE="
                        f"{settings.rate_limit_storage}): each process allows the full limit")
    return None, warnings


def uvicorn_options(settings: Settings, log_level: str) -> dict[str, Any]:
    """What every serving process is run with: frames of at most 64 KiB, no proxy headers
    (kva's own middleware reads them, from the trusted proxies only), per-message deflate
    unless ``KVA_WS_DEFLATE=0``, and WebSocket and HTTP protocols whose objects are freed when
    their connection ends or is upgraded (:mod:`kva.web.wsprotocol`)."""
    from kva.web.wsprotocol import FreedOnCloseWebSocketProtocol, FreedOnUpgradeHttpToolsProtocol

    return {"host": settings.host, "port": settings.port, "log_level": log_level,
            "ws_max_size": 64 * 1024, "proxy_headers": False,
            "ws_per_message_deflate": settings.ws_deflate, "ws": FreedOnCloseWebSocketProtocol,
            "http": FreedOnUpgradeHttpToolsProtocol}


def run(args: argparse.Namespace) -> int:
    """Start the server and block until it is stopped."""
    import uvicorn

    try:  # also creates var/secret_key once, before any worker
        settings = Settings.from_env()
    except ConfigurationError as exc:
        print(f"kva serve: {exc}", file=sys.stderr, flush=True)
        return 2
    overrides = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    settings = dataclasses.replace(settings, **overrides)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    problem, warnings = workers_problem(settings, args.workers)
    if problem is not None:
        print(f"kva serve: {problem}", file=sys.stderr, flush=True)
        return 2
    for warning in warnings:
        print(f"kva serve: warning: {warning}", file=sys.stderr, flush=True)
    common = uvicorn_options(settings, args.log_level)
    if args.workers == 1:
        from kva.web.app import create_app

        print(f"kva: serving on http://{settings.host}:{settings.port}", flush=True)
        uvicorn.run(create_app(settings), **common)
        return 0
    # The workers read the environment again (the one way settings reach them): hand them
    # what the command line changed.
    os.environ["KVA_HOST"] = settings.host
    os.environ["KVA_PORT"] = str(settings.port)
    # Migrated once, before N processes start at once.
    asyncio.run(_migrate(settings.database_url, settings.engine_options()))
    print(f"kva: serving on http://{settings.host}:{settings.port} with {args.workers} "
          "processes", flush=True)
    uvicorn.run(APP_FACTORY, factory=True, workers=args.workers, **common)
    return 0


async def _migrate(database_url: str, options: EngineOptions) -> None:
    from kva.storage.db import Database
    from kva.storage.migrate import upgrade

    database = Database(database_url, options)
    try:
        await upgrade(database.engine)
    finally:
        await database.dispose()
