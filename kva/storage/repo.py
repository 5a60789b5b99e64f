"""The queries the play service and the web shell need, one small function each.

Every function takes an ``AsyncSession`` and leaves committing to the caller, except where the
docstring says otherwise, so a caller can put several writes in one transaction.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, TypeVar, cast

from sqlalchemy import (
    CursorResult,
    Insert,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.orm import make_transient_to_detached

from kva.status import MatchStatus
from kva.storage.journal import ChangeApplier, assemble
from kva.storage.models import (
    Base,
    MatchAction,
    MatchFair,
    MatchRow,
    MatchSeat,
    SessionRow,
    TableRow,
    User,
    WatchGrant,
    utcnow,
)
from kva.storage.seats import seated

_ACTIONS = cast(Table, MatchAction.__table__)
_MATCHES = cast(Table, MatchRow.__table__)
_SEATS = cast(Table, MatchSeat.__table__)
_SESSIONS = cast(Table, SessionRow.__table__)
_FAIR = cast(Table, MatchFair.__table__)
_TABLES = cast(Table, TableRow.__table__)
_USERS = cast(Table, User.__table__)
T = TypeVar("T")
M = TypeVar("M", bound=Base)


#: The journal inserts, built once (a statement built per call costs more than the INSERT).
_APPEND = insert(_ACTIONS).values(match_id=bindparam("match_id"), seq=bindparam("seq"),
                                  change=bindparam("change"))
_APPEND_IF_LIVE = insert(_ACTIONS).from_select(
    ["match_id", "seq", "change"],
    select(bindparam("match_id", type_=String), bindparam("seq", type_=Integer),
           bindparam("change", type_=Text))
    .where(exists().where(_SESSIONS.c.token_hash == bindparam("player_session"),
                          _SESSIONS.c.revoked_at.is_(None))))


class SessionEnded(Exception):
    """A change made for a session that is revoked (or gone): nothing was written."""


#: How many guest nicknames :func:`create_guest` tries (more digits every three).
GUEST_NAME_TRIES = 12
#: The digits of the names this process's new guests start with: 4, and one more each time a
#: guest finds two names of that length taken in a row. Guests are kept, so a site's names of
#: one length fill up (9,000 of 4 digits: with 4,500 guests every other first try would fail,
#: each a refused INSERT and its exception's garbage); this moves new guests on to the next
#: length while failures are still rare (two in a row at 10 % of the names taken: 1 in 100).
_guest_digits = [4]
#: Names never start longer than this (12 tries reach 3 digits more).
_GUEST_DIGITS_AT_MOST = 9


def guest_nickname(attempt: int) -> str:
    """A random guest nickname, ``guest-NNNN`` (the starting length, see
    :data:`_guest_digits`; a digit more every three attempts)."""
    digits = _guest_digits[0] + attempt // 3
    return f"guest-{secrets.randbelow(9 * 10 ** (digits - 1)) + 10 ** (digits - 1)}"


async def create_guest(sessions: async_sessionmaker[AsyncSession]) -> User:
    """Create and commit a guest user named ``guest-NNNN`` (more digits if the name is taken)."""
    return (await create_guest_with(sessions, _nothing_more))[0]


async def _nothing_more(conn: AsyncSession | AsyncConnection, user: User) -> None:
    return None


async def create_guest_with(
    sessions: async_sessionmaker[AsyncSession],
    also: Callable[[AsyncSession | AsyncConnection, User], Awaitable[T]],
) -> tuple[User, T]:
    """:func:`create_guest`, with what ``also`` adds committed in the same transaction:
    ``also`` is called with the session and the new user (its id assigned) before the
    commit; its result is returned with the user.

    The user is written with a Core INSERT of every column's value, not added to the session
    and flushed (the unit of work was most of the CPU of a new guest; every new match makes
    one or two), and handed back as the detached object an ORM read would have given."""
    started_at = _guest_digits[0]
    for attempt in range(GUEST_NAME_TRIES):
        values = new_row_values(_USERS, {"nickname": guest_nickname(attempt), "kind": "guest"})
        try:
            async with core_transaction(sessions) as conn:
                result = await conn.execute(insert(_USERS), values)  # a taken name fails
                values["id"] = result.inserted_primary_key[0]  # type: ignore[attr-defined]
                user = detached(User, values)
                done = await also(conn, user)
        except IntegrityError:
            if attempt == 1:  # two names of the starting length taken in a row
                _guest_digits[0] = min(max(_guest_digits[0], started_at + 1),
                                       _GUEST_DIGITS_AT_MOST)
            continue
        return user, done
    raise RuntimeError("could not find a free guest nickname")


@asynccontextmanager
async def core_transaction(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncConnection | AsyncSession]:
    """A transaction for Core statements only, committed at the end (rolled back on an
    error): on a connection of the engine the factory is bound to, with no ORM session to set
    up, flush and tear down around it (else, a factory bound to no engine, in a session)."""
    bind = sessions.kw.get("bind")
    if isinstance(bind, AsyncEngine):
        async with bind.begin() as conn:
            yield conn
    else:
        async with sessions() as session, session.begin():
            yield session


@asynccontextmanager
async def core_connection(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncConnection | AsyncSession]:
    """:func:`core_transaction` that commits only if the caller does (reads, and a write now
    and then): a connection of the factory's engine, else a session."""
    bind = sessions.kw.get("bind")
    if isinstance(bind, AsyncEngine):
        async with bind.connect() as conn:
            yield conn
    else:
        async with sessions() as session:
            yield session


