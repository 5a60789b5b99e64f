"""The bot API, version 1 (docs/bot-api.md): JSON over HTTP under ``/api/``, long-lived
streams as NDJSON, a bearer token per bot; and the pages around it: the bot settings page
(``/settings/bot``), the Bots page (``/bots``) where people challenge bots, and a challenge's
waiting page.

:func:`install` adds all of it to the app: the routes, a guard that keeps bot accounts off the
pages and sockets people play with, and, in the app's lifespan, the challenge service (a
commit hook of the play service: ``match_over`` events) and the subscription that ends a
revoked token's open streams at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
from fastapi import APIRouter, FastAPI, Form, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from limits import RateLimitItem
from limits.aio.storage import Storage as AsyncStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Receive, Scope, Send

from kva.config import Settings
from kva.i18n import LOCALES, jinja_env
from kva.rules import parse_ascii_int
from kva.service import NotFound, PlayError
from kva.service import botapi as bots
from kva.service.accounts.sessions import COOKIE, MAX_COOKIE
from kva.service.botapi import BotApiError, BotCaller, Challenges
from kva.service.cluster.broker import Subscription
from kva.service.play import topic, viewer_key
from kva.service.play.commands import Abort, Act, Resign, Seed, client_version
from kva.settings.ratelimits import parse_limits
from kva.status import CLOSED_STATUSES, ChallengeStatus
from kva.web.errors import error_page
from kva.web.identity import ensure_user, session_of
from kva.web.render import TEMPLATE_LOADER, render
from kva.web.security import client_key
from kva.web.services import Services, services
from kva.web.sockets import holds_seat

log = logging.getLogger(__name__)
router = APIRouter()

#: The API's version (every route is under ``/api/``; a later version gets ``/api/v2/``).
API_VERSION = 1
#: The largest request body accepted (the WebSocket's frame limit).
MAX_BODY = 4096
#: Streams one token may hold open at once on one process (events and matches together).
MAX_STREAMS = 32
#: HTTP status of each play-service refusal (the WebSocket's codes).
PLAY_STATUS = {"stale": 409, "not_your_turn": 409, "over": 409, "illegal": 422,
               "not_seated": 403, "bad_seed": 400, "too_late_to_abort": 409}
_REVOKED = object()
_SEAT_GIVEN_UP = object()
NDJSON = "application/x-ndjson"


def _error(code: str, message: str, status: int,
           headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"type": "error", "code": code, "message": message}, status,
                        headers=headers)


def _line(message: Any) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


#: The last line of a stream whose token was revoked.
_REVOKED_LINE = _line({"type": "error", "code": "revoked", "message": "this token was revoked"})
_SEAT_GIVEN_UP_LINE = _line({"type": "error", "code": "not_seated",
                             "message": "this bot no longer holds its seat at the match"})


class BotApi:
    """Per-app state: the challenge service, the rate limiter, and the open streams of each
    token (ended at once when it is revoked). ``settings`` gives the limits (per token, and
    failed authentications per address) and where they are counted."""

    def __init__(self, challenges: Challenges, settings: Settings) -> None:
        self.challenges = challenges
        self.rate: list[RateLimitItem] = parse_limits("KVA_BOT_API_RATE", settings.bot_api_rate)
        self.auth_fail_rate: list[RateLimitItem] = parse_limits(
            "KVA_BOT_API_AUTH_FAIL_RATE", settings.bot_api_auth_fail_rate)
        storage_url = settings.rate_limit_storage
        storage: AsyncStorage
        if storage_url.startswith(("redis://", "rediss://")):
            storage = cast(AsyncStorage, storage_from_string(
                "async+" + storage_url, implementation="redispy", key_prefix="kva-botapi"))
        else:
            storage = cast(AsyncStorage, storage_from_string("async+memory://"))
        self._limiter = MovingWindowRateLimiter(storage)
        self.streams: dict[str, set[asyncio.Queue[Any]]] = {}
        self._watch: list[asyncio.Task[None]] = []

    async def allowed(self, token_hash_: str) -> int | None:
        """None if the token may make one more request now, else seconds to wait."""
        for item in self.rate:
            if not await self._limiter.hit(item, "botapi", token_hash_):
                stats = await self._limiter.get_window_stats(item, "botapi", token_hash_)
                return max(1, int(stats.reset_time - time.time()) + 1)
        return None

    async def auth_wait(self, key: str) -> int | None:
        """None if address ``key`` may try a token now, else seconds to wait (it failed
        too often)."""
        for item in self.auth_fail_rate:
            if not await self._limiter.test(item, "botapi-auth", key):
                stats = await self._limiter.get_window_stats(item, "botapi-auth", key)
                return max(1, int(stats.reset_time - time.time()) + 1)
        return None

    async def auth_failed(self, key: str) -> None:
        """Count one failed token authentication from address ``key``."""
        for item in self.auth_fail_rate:
            await self._limiter.hit(item, "botapi-auth", key)

    def check_streams(self, hashed: str) -> None:
        """Refuse one more stream for a token that holds :data:`MAX_STREAMS` open here."""
        if len(self.streams.get(hashed, ())) >= MAX_STREAMS:
            raise BotApiError("too_many_streams", f"at most {MAX_STREAMS} open streams per "
                              "token", 429)

    def open_stream(self, hashed: str) -> asyncio.Queue[Any]:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self.streams.setdefault(hashed, set()).add(queue)
        return queue

    def close_stream(self, hashed: str, queue: asyncio.Queue[Any]) -> None:
        queues = self.streams.get(hashed)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self.streams[hashed]

    async def start(self, app: FastAPI) -> None:
        svc = services(app)
        await bots.load_bot_names(svc.sessions)
        revoked = await svc.broker.subscribe(bots.TOKEN_REVOKED_TOPIC)
        named = await svc.broker.subscribe(bots.BOTS_TOPIC)

        async def watch_revoked() -> None:
            try:
                async for note in revoked:
                    for queue in self.streams.get(str(note.get("token_hash")), set()):
                        queue.put_nowait(_REVOKED)
            finally:
                await revoked.close()

        async def watch_named() -> None:
            try:
                async for note in named:
                    bots.note_bot_names([str(note.get("nickname"))])
            finally:
                await named.close()

        self._watch = [asyncio.create_task(watch_revoked()), asyncio.create_task(watch_named())]

    async def stop(self) -> None:
        for task in self._watch:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _api(request: Request) -> BotApi:
    found = getattr(request.app.state, "botapi", None)
    if not isinstance(found, BotApi):
        raise RuntimeError("the bot API is not running")
    return found


# ---------------------------------------------------------------------- request plumbing
async def _caller(request: Request) -> BotCaller:
    """The bot behind the request's bearer token, counted against its rate limit."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    api, key = _api(request), client_key(request)
    wait = await api.auth_wait(key)
    if wait is not None:
        raise BotApiError("rate_limited", f"too many failed tokens; try again in {wait} s", 429)
    try:
        caller = await bots.authenticate(services(request).sessions,
                                         token.strip() if scheme.lower() == "bearer" else None)
    except BotApiError:
        await api.auth_failed(key)
        raise
    wait = await api.allowed(caller.token_hash)
    if wait is not None:
        raise BotApiError("rate_limited", f"too many requests; try again in {wait} s", 429)
    return caller


