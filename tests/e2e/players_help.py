"""Helpers of the players' browser tests: two registered players and a match between them
written straight into the server's database, each browser signed in by a session token."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kva.service.accounts.sessions import open_session
from kva.service.ratings import rate_finished_match
from kva.storage.db import Database
from tests.e2e.e2e_helpers import Game
from tests.helpers.community_help import finished_match, make_user, store_match


def database_url(server: Any) -> str:
    """The database the browser tests' server runs on."""
    return str(server.database_url)


#: Session tokens of the players ``make_players`` made, by user id (what their cookie carries).
_tokens: dict[int, str] = {}


def make_players(server: Any, rated: bool = True, past: int = 0) -> tuple[Any, Any, str]:
    """Two registered players and an active match between them, in the server's database;
    with ``past``, that many rated matches between them already finished and rated."""

    async def run() -> tuple[Any, Any, str]:
        database = Database(database_url(server))
        try:
            sessions = database.sessions
            a, b = await make_user(sessions), await make_user(sessions)
            for i in range(past):
                row = await finished_match(sessions, a, b, winner=i % 2)
                async with sessions() as session, session.begin():
                    await rate_finished_match(session, row.id)
            match_id = await store_match(database, [(a, None), (b, None)], rated=rated)
            async with sessions() as session:
                for user in (a, b):
                    _tokens[user.id] = await open_session(session, user.id)
                await session.commit()
            return a, b, match_id
        finally:
            await database.dispose()

    # Playwright's sync API keeps an event loop running in this thread: use another one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()


def signed_in(new_context: Callable[..., Any], server: Any, user: Any, **kwargs: Any) -> Any:
    ctx = new_context(**kwargs)
    ctx.add_cookies([{"name": "kva_session", "value": _tokens[user.id],
                      "url": server.base_url}])
    return ctx


def open_game(ctx: Any, match_id: str) -> Game:
    page = ctx.new_page()
    game = Game(page)
    page.goto(f"/m/{match_id}")
    game.wait_ready()
    return game
