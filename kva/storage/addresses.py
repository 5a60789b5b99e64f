"""The client addresses players' login sessions came from: two accounts that share one may be
one person, which the coin and rating code report to operators."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.models import SessionRow


async def session_addresses(session: AsyncSession,
                            user_ids: Collection[int]) -> dict[int, set[str]]:
    """The distinct, non-empty addresses of each of ``user_ids``' sessions (an empty set for
    a user with none)."""
    addresses: dict[int, set[str]] = {uid: set() for uid in user_ids}
    if not addresses:
        return addresses
    for uid, address in await session.execute(
            select(SessionRow.user_id, SessionRow.address).distinct().where(
                SessionRow.user_id.in_(addresses), SessionRow.address.is_not(None))):
        if address:
            addresses[uid].add(address)
    return addresses