def new_row_values(table: Table, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every column's value in a new row of ``table`` but an autoincremented key's: ``given``,
    else the column's Python-side default (a value, or a callable called now, as an INSERT
    computes it), else None. What a Core INSERT of the row writes and what its object
    (:func:`detached`) holds, so both agree with the model's defaults."""
    values: dict[str, Any] = {}
    for column in table.columns:
        key = column.key
        if key in given:
            values[key] = given[key]
        elif column.primary_key and column.autoincrement is True:
            continue
        elif column.default is None:
            values[key] = None
        elif column.default.is_callable:
            values[key] = column.default.arg(None)  # type: ignore[attr-defined]
        else:
            values[key] = column.default.arg  # type: ignore[attr-defined]
    return values


def detached(cls: type[M], values: Mapping[str, Any]) -> M:
    """The object of a row written or read with Core (``values``: every column, the primary
    key included), as the ORM would hand it back from a session since closed: detached, every
    attribute loaded, so reading one never goes to the database, and never written again if
    added to a session."""
    obj = cls(**values)
    make_transient_to_detached(obj)
    return obj


def _column_values(obj: Any, table: Table) -> dict[str, Any]:
    """The values an INSERT of ``obj`` (a new mapped object) writes: its columns that are set;
    left out (None), a column gets its default or NULL, as the ORM's own INSERT would."""
    values = {}
    for column in table.columns:
        value = getattr(obj, column.key)
        if value is not None:
            values[column.key] = value
    return values


async def insert_match(session: AsyncSession, row: MatchRow, fair: MatchFair | None,
                       table: TableRow | None = None) -> None:
    """Write a new match: its row, its seats, its kva-fair/1 row and its table (if any), in
    the caller's transaction, with Core INSERTs of the same values that adding the objects and
    flushing would write: no unit of work for rows written once (on SQLite 2.0 -> 1.3 ms of
    CPU per new table, microbenchmark). The objects themselves stay out of the session."""
    await session.execute(insert(_MATCHES), _column_values(row, _MATCHES))
    # every column of every seat: one executemany needs the same keys in each row
    await session.execute(insert(_SEATS), [{c.key: getattr(s, c.key) for c in _SEATS.columns}
                                           for s in row.seats])
    if fair is not None:
        await session.execute(insert(_FAIR), _column_values(fair, _FAIR))
    if table is not None:
        await session.execute(insert(_TABLES), _column_values(table, _TABLES))


async def get_user(session: AsyncSession, user_id: int) -> User | None:
    """The user with id ``user_id``, or None."""
    return await session.get(User, user_id)


