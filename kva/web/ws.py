"""The WebSocket of a match (protocol in docs/web-contract.md).

One task reads the client's frames (the handshake, caps, rate limit and frame reading are
:class:`~kva.web.socketsession.SocketSession`'s) and calls the service; the states the service
publishes for this match reach the socket through its subscription's handler
(:func:`_deliverer`, run in the publisher's task: no relay task per socket), which picks the
one built for this viewer. Every refused frame gets an ``error`` and changes nothing; the
client's ``hello`` always gets the current state back.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from fastapi import APIRouter, WebSocket

from kva.service import NotFound, PlayError, PlayService
from kva.service.accounts.sessions import session_is_live, token_hash
from kva.service.finish import match_ratings_message
from kva.service.lobby.rematch import REMATCH_TYPES
from kva.service.messages import (
    MATCH_CLIENT_TYPES,
    MatchServerMessage,
    MatchTopicMessage,
    StateMessage,
    client_type,
)
from kva.service.messages import error as error_message
from kva.service.play import MatchInfo, topic, viewer_key
from kva.service.play.commands import Abort, Act, Command, Resign, Seed, client_version
from kva.service.play.presence import CLAIM_TYPE, Presence
from kva.status import CLOSED_STATUSES, MatchStatus
from kva.web.services import services
from kva.web.sockets import CLOSE_REVOKED, CLOSE_SEAT_GIVEN_UP, Channel, dumps, holds_seat
from kva.web.socketsession import SocketSession

router = APIRouter()
log = logging.getLogger(__name__)
#: The largest client frame accepted, in bytes (contract: 4 KiB; a larger one is answered
#: ``too_big``).
MAX_FRAME = 4096
#: What a client may send (kva.service.messages); the rematch and claim types are those the
#: rematch and presence services answer.
CLIENT_TYPES = MATCH_CLIENT_TYPES
assert set(CLIENT_TYPES) == {"hello", "action", "resign", "abort", "ping", "seed", *REMATCH_TYPES,
                            CLAIM_TYPE}


class Connection:
    """One viewer's socket: what it is owed, the last version it was sent, and its session.

    Every send goes through :class:`~kva.web.sockets.Channel`: serialised, and harmless on a
    socket that is closing. No version of the match is sent twice, except when the client's
    ``hello`` asks for the one it has (and nothing newer went out since it asked).
    """

    def __init__(self, ws: WebSocket, match_id: str, user_id: int | None,
                 token: str | None = None, channel: Channel | None = None) -> None:
        self.ws = ws
        self.match_id = match_id
        self.user_id = user_id
        self.token = token
        #: What the database keeps of the token: an action's write checks the session by it.
        self.session_hash = token_hash(token) if token is not None else None
        self.seat: int | None = None
        self.sent_version = 0
        #: States sent so far (a ``hello`` notes it, to see whether a delivery answered it).
        self.states_sent = 0
        #: The accepted socket's channel (one with the default limits if none is given).
        self.channel = channel if channel is not None else Channel(ws)

    async def send(self, message: MatchServerMessage) -> bool:
        return await self.channel.send(message)

    async def _send_state_locked(self, version: int, text: str) -> None:
        if await self.channel.send_locked(text):
            self.sent_version = version
            self.states_sent += 1

    async def send_state(self, version: int, text: str) -> None:
        """Send a state (its JSON text, encoded once by the service for every socket of this
        viewer) unless the client already has that version or a later one."""
        async with self.channel.lock:
            if version > self.sent_version:
                await self._send_state_locked(version, text)

    async def resync(self, state: StateMessage, asked_at: int) -> None:
        """Answer a ``hello`` (that arrived when :attr:`states_sent` was ``asked_at``) with
        ``state``: even at a version the client has (it asked), but never one older than what
        went out, nor the same version again once a delivery has sent it since the hello."""
        async with self.channel.lock:
            if state["version"] < self.sent_version or (
                state["version"] == self.sent_version and self.states_sent != asked_at
            ):
                return
            await self._send_state_locked(state["version"], dumps(state))

    async def error(self, code: str, message: str) -> None:
        await self.send(error_message(code, message))


def _deliverer(conn: Connection, presence: Presence
               ) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """The handler of this socket's subscription: what it does with each message published
    on its match's topic."""

    async def deliver(raw: dict[str, Any]) -> None:
        message = cast(MatchTopicMessage, raw)
        if "presence" in message:  # another process's players coming and going
            presence.note(conn.match_id, message["presence"])
        if "spectators" in message:  # a process's spectators coming and going: the new total
            presence.spectators.note(conn.match_id, message["spectators"])
            if conn.states_sent:  # before its first state, the answer to hello tells it
                await conn.send(presence.spectators.message(conn.match_id))
        broadcast = message.get("broadcast")
        if isinstance(broadcast, dict) and not (  # rematch and presence messages, for all
            broadcast.get("type") == "presence" and broadcast.get("seat") == conn.seat
        ):  # (but nobody is told about their own comings and goings)
            await conn.send(broadcast)
        if not holds_seat(message.get("holders"), conn.seat, conn.user_id):
            await conn.channel.close(CLOSE_SEAT_GIVEN_UP)  # the page comes back as it is now
            return
        states = message.get("states")
        text = states.get(viewer_key(conn.seat)) if isinstance(states, dict) else None
        if text is not None:
            if message.get("status") in CLOSED_STATUSES:
                presence.match_over(conn.match_id)
            await conn.send_state(message["version"], text)

    return deliver


