"""Reading and writing liveness (tables ``process_alive`` and ``match_takeovers``, migration
0011): when each server process was last alive, and the deadline a process moved forward when
it took a match up (:mod:`kva.service.play.liveness` decides what they mean).

Core statements, built once: a process writes its row every few seconds."""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple, cast

from sqlalchemy import CursorResult, Table, bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.models import MatchTakeover, ProcessAlive

_ALIVE = cast(Table, ProcessAlive.__table__)
_TAKEOVERS = cast(Table, MatchTakeover.__table__)

_SET_ALIVE = (update(_ALIVE).where(_ALIVE.c.process_id == bindparam("process"))
              .values(alive_at=bindparam("at"), stopped=bindparam("stopped")))
_ADD_ALIVE = insert(_ALIVE).values(process_id=bindparam("process"), alive_at=bindparam("at"),
                                   stopped=bindparam("stopped"))
_GET_ALIVE = select(_ALIVE.c.alive_at, _ALIVE.c.stopped).where(
    _ALIVE.c.process_id == bindparam("process"))
_OLD_ALIVE = delete(_ALIVE).where(_ALIVE.c.alive_at < bindparam("before"))
_SET_TAKEOVER = (update(_TAKEOVERS).where(_TAKEOVERS.c.match_id == bindparam("match"))
                 .values(process_id=bindparam("process"), version=bindparam("version"),
                         deadline=bindparam("deadline")))
_ADD_TAKEOVER = insert(_TAKEOVERS).values(
    match_id=bindparam("match"), process_id=bindparam("process"),
    version=bindparam("version"), deadline=bindparam("deadline"))
_GET_TAKEOVER = select(_TAKEOVERS.c.process_id, _TAKEOVERS.c.version,
                       _TAKEOVERS.c.deadline).where(_TAKEOVERS.c.match_id == bindparam("match"))


class Alive(NamedTuple):
    """A process's row: when it was last alive (epoch ms), and whether it stopped then."""

    alive_at: int
    stopped: bool


class Takeover(NamedTuple):
    """A match's last takeover: by which process, at which version, with which deadline."""

    process_id: str
    version: int
    deadline: int


async def _upsert(session: AsyncSession, update_: Any, insert_: Any,
                  values: dict[str, Any]) -> None:
    """Update the row, or insert it if there is none (one writer per row: a lost race to
    insert means the other writer's row is there, written the same instant)."""
    result: CursorResult[Any] = await session.execute(update_, values)  # type: ignore[assignment]
    if result.rowcount == 0:
        with contextlib.suppress(IntegrityError):
            async with session.begin_nested():
                await session.execute(insert_, values)


async def set_alive(session: AsyncSession, process_id: str, at: int, *,
                    stopped: bool = False) -> None:
    """Process ``process_id`` is alive at ``at`` (``stopped``: and stops now)."""
    await _upsert(session, _SET_ALIVE, _ADD_ALIVE,
                  {"process": process_id, "at": at, "stopped": stopped})


async def get_alive(session: AsyncSession, process_id: str) -> Alive | None:
    """When ``process_id`` was last alive (None: it never said)."""
    row = (await session.execute(_GET_ALIVE, {"process": process_id})).first()
    return None if row is None else Alive(int(row.alive_at), bool(row.stopped))


async def forget_alive(session: AsyncSession, before: int) -> None:
    """Drop the rows of processes not alive since ``before`` (long gone)."""
    await session.execute(_OLD_ALIVE, {"before": before})


async def set_takeover(session: AsyncSession, match_id: str, takeover: Takeover) -> None:
    """Record that ``takeover.process_id`` took ``match_id`` up."""
    await _upsert(session, _SET_TAKEOVER, _ADD_TAKEOVER,
                  {"match": match_id, "process": takeover.process_id,
                   "version": takeover.version, "deadline": takeover.deadline})


async def get_takeover(session: AsyncSession, match_id: str) -> Takeover | None:
    """The last takeover of ``match_id`` (None: none recorded)."""
    row = (await session.execute(_GET_TAKEOVER, {"match": match_id})).first()
    return None if row is None else Takeover(str(row.process_id), int(row.version),
                                             int(row.deadline))
