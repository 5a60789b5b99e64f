"""Helpers for the community tests: registered players and finished matches written straight
into the database (until registration lands, and for exact control over dates and results)."""

from __future__ import annotations

import random
import secrets
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.rules import Match, verify_record, write_record
from kva.storage.db import Database
from kva.storage.models import MatchRow, MatchSeat, User, utcnow


def nickname(prefix: str = "p") -> str:
    """A nickname no other test uses (the PostgreSQL database is shared by the session)."""
    return f"{prefix}{secrets.token_hex(5)}"


async def make_user(sessions: async_sessionmaker, kind: str = "registered",
                    name: str | None = None, **columns: Any) -> User:
    """A committed user (registered unless ``kind='guest'``)."""
    async with sessions() as session, session.begin():
        user = User(nickname=name or nickname(), kind=kind, **columns)
        session.add(user)
    return user


def played_record(seed: int, target: int = 75, names: tuple[str, str] = ("a", "b"),
                  forfeit: tuple[int, str] | None = None) -> dict[str, Any]:
    """A finished, valid ``georgian-domino/1`` record: random legal play from ``seed``
    (or a forfeit by ``forfeit[0]`` for reason ``forfeit[1]`` after the first move)."""
    rng = random.Random(seed)
    match = Match(target, "draw", random.Random(seed))
    if forfeit is not None:
        match.apply_unchecked(match.legal_codes()[0])
        match.forfeit(*forfeit)  # type: ignore[arg-type]
    while not match.over:
        match.apply_unchecked(rng.choice(match.legal_codes()))
    doc = write_record(match, players=[{"name": names[0]}, {"name": names[1]}],
                       meta={"match_id": f"seed{seed}"})
    verify_record(doc)
    return doc


async def finished_match(
    sessions: async_sessionmaker,
    seat0: User | None,
    seat1: User | None,
    *,
    winner: int | None = None,
    rated: bool = True,
    seed: int | None = None,
    bots: tuple[str | None, str | None] = (None, None),
    finished_at: datetime | None = None,
    end_reason: str = "points",
) -> MatchRow:
    """A finished match row with a real record. ``winner`` forces who won (the record is
    searched over seeds until its winner agrees); None keeps the record's own winner."""
    seed = secrets.randbelow(10**9) if seed is None else seed
    while True:
        record = played_record(seed, names=(seat0.nickname if seat0 else f"bot:{bots[0]}",
                                            seat1.nickname if seat1 else f"bot:{bots[1]}"))
        if winner is None or record["winner"] == winner:
            break
        seed += 1
    when = finished_at or utcnow()
    row = MatchRow(
        id=secrets.token_urlsafe(9), status="finished", target=75, bazaar="draw", rated=rated,
        seats=[MatchSeat(seat=i, user_id=user.id if user else None, bot=bot)
               for i, (user, bot) in enumerate(zip((seat0, seat1), bots, strict=True))],
        version=50, record=record,
        winner=record["winner"], end_reason=end_reason, created_at=when, updated_at=when,
        finished_at=when,
    )
    async with sessions() as session, session.begin():
        session.add(row)
    return row


async def signed_in(base_url: str, user: User) -> Any:
    """A browser-less visitor signed in as ``user`` (a test-only shortcut past the login form:
    the signed cookie of the first scheme, which the server exchanges for a session of its
    own on the first request)."""
    from kva.web.identity import SessionCodec
    from tests.helpers.webhelp import SECRET, Visitor

    visitor = Visitor(base_url)
    visitor.http.cookies.set("kva_session", SessionCodec(SECRET).dumps(user.id),
                             domain="127.0.0.1", path="/")
    response = await visitor.http.get("/")
    assert response.status_code == 200, response.text
    return visitor


async def store_match(database: Database, seats: list[tuple[User | None, str | None]],
                      rated: bool = False, target: int = 75,
                      first_move_timeout: float = 120.0) -> str:
    """A new active match between the given (user, bot) seats, written to the database the
    servers share (they load it on first use); its id. It has no clock: only each player's
    first move is timed, ``first_move_timeout`` seconds."""
    from kva.service.play import Seat
    from tests.helpers.play import make_play

    sessions = database.sessions
    play = make_play(database, first_move_timeout=first_move_timeout)
    row = play.prepare_match(
        [Seat(u.id, u.nickname) if u is not None else Seat(bot=b) for u, b in seats],
        target, "draw", rated=rated)
    async with sessions() as session, session.begin():
        session.add(row)
    return row.id


async def next_message(sock: Any, start: int, predicate: Any, timeout: float = 10.0) -> Any:
    """The first message at index ``start`` or later of ``sock`` (a ``webhelp.Socket``) that
    matches: unlike ``Socket.wait_for``, an equal message received earlier does not count."""
    import asyncio

    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        for message in sock.messages[start:]:
            if predicate(message):
                return message
        start = len(sock.messages)
        assert not sock.closed, "socket closed while waiting"
        assert asyncio.get_running_loop().time() < deadline, (
            f"timed out waiting; last: {sock.messages[-3:]}")
        await asyncio.sleep(0.01)
