"""The lobby and quick game: pages, one-click join and cancel, and their two WebSockets.

``/ws/lobby`` sends the open tables (``{"type": "lobby", "tables": [...]}``) at once and again
on every change; ``/ws/quick`` holds a quick-game search while it is open and reports
``waiting`` (seconds, rating range, bot offer) every second, then ``paired`` with the match id.
Both check the handshake's ``Origin`` before accepting it (:mod:`kva.web.security`); their
lifecycle is :class:`~kva.web.socketsession.SocketSession`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Form, HTTPException, Request, WebSocket
from fastapi.responses import RedirectResponse, Response

from kva.rules import TARGETS, BadSettings, MatchSettings, parse_ascii_int
from kva.service import NotFound
from kva.service.accounts.registration import User, is_registered
from kva.service.coins.wallets import CoinError
from kva.service.lobby.matchmaking import (
    BOT_OFFER_AFTER,
    RANGE_EVERY,
    RANGE_MAX,
    RANGE_START,
    RANGE_STEP,
)
from kva.service.lobby.open_tables import TOPIC, Lobby, LobbyError, view_for
from kva.service.lobby.quickgame import (
    QuickGameError,
    SearchStatus,
    check_search,
    check_table_search,
    quick_clock,
)
from kva.service.messages import client_type, error
from kva.service.play.bot_moves import LEVELS
from kva.service.profiles import kozel_rating
from kva.web.identity import ensure_user
from kva.web.render import render, translator
from kva.web.services import services
from kva.web.sockets import Channel
from kva.web.socketsession import SocketSession
from kva.web.wallet import (
    TWO_SEATS,
    coin_error_message,
    coin_error_status,
    quick_stake,
    stake_refused,
)

router = APIRouter()
log = logging.getLogger(__name__)
#: Seconds between two ``waiting`` reports of a quick-game search.
REPORT_EVERY = 1.0
#: The largest client frame read on these sockets, in bytes (a larger one is ignored). Their
#: clients only ever send ``ping`` or ``cancel``, so a quarter of the match socket's 4 KiB.
MAX_FRAME = 1024


def _lobby(request: Request) -> Lobby:
    return services(request).lobby


def _fail(request: Request, status: int, message: str) -> HTTPException:
    request.state.own_error = True
    return HTTPException(status, message)


def _no_table(request: Request) -> HTTPException:
    _ = translator(request)
    return _fail(request, 404, _("This table does not exist."))


def _lobby_errors(request: Request) -> dict[str, str]:
    _ = translator(request)
    return {
        "taken": _("Someone was quicker: that table is no longer open."),
        "rated_only": _("Rated tables are for registered players. Create an account to join."),
        "not_yours": _("Only the player who opened a table can cancel it."),
        "started": _("This table has started, or you have no seat there to leave."),
    }


async def _lobby_page(request: Request, error: str | None = None, status: int = 200) -> Response:
    user = request.state.user
    registered = is_registered(user)
    user_id = user.id if user is not None else None
    tables = [t.for_viewer(user_id, registered) for t in await _lobby(request).tables()]
    return render(request, "lobby.html", {
        "tables": tables, "targets": TARGETS, "registered": registered, "error": error,
    }, status)


@router.get("/lobby")
async def lobby(request: Request) -> Response:
    """Open tables (live), opening one, and the quick-game button."""
    return await _lobby_page(request)


@router.post("/lobby/{match_id}/join")
async def join(request: Request, match_id: str) -> Response:
    """Sit down at an open table in one click, then play."""
    if len(match_id) > 24 or not await _lobby(request).is_open(match_id):
        raise _no_table(request)  # before any guest or session is made for the visitor
    user = await ensure_user(request)
    try:
        joined = await _lobby(request).join(match_id, user, is_registered(user))
    except NotFound:
        raise _no_table(request) from None
    except LobbyError as exc:
        status = 403 if exc.code == "rated_only" else 409
        return await _lobby_page(request, _lobby_errors(request)[exc.code], status)
    except CoinError as exc:  # a coin table: a player cannot cover the stake, nothing moved
        return await _lobby_page(request, coin_error_message(request, exc),
                                 coin_error_status(exc))
    return RedirectResponse(f"/m/{joined}", status_code=303)


@router.post("/lobby/{match_id}/cancel")
async def cancel(request: Request, match_id: str) -> Response:
    """Cancel your own open table (while nobody has joined it)."""
    if len(match_id) > 24:
        raise _no_table(request)
    try:
        user = request.state.user  # nobody without a session has a table to cancel
        await _lobby(request).cancel(match_id, user.id if user is not None else 0)
    except NotFound:
        raise _no_table(request) from None
    except LobbyError as exc:
        status = 403 if exc.code == "not_yours" else 409
        return await _lobby_page(request, _lobby_errors(request)[exc.code], status)
    return RedirectResponse("/lobby", status_code=303)


@router.post("/lobby/{match_id}/leave")
async def leave(request: Request, match_id: str) -> Response:
    """Leave a table you joined before it starts: your seat is free again for the next
    player (its creator cancels the table instead)."""
    if len(match_id) > 24:
        raise _no_table(request)
    try:
        user = request.state.user  # nobody without a session sits at a table
        await _lobby(request).leave(match_id, user.id if user is not None else 0)
    except NotFound:
        raise _no_table(request) from None
    except LobbyError as exc:
        return await _lobby_page(request, _lobby_errors(request)[exc.code], 409)
    return RedirectResponse("/lobby", status_code=303)


@router.post("/m/{match_id}/bot")
async def add_bot(request: Request, match_id: str, level: str = Form("")) -> Response:
    """Its creator puts a bot of ``level`` in a waiting table's first free seat (the match
    starts once every seat is taken), then comes back to the table."""
    _ = translator(request)
    if len(match_id) > 24:
        raise _no_table(request)
    if level not in LEVELS:
        raise _fail(request, 400, _("Choose a bot: easy, normal or hard."))
    user = request.state.user
    try:
        seat = await services(request).play.seat_bot(
            match_id, user.id if user is not None else 0, level)
    except NotFound:
        raise _no_table(request) from None
    if seat is None:
        raise _fail(request, 409, _("Only the creator of a casual table still waiting for "
                                    "players can seat a bot."))
    return RedirectResponse(f"/m/{match_id}", status_code=303)


def quick_settings(params: Any) -> tuple[int, str, bool]:
    """Target, rules and rated from a quick game's query (ValueError if malformed)."""
    target_raw = str(params.get("target") or "175")
    bazaar = str(params.get("bazaar") or "draw")
    rated_raw = str(params.get("rated") or "")
    if rated_raw not in ("", "0", "1", "on"):  # the form's own values only
        raise ValueError("rated")
    settings = MatchSettings.parse(target_raw, bazaar, rated_raw)  # BadSettings: a ValueError
    return settings.target, settings.bazaar, settings.rated