async def _resync(conn: Connection, service: PlayService) -> str:
    """Answer ``hello`` with the current state (see :meth:`Connection.resync`); the match's
    status in it."""
    asked_at = conn.states_sent
    state = cast(StateMessage, await service.state_for(conn.match_id, conn.user_id))
    conn.seat = state["you"]
    await conn.resync(state, asked_at)
    return state["status"]


async def _community_status(conn: Connection, status: str) -> None:
    """After a hello (whose state had the match's ``status``): how many spectators watch, who
    is away (with the time left to their grace period), where the rematch stands once the
    match is over, and the rating change of a rated match.

    The rematch and the ratings exist only once the match is finished (an offer needs a
    finished match, :class:`~kva.service.lobby.rematch.RematchService`; a rating is written in the
    transaction that finishes it), so a match not finished in the state just sent reads
    neither: both players' sockets say hello while the match is being set up. The socket
    subscribed to the match's topic before its hello, so whatever comes later (the finishing
    state with its ratings, each rematch change) reaches it there."""
    svc = services(conn.ws)
    await conn.send(svc.presence.spectators.message(conn.match_id))
    for message in svc.presence.messages(conn.match_id):
        if message["seat"] != conn.seat:
            await conn.send(message)
    if status != MatchStatus.FINISHED:
        return
    rematch = await svc.rematch.status(conn.match_id)
    if rematch["state"] != "none":
        await conn.send(rematch)
    rated = await match_ratings_message(svc.sessions, conn.match_id)
    if rated is not None:  # a page opened after a rated match ended still shows the change
        await conn.send(rated)


async def _session_ended(conn: Connection) -> bool:
    """Whether the socket's session was revoked (logout, a new login) since it opened: then
    the socket is told so and closed (4401), and the frame is not acted on. A revocation on
    any process also closes it at once (:class:`~kva.web.sockets.SocketRegistry`); this check
    covers the frames that arrive before that news, or without it (a revocation made straight
    in the database). An action frame is not read for: its write checks the session in the
    same statement (:meth:`PlayService.act`), and an action refused for another reason is
    checked here afterwards, so every frame of a revoked session still ends the socket."""
    if conn.token is None or await session_is_live(services(conn.ws).sessions, conn.token):
        return False
    await _revoked(conn)
    return True


async def _revoked(conn: Connection) -> None:
    await conn.channel.refuse("revoked", "your session has ended; log in again", CLOSE_REVOKED)