async def _body(request: Request, fields: dict[str, tuple[type, ...]],
                required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The request's JSON object: at most :data:`MAX_BODY` bytes, only ``fields`` (each of
    its types), ``required`` ones present. An empty body is ``{}``."""
    declared = request.headers.get("content-length")
    length = None if declared is None else parse_ascii_int(declared)
    if declared is not None and (length is None or length > MAX_BODY):
        raise BotApiError("too_big", f"a request body may be at most {MAX_BODY} bytes", 413)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise BotApiError("too_big", f"a request body may be at most {MAX_BODY} bytes",
                              413)
    if not data.strip():
        parsed: Any = {}
    else:
        try:
            parsed = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError):
            raise BotApiError("bad_json", "the body is not valid JSON") from None
    if not isinstance(parsed, dict):
        raise BotApiError("bad_json", "the body must be a JSON object")
    unknown = sorted(set(parsed) - set(fields))
    if unknown:
        raise BotApiError("unknown_field", f"unknown field {unknown[0]!r}; allowed: "
                          + ", ".join(sorted(fields)))
    for name in required:
        if name not in parsed:
            raise BotApiError("missing_field", f"field {name!r} is required")
    for name, value in parsed.items():
        types = fields[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            kinds = " or ".join("boolean" if t is bool else "integer" if t is int else
                                "string" if t is str else "object" for t in types)
            raise BotApiError("bad_type", f"field {name!r} must be {kinds}")
    return cast(dict[str, Any], parsed)


def _retry_after(exc: BotApiError) -> dict[str, str] | None:
    """``Retry-After`` for a ``rate_limited`` refusal (its message ends "in N s")."""
    if exc.code != "rate_limited":
        return None
    return {"Retry-After": exc.message.split()[-2]}


def _json_route(handler: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Response]]:
    """Run ``handler``; its refusals become JSON errors with their HTTP status."""

    @functools.wraps(handler)
    async def run(*args: Any, **kwargs: Any) -> Response:
        try:
            result = await handler(*args, **kwargs)
        except BotApiError as exc:
            return _error(exc.code, exc.message, exc.status, _retry_after(exc))
        except PlayError as exc:
            return _error(exc.code, exc.message, PLAY_STATUS.get(exc.code, 400))
        except NotFound:
            return _error("not_found", "no such match", 404)
        if isinstance(result, Response):
            return result
        return JSONResponse(result)

    return run


async def _seat(request: Request, caller: BotCaller, match_id: str) -> int:
    """The caller's seat in the match: 404 for an unknown match, 403 ``not_seated``."""
    if len(match_id) > 24:
        raise NotFound(match_id)
    info = await services(request).play.info(match_id, caller.user_id)
    if info.seat is None:
        raise PlayError("not_seated", "you are not a player of this match")
    return info.seat