def table_settings(params: Any) -> tuple[int, str]:
    """Seats and fish rule of a Kozel quick game's query (QuickGameError if not one)."""
    seats = parse_ascii_int(str(params.get("seats") or "4"))
    fish = str(params.get("fish") or "all")
    if seats is None:
        raise QuickGameError("bad_seats", "a Kozel quick game has 3 or 4 seats")
    check_table_search(seats, fish)
    if str(params.get("stake") or "0") != "0":  # the escrow settles between two players
        raise QuickGameError(TWO_SEATS, "coin stakes are for Georgian games of two players")
    return seats, fish


def search_widening() -> dict[str, int]:
    """The quick game's widening schedule, as the page states it (from the pairing rules)."""
    return {"start": int(RANGE_START), "step": int(RANGE_STEP), "every": int(RANGE_EVERY),
            "max": int(RANGE_MAX), "bot": int(BOT_OFFER_AFTER)}


@router.get("/quick")
async def quick(request: Request) -> Response:
    """The quick-game page: searching, with cancel and (after a while) a bot offer."""
    _ = translator(request)
    user = request.state.user
    if request.query_params.get("game") == "kozel":
        try:
            seats, fish = table_settings(request.query_params)
        except QuickGameError as exc:
            if exc.code == TWO_SEATS:
                raise stake_refused(request) from None
            raise _fail(request, 400, _("Choose 3 or 4 players and a fish rule.")) from None
        await ensure_user(request)  # the search's socket needs a session
        return render(request, "quick.html", {"game": "kozel", "seats": seats, "fish": fish,
                                              "widening": search_widening()})
    try:
        target, bazaar, rated = quick_settings(request.query_params)
        check_search(target, bazaar, rated, is_registered(user))
        clock = quick_clock(request.query_params.get("clock"))
    except QuickGameError as exc:
        if exc.code == "rated_only":
            raise _fail(request, 403, _("Rated games are for registered players. Create an "
                                        "account to play rated.")) from None
        if exc.code == "bad_clock":
            raise _fail(request, 400, _("Choose a clock.")) from None
        raise _fail(request, 400, _("Choose a target of 75, 175, 255 or 355 points.")) from None
    except ValueError:
        raise _fail(request, 400, _("Choose a target of 75, 175, 255 or 355 points.")) from None
    await ensure_user(request)  # the search's socket needs a session
    stake = await quick_stake(request)  # Domino Coin: on the list, registered, covered now
    return render(request, "quick.html", {"target": target, "bazaar": bazaar, "rated": rated,
                                          "stake": stake, "clock": clock,
                                          "widening": search_widening()})