async def users_by_id(session: AsyncSession, ids: list[int]) -> dict[int, User]:
    """Users by id for the given ids (missing ids are left out)."""
    if not ids:
        return {}
    rows = await session.scalars(select(User).where(User.id.in_(ids)))
    return {u.id: u for u in rows}


async def get_match(session: AsyncSession, match_id: str) -> MatchRow | None:
    """The match row, or None."""
    return await session.get(MatchRow, match_id)


async def match_version(session: AsyncSession | AsyncConnection, match_id: str) -> int | None:
    """The stored version of a match (None if there is no such match): its checkpoint's
    version or its last journal row's, whichever is later. A cheap freshness check for a copy
    held in memory, which another process may have moved on."""
    last = (select(func.max(_ACTIONS.c.seq)).where(_ACTIONS.c.match_id == match_id)
            .scalar_subquery())
    row = (await session.execute(
        select(_MATCHES.c.version, last).where(_MATCHES.c.id == match_id))).first()
    if row is None:
        return None
    return max(int(row[0]), int(row[1] or 0))


async def journal_since(
    session: AsyncSession | AsyncConnection, match_id: str, version: int
) -> list[tuple[int, str]]:
    """The journal rows (``seq``, ``change``) of a match after ``version``, in order."""
    rows = await session.execute(
        select(_ACTIONS.c.seq, _ACTIONS.c.change)
        .where(_ACTIONS.c.match_id == match_id, _ACTIONS.c.seq > version)
        .order_by(_ACTIONS.c.seq))
    return [(seq, change) for seq, change in rows]


async def current_record(
    session: AsyncSession | AsyncConnection, row: MatchRow, apply_change: ChangeApplier,
) -> tuple[dict[str, Any], int]:
    """The record of ``row`` now and its version: the checkpoint with the journal applied,
    each change by ``apply_change`` (its game's, :meth:`kva.games.LivePlay.apply_change`)."""
    changes = await journal_since(session, row.id, row.version)
    if not changes:
        return row.record, row.version
    return assemble(row.record, (c for _, c in changes), apply_change), changes[-1][0]


async def append_change(
    conn: AsyncSession | AsyncConnection, match_id: str, seq: int, change: str,
    player_session: str | None = None,
) -> bool:
    """Append one change of a match as version ``seq`` (Core, one INSERT, no read first).

    Returns False, writing nothing, when version ``seq`` exists: another writer got there
    first (the caller's copy is stale). The caller's transaction must then be rolled back.

    With ``player_session`` (the SHA-256 of a session token), the row is written only while
    that session is live, in the same statement (``INSERT ... SELECT ... WHERE EXISTS``): a
    player's change checks their session at no extra round trip to the database, and
    :class:`SessionEnded` is raised, nothing written, once it is revoked.
    """
    values = {"match_id": match_id, "seq": seq, "change": change}
    statement = _APPEND
    if player_session is not None:
        statement, values = _APPEND_IF_LIVE, {**values, "player_session": player_session}
    try:
        result: CursorResult[Any] = await conn.execute(statement, values)  # type: ignore[assignment]
    except IntegrityError:
        return False
    if player_session is not None and result.rowcount != 1:
        raise SessionEnded("the session of this change has ended")
    return True


#: The drivers a statement on a hot path goes to directly, not through SQLAlchemy's cursor,
#: transaction and pool reset (:mod:`kva.storage.journal_writer`;
#: :func:`kva.service.accounts.sessions.session_is_live`).
_DIRECT_DRIVERS = (("sqlite", "aiosqlite"), ("postgresql", "asyncpg"))


def sent_direct(dialect: Dialect) -> bool:
    """Whether a hot statement goes straight to this dialect's driver (aiosqlite, asyncpg)."""
    return (dialect.name, dialect.driver) in _DIRECT_DRIVERS


def journal_insert(*, guarded: bool) -> Insert:
    """The journal INSERT of :func:`append_change` (``guarded``: the one that checks
    ``player_session``), for the writers that send it as their driver's own SQL
    (:mod:`kva.storage.journal_writer`)."""
    return _APPEND_IF_LIVE if guarded else _APPEND


