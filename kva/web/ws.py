"""The WebSocket of a match (protocol in docs/web-contract.md).

One task reads the client's frames and calls the service; one relays the states the service
publishes for this match, picking the one built for this viewer. Every refused frame gets an
``error`` and changes nothing; the client's ``hello`` always gets the current state back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from kva.service import NotFound, PlayError, PlayService
from kva.service.broker import Broker, Subscription
from kva.service.play import topic, viewer_key
from kva.service.presence import CLAIM_TYPE, Presence
from kva.service.ratings import match_ratings_message
from kva.service.rematch import REMATCH_TYPES, RematchService
from kva.service.sessions import COOKIE, user_for_token
from kva.web.security import origin_allowed

router = APIRouter()
log = logging.getLogger(__name__)
#: The largest client frame accepted (contract: 4 KiB).
MAX_FRAME = 4096
CLIENT_TYPES = ("hello", "action", "resign", "ping", "seed", *REMATCH_TYPES, CLAIM_TYPE)


class Connection:
    """One viewer's socket: what it is owed and the last version it was sent."""

    def __init__(self, ws: WebSocket, match_id: str, user_id: int | None) -> None:
        self.ws = ws
        self.match_id = match_id
        self.user_id = user_id
        self.seat: int | None = None
        self.sent_version = 0
        self._send_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self._send_lock:
            await self.ws.send_text(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    async def send_state(self, state: dict[str, Any]) -> None:
        """Send a state unless the client already has that version or a later one."""
        async with self._send_lock:
            if state["version"] <= self.sent_version:
                return
            self.sent_version = state["version"]
            await self.ws.send_text(json.dumps(state, ensure_ascii=False, separators=(",", ":")))

    async def error(self, code: str, message: str) -> None:
        await self.send({"type": "error", "code": code, "message": message})


async def _relay(conn: Connection, sub: Subscription, presence: Presence) -> None:
    async for message in sub:
        if "presence" in message:  # another process's players coming and going
            presence.note(conn.match_id, message["presence"])
        broadcast = message.get("broadcast")
        if isinstance(broadcast, dict) and not (  # rematch and presence messages, for all
            broadcast.get("type") == "presence" and broadcast.get("seat") == conn.seat
        ):  # (but nobody is told about their own comings and goings)
            await conn.send(broadcast)
        state = message.get("states", {}).get(viewer_key(conn.seat))
        if state is not None:
            await conn.send_state(state)


async def _resync(conn: Connection, service: PlayService) -> None:
    """Answer ``hello`` with the current state, even at a version the client has (it asked);
    never with one older than what the relay already sent."""
    state = await service.state_for(conn.match_id, conn.user_id)
    conn.seat = state["you"]
    async with conn._send_lock:
        if state["version"] < conn.sent_version:
            return
        conn.sent_version = state["version"]
        await conn.ws.send_text(json.dumps(state, ensure_ascii=False, separators=(",", ":")))


async def _community_status(conn: Connection) -> None:
    """After a hello: who is away (with the time left to their grace period), where the
    rematch stands once the match is over, and the rating change of a rated match."""
    presence: Presence = conn.ws.app.state.presence
    for message in presence.messages(conn.match_id):
        if message["seat"] != conn.seat:
            await conn.send(message)
    rematch: RematchService = conn.ws.app.state.rematch
    status = await rematch.status(conn.match_id)
    if status["state"] != "none":
        await conn.send(status)
    rated = await match_ratings_message(conn.ws.app.state.sessions, conn.match_id)
    if rated is not None:  # a page opened after a rated match ended still shows the change
        await conn.send(rated)


async def _handle(conn: Connection, service: PlayService, text: str) -> None:
    if len(text.encode("utf-8")) > MAX_FRAME:
        await conn.error("too_big", f"a message may be at most {MAX_FRAME} bytes")
        return
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: brackets nested ~1000 deep
        await conn.error("bad_json", "the message is not valid JSON")
        return
    kind = msg.get("type") if isinstance(msg, dict) else None
    if kind not in CLIENT_TYPES:
        await conn.error("unknown_type", "unknown message type")
        return
    if kind == "ping":
        await conn.send({"type": "pong"})
        return
    if kind == "hello":
        await _resync(conn, service)
        await _community_status(conn)
        return
    try:
        if kind in REMATCH_TYPES:
            rematch: RematchService = conn.ws.app.state.rematch
            await rematch.handle(kind, conn.match_id, conn.user_id)
        elif kind == CLAIM_TYPE:
            presence: Presence = conn.ws.app.state.presence
            await presence.claim(conn.match_id, conn.user_id)
        elif kind == "action":
            await service.act(conn.match_id, conn.user_id, msg.get("version"), msg.get("action"))
        elif kind == "seed":  # kva-fair/1: the player's client seed (docs/fairness.md)
            await service.seed(conn.match_id, conn.user_id, msg.get("seed"))
        else:
            await service.resign(conn.match_id, conn.user_id)
    except PlayError as exc:
        await conn.error(exc.code, exc.message)


@router.websocket("/ws/m/{match_id}")
async def match_socket(ws: WebSocket, match_id: str) -> None:
    """The real-time channel of one match, for a seated player or a spectator."""
    if not origin_allowed(ws.headers, ws.app.state.settings.allowed_origins):
        await ws.close(code=1008)  # before accept: the handshake is refused (HTTP 403)
        return
    service: PlayService = ws.app.state.service
    broker: Broker = ws.app.state.broker
    user = await user_for_token(ws.app.state.sessions, ws.cookies.get(COOKIE))
    user_id = user.id if user is not None else None
    try:
        info = await service.info(match_id, user_id) if len(match_id) <= 24 else None
    except NotFound:
        info = None
    if info is None:
        await ws.close(code=4404)
        return
    if not info.may_watch:  # a private match: its players and who gave the password only
        await ws.close(code=4403)
        return
    await ws.accept()
    conn = Connection(ws, match_id, user_id)
    conn.seat = info.seat
    sub = await broker.subscribe(topic(match_id))
    presence: Presence = ws.app.state.presence
    relay = asyncio.create_task(_relay(conn, sub, presence))
    present_as = conn.seat  # the seat this socket counts as connected for
    await presence.connected(match_id, present_as)
    ws.app.state.lobby.attendance.enter(user_id)  # the creator of an open table is still here
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                data = message.get("bytes") or b""
                if len(data) > MAX_FRAME:
                    await conn.error("too_big", f"a message may be at most {MAX_FRAME} bytes")
                    continue
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    await conn.error("bad_json", "the message is not valid JSON")
                    continue
            await _handle(conn, service, text)
    except WebSocketDisconnect:
        pass
    except NotFound:
        with contextlib.suppress(Exception):
            await ws.close(code=4404)
    finally:
        relay.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await relay
        await sub.close()
        ws.app.state.lobby.attendance.leave(user_id)
        await presence.disconnected(match_id, present_as)