# ---------------------------------------------------------------------- WebSockets

@router.websocket("/ws/lobby")
async def lobby_socket(ws: WebSocket) -> None:
    """The open tables, now and after every change, cut for this viewer."""
    session = SocketSession(ws, frame_limit=MAX_FRAME)
    if not await session.handshake():
        return
    await session.accept()
    await session.serve(lambda: _show_tables(session))


async def _show_tables(session: SocketSession) -> None:
    """Send the open tables, then again on every change, until the socket goes; answer
    ``ping``."""
    svc, channel, user = session.svc, session.channel, session.user
    user_id, registered = (user.id, is_registered(user)) if user is not None else (None, False)
    sub = await svc.broker.subscribe(TOPIC)
    svc.lobby.attendance.enter(user_id)  # a creator waiting here keeps their tables open

    async def relay() -> None:
        async for message in sub:
            await channel.send({"type": "lobby",
                                "tables": view_for(message, user_id, registered)})

    relaying = asyncio.create_task(relay())

    async def leave() -> None:
        await _stopped(relaying)
        await sub.close()
        svc.lobby.attendance.leave(user_id)

    session.on_close(leave)

    async def pong(message: Any) -> None:
        if client_type(message) == "ping":
            await channel.send({"type": "pong"})

    first = [t.for_viewer(user_id, registered) for t in await svc.lobby.tables()]
    await channel.send({"type": "lobby", "tables": first})
    await session.receive(pong)


@router.websocket("/ws/quick")
async def quick_socket(ws: WebSocket) -> None:
    """A quick-game search, alive as long as this socket (closing it cancels the search)."""
    session = SocketSession(ws, frame_limit=MAX_FRAME)
    if not await session.handshake():
        return
    # Accepted first: the refusals below are told over the socket, so the page can say why.
    channel = await session.accept()
    user = session.user
    if user is None:
        await channel.send(error("no_session"))
        await channel.close(4401)
        return
    if ws.query_params.get("game") == "kozel":
        try:
            seats, fish = table_settings(ws.query_params)
        except QuickGameError as exc:
            await channel.send(error(exc.code))
            await channel.close(4400)
            return
        await session.serve(lambda: _search_table(session, user, seats, fish))
        return
    try:
        target, bazaar, rated = quick_settings(ws.query_params)
    except ValueError as exc:
        field = exc.field if isinstance(exc, BadSettings) else ""
        await channel.send(error({"target": "bad_target", "bazaar": "bad_bazaar"}.get(
            field, "bad_settings")))
        await channel.close(4400)
        return
    await session.serve(lambda: _search(session, user, target, bazaar, rated))


