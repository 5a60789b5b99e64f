"""``kva serve``: run the platform (web pages, WebSocket play, bots) in one process.

With no configuration it uses a SQLite file in ``./var/``, applies the migrations, and keeps
the broker in memory; ``docs/configuration.md`` lists the ``KVA_*`` variables that change that.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging


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
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start the server and block until it is stopped."""
    import uvicorn

    from kva.web.app import create_app
    from kva.web.settings import Settings

    settings = Settings.from_env()
    overrides = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    settings = dataclasses.replace(settings, **overrides)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    print(f"kva: serving on http://{settings.host}:{settings.port}", flush=True)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=args.log_level,
        ws_max_size=64 * 1024,
        proxy_headers=False,
    )
    return 0