# ---------------------------------------------------------------------- the API
@router.get("/api")
async def api_root() -> Response:
    """What this API is."""
    return JSONResponse({"api": "kva bot API", "version": API_VERSION,
                         "docs": "docs/bot-api.md"})


@router.get("/api/account")
@_json_route
async def api_account(request: Request) -> dict[str, Any]:
    """The bot's own account."""
    caller = await _caller(request)
    bot, active = await bots.bot_and_active(services(request).sessions, caller.user_id)
    return {"name": caller.nickname, "bot": True, "api_version": API_VERSION,
            "max_matches": bot.max_matches if bot else 0, "active_matches": active}


@router.post("/api/challenge/{nickname}")
@_json_route
async def api_challenge(request: Request, nickname: str) -> Response:
    """Challenge a player or another bot."""
    caller = await _caller(request)
    body = await _body(request, {"target": (int,), "bazaar": (str,), "rated": (bool,)})
    await _count_challenge(request)
    made = await _api(request).challenges.create(caller, nickname, body)
    return JSONResponse(made, 201)


async def _count_challenge(request: Request) -> None:
    """Count one challenge from the request's address (``KVA_CHALLENGE_RATE_IP``); over the
    limit, :class:`BotApiError` ``rate_limited`` naming the seconds to wait."""
    refusal = await services(request).rate_limiter.check("challenge_ip", client_key(request))
    if refusal is not None:
        raise BotApiError("rate_limited", "too many challenges from this address; try again "
                          f"in {refusal.retry_after} s", 429)


@router.post("/api/challenge/{challenge_id}/accept")
@_json_route
async def api_accept(request: Request, challenge_id: str) -> dict[str, Any]:
    caller = await _caller(request)
    await _body(request, {})
    match_id = await _api(request).challenges.accept(challenge_id, caller.user_id)
    return {"ok": True, "match_id": match_id}


@router.post("/api/challenge/{challenge_id}/decline")
@_json_route
async def api_decline(request: Request, challenge_id: str) -> dict[str, Any]:
    caller = await _caller(request)
    await _body(request, {})
    await _api(request).challenges.decline(challenge_id, caller.user_id)
    return {"ok": True}


