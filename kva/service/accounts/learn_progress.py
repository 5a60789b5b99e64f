"""What the learning pages store and ask (:mod:`kva.web.learn`): a registered player's lesson
progress (``learn_progress``; guests keep theirs in the browser), and whether a match allows
the counting aid.

Progress is a set of step slugs, kept in the lesson's order; a slug that is no longer a step
is dropped when read and when written.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.learn.lessons import SLUGS
from kva.storage import learn as learn_store


async def match_rated(sessions: async_sessionmaker[AsyncSession], match_id: str) -> bool | None:
    """Whether the match ``match_id`` is rated (None: no such match)."""
    async with sessions() as session:
        return await learn_store.match_rated(session, match_id)


async def progress_of(sessions: async_sessionmaker[AsyncSession], user_id: int) -> list[str]:
    """The steps ``user_id`` has done, as stored (slugs of steps that exist only)."""
    async with sessions() as session:
        row = await learn_store.progress(session, user_id)
    return [s for s in (row.done.split(",") if row is not None else []) if s in SLUGS]


async def add_progress(sessions: async_sessionmaker[AsyncSession], user_id: int,
                       new: Iterable[str]) -> list[str]:
    """Add the steps ``new`` to what ``user_id`` has done (the union, in the lesson's order,
    slugs of steps that exist only), committed; the steps done now."""
    async with sessions() as session:
        row = await learn_store.progress(session, user_id)
        old = set(row.done.split(",")) if row is not None and row.done else set()
        wanted = old | set(new)
        done = [s for s in SLUGS if s in wanted]
        learn_store.put_progress(session, row, user_id, ",".join(done))
        await session.commit()
    return done