async def save_match_state(
    session: AsyncSession,
    match_id: str,
    version: int,
    *,
    record: dict[str, Any],
    status: str,
    change: str,
    winner: int | None = None,
    end_reason: str | None = None,
    finished_at: datetime | None = None,
    seated: tuple[int, int] | None = None,
    player_session: str | None = None,
    reseated: tuple[int, dict[str, Any]] | None = None,
) -> bool:
    """Write a checkpoint: the match's whole record at ``version`` (a join, a cancelled table,
    the end of the match), guarded like every change by appending ``change`` as row
    ``version`` of the journal first. ``seated``: the seat and user id of a player who just
    sat down in it (a join). ``reseated``: the seat and the new values of its row when a
    waiting table's seat changes otherwise (a bot put in it, or a joiner who left it free).

    Returns False (and writes nothing) when version ``version`` exists already: another
    process or task changed the match first; :class:`SessionEnded` when ``player_session``
    (see :func:`append_change`) has ended.
    """
    if not await append_change(session, match_id, version, change, player_session):
        return False
    values: dict[str, Any] = {
        "record": record,
        "status": status,
        "version": version,
        "updated_at": utcnow(),
        "winner": winner,
        "end_reason": end_reason,
        "finished_at": finished_at,
    }
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        update(_MATCHES).where(_MATCHES.c.id == match_id).values(**values)
    )
    if seated is not None:
        seat, user_id = seated
        await session.execute(update(_SEATS).where(
            _SEATS.c.match_id == match_id, _SEATS.c.seat == seat).values(user_id=user_id))
    if reseated is not None:
        seat, seat_values = reseated
        await session.execute(update(_SEATS).where(
            _SEATS.c.match_id == match_id, _SEATS.c.seat == seat).values(**seat_values))
    return result.rowcount == 1


async def table_by_token(session: AsyncSession, token: str) -> TableRow | None:
    """The closed table whose link carries ``token``, or None."""
    return await session.scalar(select(TableRow).where(TableRow.token == token))


async def table_of_match(session: AsyncSession, match_id: str) -> TableRow | None:
    """The closed table of a friend match, or None (bot matches have none)."""
    return await session.scalar(select(TableRow).where(TableRow.match_id == match_id))


async def unfinished_matches(session: AsyncSession) -> list[MatchRow]:
    """Every match still being played (what to resume after a restart)."""
    rows = await session.scalars(select(MatchRow).where(MatchRow.status == MatchStatus.ACTIVE))
    return list(rows)


async def matches_of_user(session: AsyncSession, user_id: int, limit: int = 20) -> list[MatchRow]:
    """The user's matches, unfinished first, newest first."""
    rows = await session.scalars(
        select(MatchRow)
        .where(seated(user_id), MatchRow.status != MatchStatus.CANCELLED)
        .order_by(MatchRow.finished_at.is_not(None), MatchRow.created_at.desc())
        .limit(limit)
    )
    return list(rows)


async def has_watch_grant(session: AsyncSession, match_id: str, user_id: int) -> bool:
    """Whether ``user_id`` may watch the private match ``match_id`` (gave its password)."""
    return await session.get(WatchGrant, (match_id, user_id)) is not None


async def grant_watch(session: AsyncSession, match_id: str, user_id: int) -> None:
    """Let ``user_id`` watch the private match ``match_id`` (nothing changes if they may)."""
    if not await has_watch_grant(session, match_id, user_id):
        session.add(WatchGrant(match_id=match_id, user_id=user_id))


async def copy_watch_grants(session: AsyncSession, from_match: str, to_match: str) -> None:
    """Whoever may watch ``from_match`` may watch ``to_match`` (its rematch)."""
    users = await session.scalars(select(WatchGrant.user_id)
                                  .where(WatchGrant.match_id == from_match))
    for user_id in users:
        session.add(WatchGrant(match_id=to_match, user_id=user_id))