@router.get("/api/challenge/{challenge_id}")
@_json_route
async def api_challenge_status(request: Request, challenge_id: str) -> dict[str, Any]:
    caller = await _caller(request)
    challenges = _api(request).challenges
    if not await challenges.involves(challenge_id, caller.user_id):
        raise BotApiError("not_found", "no such challenge", 404)
    return await challenges.get(challenge_id)


@router.post("/api/bot/match/{match_id}/action")
@_json_route
async def api_action(request: Request, match_id: str) -> dict[str, Any]:
    """One action at a version, exactly as the WebSocket's ``action`` message."""
    caller = await _caller(request)
    body = await _body(request, {"version": (int,), "action": (dict,)},
                       required=("version", "action"))
    await services(request).play.route(Act(match_id[:24], caller.user_id,
                                           client_version(body["version"]), body["action"]))
    return {"ok": True}


@router.post("/api/bot/table/{match_id}/join")
@_json_route
async def api_join_table(request: Request, match_id: str) -> dict[str, Any]:
    """Take the first free seat of an open table of any game and number of seats; the
    ``match_start`` event of that seat (its stream hears it too)."""
    caller = await _caller(request)
    await _body(request, {})
    if len(match_id) > 24:
        raise BotApiError("not_found", "no such open table", 404)
    return await _api(request).challenges.join_table(services(request).lobby, match_id,
                                                     caller.user_id)


@router.post("/api/bot/match/{match_id}/resign")
@_json_route
async def api_resign(request: Request, match_id: str) -> dict[str, Any]:
    caller = await _caller(request)
    await _body(request, {})
    await services(request).play.route(Resign(match_id[:24], caller.user_id))
    return {"ok": True}


@router.post("/api/bot/match/{match_id}/abort")
@_json_route
async def api_abort(request: Request, match_id: str) -> dict[str, Any]:
    """Call the match off, exactly as the WebSocket's ``abort`` message (409
    ``too_late_to_abort`` once both players have moved in the first hand)."""
    caller = await _caller(request)
    await _body(request, {})
    await services(request).play.route(Abort(match_id[:24], caller.user_id))
    return {"ok": True}


@router.post("/api/bot/match/{match_id}/seed")
@_json_route
async def api_seed(request: Request, match_id: str) -> dict[str, Any]:
    """The seat's kva-fair/1 client seed (optional: the server chooses one after
    ``KVA_SEED_WAIT``)."""
    caller = await _caller(request)
    body = await _body(request, {"seed": (str,)}, required=("seed",))
    await services(request).play.route(Seed(match_id[:24], caller.user_id, body["seed"]))
    return {"ok": True}


class _Watcher:
    """A match stream as the play service's watchers see it (the seat it views as)."""

    __slots__ = ("seat",)

    def __init__(self, seat: int | None) -> None:
        self.seat = seat


@router.get("/api/bot/match/{match_id}/stream")
@_json_route
async def api_match_stream(request: Request, match_id: str) -> Response:
    """This seat's states, one JSON line per version: the WebSocket's ``state`` messages."""
    caller = await _caller(request)
    seat = await _seat(request, caller, match_id)
    _api(request).check_streams(caller.token_hash)
    return StreamingResponse(_match_lines(request, caller, match_id, seat),
                             media_type=NDJSON, headers={"Cache-Control": "no-store",
                                                         "X-Accel-Buffering": "no"})