async def _search(session: SocketSession, user: User, target: int, bazaar: str,
                  rated: bool) -> None:
    """Join the quick-game queue and follow the search until it ends or the socket goes."""
    quick, channel, params = session.svc.quick, session.channel, session.ws.query_params
    try:
        search = await quick.join(user.id, user.nickname, user.rating, target, bazaar, rated,
                                  is_registered(user), stake=params.get("stake") or 0,
                                  clock=params.get("clock"))
    except QuickGameError as exc:
        await channel.send(error(exc.code))
        await channel.close(4400)
        return

    async def leave() -> None:
        quick.leave(search)

    session.on_close(leave)
    await _follow(session, lambda: quick.status(search), lambda: quick.leave(search),
                  search.result)


async def _search_table(session: SocketSession, user: User, seats: int, fish: str) -> None:
    """Join the queue for a Kozel table and follow the search; a ``bots`` message, once bots
    are offered, starts the table with bots in the seats nobody took."""
    quick, channel = session.svc.quick, session.channel
    try:
        rating = await kozel_rating(session.svc.sessions, user.id)
        search = await quick.join_table(user.id, user.nickname, rating, seats, fish)
    except QuickGameError as exc:
        await channel.send(error(exc.code))
        await channel.close(4400)
        return

    async def leave() -> None:
        quick.leave_table(search)

    async def bots() -> None:
        try:
            await quick.accept_bots(search)
        except QuickGameError as exc:  # too early, or the table started meanwhile
            await channel.send(error(exc.code))

    session.on_close(leave)
    await _follow(session, lambda: quick.table_status(search), lambda: quick.leave_table(search),
                  search.result, bots)


async def _follow(session: SocketSession, status_of: Callable[[], SearchStatus],
                  leave: Callable[[], None], result: asyncio.Future[str],
                  bots: Callable[[], Awaitable[None]] | None = None) -> None:
    """Report the search every second until it is paired, cancelled or replaced, or the
    socket goes (the client's frames are read meanwhile: a ``cancel`` ends the search; at a
    Kozel search, ``bots`` takes the bots offered)."""
    channel = session.channel

    async def cancel(message: Any) -> None:
        kind = client_type(message)
        if kind == "cancel":
            leave()
            await channel.send({"type": "cancelled"})
            await channel.close()
        elif kind == "bots" and bots is not None:
            await bots()

    receiving: asyncio.Task[Any] = asyncio.create_task(session.receive(cancel))
    try:
        while not channel.closed:
            status = status_of()
            report = {"type": "waiting", "waited": status.waited, "range": status.range,
                      "offer_bot": status.offer_bot}
            if bots is not None:  # a Kozel search: the players found for the table so far
                report["found"] = status.found
            await channel.send(report)
            done, _pending = await asyncio.wait({result, receiving},
                                                timeout=REPORT_EVERY,
                                                return_when=asyncio.FIRST_COMPLETED)
            if result in done:
                await _report_result(channel, result)
                return
            if receiving in done:
                receiving.result()  # the client went or cancelled (raises what broke it)
                return
    finally:
        await _stopped(receiving)


async def _report_result(channel: Channel, result: asyncio.Future[str]) -> None:
    """Tell the client how its search ended (paired, or failed) and close the socket; a
    cancelled search is not told."""
    if result.cancelled():
        return
    exc = result.exception()
    if exc is not None:
        code = exc.code if isinstance(exc, QuickGameError) else "failed"
        await channel.send(error(code))
        await channel.close(4409 if code == "replaced" else 1011)
        return
    match_id = result.result()
    await channel.send({"type": "paired", "match_id": match_id, "url": f"/m/{match_id}"})
    await channel.close()


async def _stopped(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` if it still runs and wait for it (its error, if any, is dropped)."""
    if not task.done():
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