def _command(conn: Connection, kind: str, msg: Any) -> Command[None]:
    """The command a player's ``action``, ``seed``, ``abort`` or ``resign`` message asks for.
    What only the match can judge (the action, the seed's form) travels as the client sent
    it, and is judged by the match's owner after the seat."""
    match_id, user_id = conn.match_id, conn.user_id
    if kind == "action":
        return Act(match_id, user_id, client_version(msg.get("version")), msg.get("action"),
                   conn.session_hash)
    if kind == "seed":  # kva-fair/1: the player's client seed (docs/fairness.md)
        return Seed(match_id, user_id, msg.get("seed"))
    if kind == "abort":  # refused once both players have moved
        return Abort(match_id, user_id)
    return Resign(match_id, user_id)


async def _handle(conn: Connection, service: PlayService, msg: Any) -> None:
    """Answer one client message (its JSON value: the size and JSON were checked)."""
    kind = client_type(msg)
    if kind not in MATCH_CLIENT_TYPES:
        await conn.error("unknown_type", "unknown message type")
        return
    if kind == "ping":
        await conn.send({"type": "pong"})
        return
    if kind != "action" and await _session_ended(conn):  # an action's write checks it
        return
    if kind == "hello":
        await _community_status(conn, await _resync(conn, service))
        return
    try:
        if kind in REMATCH_TYPES:
            await services(conn.ws).rematch.handle(kind, conn.match_id, conn.user_id)
        elif kind == CLAIM_TYPE:
            await services(conn.ws).presence.claim(conn.match_id, conn.user_id)
        else:
            await service.route(_command(conn, kind, msg))
    except PlayError as exc:
        if exc.code == "revoked":  # the action's write found the session ended
            await _revoked(conn)
        elif kind != "action" or not await _session_ended(conn):
            await conn.error(exc.code, exc.message)


async def _watchable(session: SocketSession, match_id: str) -> MatchInfo | None:
    """The match, if it exists and this visitor may watch it; otherwise None, and the
    handshake refused: 4404 (no such match) or 4403 (a private match: its players and who
    gave the password only)."""
    try:
        info = (await session.svc.play.info(match_id, session.user_id)
                if len(match_id) <= 24 else None)
    except NotFound:
        info = None
    if info is None or not info.may_watch:
        await session.ws.close(code=4404 if info is None else 4403)
        return None
    return info


async def _watch(session: SocketSession, conn: Connection, over: bool) -> None:
    """The counted socket's life: subscribed to its match, present there (``over``: the
    match had ended when the socket opened), answering the client's messages."""
    svc, match_id = session.svc, conn.match_id
    presence = svc.presence
    sub = await svc.broker.subscribe(topic(match_id), _deliverer(conn, presence))
    svc.play.watchers.add(match_id, conn)  # states are built for the keys watched here
    present_as = conn.seat  # the seat this socket counts as connected for
    await presence.connected(match_id, present_as, over=over)
    svc.lobby.attendance.enter(conn.user_id)  # the creator of an open table is still here

    async def leave() -> None:
        svc.play.watchers.discard(match_id, conn)
        await sub.close()
        svc.lobby.attendance.leave(conn.user_id)
        await presence.disconnected(match_id, present_as)

    session.on_close(leave)
    try:
        await session.receive(lambda msg: _handle(conn, svc.play, msg), conn.error)
    except NotFound:
        await conn.channel.close(4404)


@router.websocket("/ws/m/{match_id}")
async def match_socket(ws: WebSocket, match_id: str) -> None:
    """The real-time channel of one match, for a seated player or a spectator."""
    session = SocketSession(ws, frame_limit=MAX_FRAME)
    if not await session.handshake():
        return
    info = await _watchable(session, match_id)
    if info is None:
        return
    conn = Connection(ws, match_id, session.user_id, session.token, await session.accept())
    conn.seat = info.seat
    # A spectator too many is refused with an error and 4429 (a seated player never is).
    await session.serve(lambda: _watch(session, conn, info.status in CLOSED_STATUSES),
                        match_id=match_id, seat=conn.seat)