async def _match_lines(request: Request, caller: BotCaller, match_id: str,
                       seat: int) -> AsyncIterator[bytes]:
    svc = services(request)
    api = _api(request)
    queue = api.open_stream(caller.token_hash)
    sub = await svc.broker.subscribe(topic(match_id))
    watcher = _Watcher(seat)
    svc.play.watchers.add(match_id, watcher)
    key = viewer_key(seat)

    async def pump() -> None:
        async for raw in sub:
            if "presence" in raw:
                svc.presence.note(match_id, raw["presence"])
            if not holds_seat(raw.get("holders"), seat, caller.user_id):
                queue.put_nowait(_SEAT_GIVEN_UP)  # the bot left the table: nothing more
                return
            states = raw.get("states")
            text = states.get(key) if isinstance(states, dict) else None
            if text is not None:
                queue.put_nowait((raw["version"], text, raw.get("status")))

    relay = asyncio.create_task(pump())
    connected = False
    try:
        state = await svc.play.state_for(match_id, caller.user_id)
        over = state["status"] in CLOSED_STATUSES
        await svc.presence.connected(match_id, seat, over=over)
        connected = True
        sent = int(state["version"])
        yield _line(state)
        if over:
            return
        while True:
            item = await _next_item(queue, svc, caller)
            if item is None:  # a heartbeat keeps proxies from closing a quiet stream
                yield b"\n"
                continue
            if item is _REVOKED:
                yield _REVOKED_LINE
                return
            if item is _SEAT_GIVEN_UP:
                yield _SEAT_GIVEN_UP_LINE
                return
            version, text, status = item
            if version > sent:
                sent = version
                yield text.encode() + b"\n"
            if status in CLOSED_STATUSES:
                svc.presence.match_over(match_id)
                return
    finally:
        with anyio.CancelScope(shield=True):
            api.close_stream(caller.token_hash, queue)
            svc.play.watchers.discard(match_id, watcher)
            await _stop_relay(relay, sub)
            if connected:
                await svc.presence.disconnected(match_id, seat)


async def _next_item(queue: asyncio.Queue[Any], svc: Services, caller: BotCaller) -> Any:
    """The stream's next queued item; None after ``KVA_BOT_HEARTBEAT`` quiet seconds (time for
    a heartbeat line, so proxies and clients see the stream alive), or :data:`_REVOKED` once
    the token turns out to be revoked meanwhile."""
    try:
        return await asyncio.wait_for(queue.get(), svc.settings.bot_heartbeat)
    except TimeoutError:
        if not await bots.token_is_live(svc.sessions, caller.token_hash):
            return _REVOKED
        return None


async def _stop_relay(relay: asyncio.Task[None], sub: Subscription) -> None:
    """Stop a stream's broker relay task and close its subscription."""
    relay.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await relay
    await sub.close()


@router.get("/api/bot/stream")
@_json_route
async def api_stream(request: Request) -> Response:
    """The bot's events: ``match_start`` for each match in progress and ``challenge`` for
    each pending challenge at once, then every new one, ``challenge_declined``,
    ``challenge_cancelled`` and ``match_over``."""
    caller = await _caller(request)
    _api(request).check_streams(caller.token_hash)
    return StreamingResponse(_event_lines(request, caller), media_type=NDJSON,
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _event_lines(request: Request, caller: BotCaller) -> AsyncIterator[bytes]:
    svc = services(request)
    api = _api(request)
    queue = api.open_stream(caller.token_hash)
    sub = await svc.broker.subscribe(bots.user_topic(caller.user_id))

    async def pump() -> None:
        async for raw in sub:
            queue.put_nowait(raw)

    relay = asyncio.create_task(pump())
    # A bot program is here while its event stream is open, as a person is while a page is:
    # the open tables it sits at keep its seat (the lobby's sweeper frees those of the gone).
    svc.lobby.attendance.enter(caller.user_id)
    try:
        for event in await api.challenges.active_of(caller.user_id):
            yield _line(event)
        for challenge in await api.challenges.incoming(caller.user_id):
            yield _line({"type": "challenge", "challenge": challenge})
        while True:
            item = await _next_item(queue, svc, caller)
            if item is None:  # a heartbeat keeps proxies from closing a quiet stream
                yield b"\n"
                continue
            if item is _REVOKED:
                yield _REVOKED_LINE
                return
            yield _line(item)
    finally:
        with anyio.CancelScope(shield=True):
            svc.lobby.attendance.leave(caller.user_id)
            api.close_stream(caller.token_hash, queue)
            await _stop_relay(relay, sub)


@router.api_route("/api/bot/{rest:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
async def api_unknown(rest: str) -> Response:
    return _error("not_found", "no such API endpoint (see docs/bot-api.md)", 404)


# ---------------------------------------------------------------------- pages
def _registered(request: Request) -> Any:
    user = getattr(request.state, "user", None)
    return user if user is not None and user.kind == "registered" else None


async def _settings_page(request: Request, status: int = 200,
                         new_token: str | None = None, error: str | None = None) -> Response:
    user = _registered(request)
    if user is None:
        return RedirectResponse("/login?next=/settings/bot", 303)
    sessions = services(request).sessions
    bot, played = await bots.bot_and_played(sessions, user.id)
    tokens = await bots.list_tokens(sessions, user.id) if bot is not None else []
    return render(request, "bot_settings.html", {
        "bot": bot, "played": played, "tokens": tokens, "new_token": new_token,
        "error": error, "max_max": bots.MAX_MAX_MATCHES}, status_code=status)


@router.get("/settings/bot")
async def bot_settings(request: Request) -> Response:
    return await _settings_page(request)


@router.post("/settings/bot/enable")
async def bot_enable(request: Request) -> Response:
    user = _registered(request)
    if user is None:
        return RedirectResponse("/login?next=/settings/bot", 303)
    try:
        await bots.make_bot(services(request).sessions, user, services(request).broker)
    except BotApiError as exc:
        return await _settings_page(request, exc.status, error=exc.code)
    return RedirectResponse("/settings/bot", 303)


@router.post("/settings/bot/tokens")
async def bot_new_token(request: Request, label: str = Form("")) -> Response:
    user = _registered(request)
    if user is None:
        return RedirectResponse("/login?next=/settings/bot", 303)
    try:
        token = await bots.create_token(services(request).sessions, user.id, label)
    except BotApiError as exc:
        return await _settings_page(request, exc.status, error=exc.code)
    response = await _settings_page(request, new_token=token)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/settings/bot/tokens/{token_id}/revoke")
async def bot_revoke_token(request: Request, token_id: int) -> Response:
    user = _registered(request)
    if user is None:
        return RedirectResponse("/login?next=/settings/bot", 303)
    svc = services(request)
    await bots.revoke_token(svc.sessions, svc.broker, user.id, token_id)
    return RedirectResponse("/settings/bot", 303)


@router.post("/settings/bot/limit")
async def bot_limit(request: Request, max_matches: str = Form("")) -> Response:
    user = _registered(request)
    if user is None:
        return RedirectResponse("/login?next=/settings/bot", 303)
    try:
        await bots.set_max_matches(services(request).sessions, user.id, max_matches)
    except BotApiError as exc:
        return await _settings_page(request, exc.status, error=exc.code)
    return RedirectResponse("/settings/bot", 303)


@router.get("/bots")
async def bots_page(request: Request, error: str | None = None) -> Response:
    user = getattr(request.state, "user", None)
    listed = await bots.list_bots(services(request).sessions)
    incoming = (await _api(request).challenges.incoming(user.id)) if user is not None else []
    return render(request, "bots.html", {
        "bots": listed, "incoming": incoming, "registered": _registered(request) is not None,
        "error": error, "targets": (75, 175, 255, 355)})


@router.post("/bots/{nickname}/challenge")
async def bots_challenge(request: Request, nickname: str, target: str = Form("75"),
                         bazaar: str = Form("draw"), rated: str = Form("")) -> Response:
    try:
        await _count_challenge(request)  # before a guest is created for the visitor
    except BotApiError as exc:
        return await bots_page_error(request, exc)
    user = await ensure_user(request)
    number = parse_ascii_int(target, max_digits=4)
    body = {"target": target if number is None else number, "bazaar": bazaar,
            "rated": rated == "1"}
    try:
        made = await _api(request).challenges.create(user, nickname, body)
    except BotApiError as exc:
        return await bots_page_error(request, exc)
    return RedirectResponse(f"/challenges/{made['id']}", 303)


async def bots_page_error(request: Request, exc: BotApiError) -> Response:
    response = await bots_page(request, error=exc.code)
    response.status_code = exc.status
    response.headers.update(_retry_after(exc) or {})
    return response


@router.get("/challenges/{challenge_id}")
async def challenge_page(request: Request, challenge_id: str) -> Response:
    """The challenger waits here (the page reloads itself) until the bot answers."""
    user = getattr(request.state, "user", None)
    challenges = _api(request).challenges
    if user is None or not await challenges.involves(challenge_id, user.id):
        return error_page(request, 404, None)
    described = await challenges.get(challenge_id)
    if described["status"] == ChallengeStatus.ACCEPTED and described["match_id"]:
        return RedirectResponse(f"/m/{described['match_id']}", 303)
    return render(request, "challenge.html", {"challenge": described})


@router.post("/challenges/{challenge_id}/{answer}")
async def challenge_answer(request: Request, challenge_id: str, answer: str) -> Response:
    """A person accepts or declines a bot's challenge (or cancels their own)."""
    user = getattr(request.state, "user", None)
    if user is None or answer not in ("accept", "decline"):
        return error_page(request, 404, None)
    challenges = _api(request).challenges
    try:
        if answer == "accept":
            match_id = await challenges.accept(challenge_id, user.id)
            return RedirectResponse(f"/m/{match_id}", 303)
        await challenges.decline(challenge_id, user.id)
    except BotApiError as exc:
        return await bots_page_error(request, exc)
    return RedirectResponse("/bots", 303)


# ---------------------------------------------------------------------- the guard
#: What a bot account may not open with its browser session: the ways to start, join and
#: play matches (it plays through the API).
_GUARDED_HTTP = (("POST", "/matches"), ("POST", "/t/"), ("GET", "/t/"), ("POST", "/lobby/"),
                 ("GET", "/quick"), ("POST", "/bots/"))
_GUARDED_WS = ("/ws/m/", "/ws/quick")


class BotWebGuard:
    """Refuses bot accounts' browser sessions on the pages and sockets people play with:
    403 for those pages and forms, a refused handshake (close 4403) for match and quick-game
    sockets. Costs one query only on those paths, and only with a session cookie: the read of
    the live session (:func:`kva.web.identity.session_of`), which the identity middleware and
    the match socket then take from the scope instead of reading it again."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        path = str(scope.get("path", ""))
        guarded = (kind == "websocket" and path.startswith(_GUARDED_WS)) or (
            kind == "http" and any(scope.get("method") == m and path.startswith(p)
                                   for m, p in _GUARDED_HTTP))
        if guarded and await self._is_bot(scope):
            if kind == "websocket":
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 4403})
                return
            body = json.dumps({"type": "error", "code": "bot_account",
                               "message": "bot accounts play through the bot API"}).encode()
            await send({"type": "http.response.start", "status": 403, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    async def _is_bot(self, scope: Scope) -> bool:
        cookie = None
        for name, value in scope.get("headers", []):
            if name == b"cookie":
                for part in value.decode("latin-1").split(";"):
                    key, _, val = part.strip().partition("=")
                    if key == COOKIE:
                        cookie = val
        if not cookie or len(cookie) > MAX_COOKIE:
            return False
        app = scope.get("app")
        if app is None or getattr(app.state, "services", None) is None:
            return False
        # the whole live session, kept in the scope: the identity middleware and the match
        # socket behind this guard use it rather than reading the session again
        live = await session_of(scope, services(app).sessions, cookie)
        return live is not None and live.bot


# ---------------------------------------------------------------------- wiring
def install(app: FastAPI) -> None:
    """Add the bot API to ``app``: routes, the guard, and its services in the lifespan."""
    app.include_router(router)
    app.add_middleware(BotWebGuard)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with inner(app_) as state:
            svc = services(app)
            challenges = Challenges(svc.sessions, svc.broker, svc.play,
                                    svc.settings.challenges_per_target)
            svc.play.commit_hooks.append(challenges.after_commit)
            api = BotApi(challenges, svc.settings)
            app.state.botapi = api
            for locale in LOCALES:  # pages mark bot accounts' names (templates/_bot_mark.html)
                jinja_env(locale, TEMPLATE_LOADER).globals["is_bot_name"] = bots.is_bot_name
            await api.start(app)
            try:
                yield state
            finally:
                await api.stop()

    app.router.lifespan_context = lifespan


__all__ = ["API_VERSION", "BotApi", "BotWebGuard", "install", "router"]
