"""Reads of the Domino Coin ledger (:mod:`kva.storage.ledger`) that lock and move nothing: a
wallet's history, one match's entries, and everything ``kva coins audit`` checks."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Row, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from kva.status import MatchStatus
from kva.storage.ledger import CoinAccount, CoinEntry
from kva.storage.models import MatchRow, MatchSeat, User


async def wallet_lines(session: AsyncSession, wallet_id: int, page: int, per_page: int
                       ) -> tuple[list[Row[Any]], int]:
    """One page (from 1) of the entries in or out of the wallet ``wallet_id``, newest first,
    each as (``id``, ``kind``, ``delta``: signed for the wallet, ``running``: its balance
    after the entry, ``match_id``, ``created_at``); and how many entries there are."""
    signed = case((CoinEntry.to_account == wallet_id, CoinEntry.amount),
                  else_=-CoinEntry.amount)
    lines = (
        select(CoinEntry.id, CoinEntry.kind, signed.label("delta"),
               func.sum(signed).over(order_by=CoinEntry.id).label("running"),
               CoinEntry.match_id, CoinEntry.created_at)
        .where((CoinEntry.to_account == wallet_id) | (CoinEntry.from_account == wallet_id))
        .subquery()
    )
    total = await session.scalar(select(func.count()).select_from(lines)) or 0
    rows = await session.execute(select(lines).order_by(lines.c.id.desc())
                                 .limit(per_page).offset((page - 1) * per_page))
    return list(rows.all()), int(total)


async def opponents(session: AsyncSession, user_id: int,
                    match_ids: Collection[str]) -> dict[str, str]:
    """The nickname of ``user_id``'s opponent in each of ``match_ids`` (coin matches are
    between two registered players)."""
    if not match_ids:
        return {}
    rows = await session.execute(
        select(MatchSeat.match_id, User.nickname)
        .join(User, User.id == MatchSeat.user_id)
        .where(MatchSeat.match_id.in_(match_ids), MatchSeat.user_id != user_id))
    return {match_id: nickname for match_id, nickname in rows}


async def match_entries(session: AsyncSession, match_id: str) -> list[CoinEntry]:
    """The entries of one match: its stakes and its payout."""
    return list(await session.scalars(select(CoinEntry).where(CoinEntry.match_id == match_id)))


async def escrow_balance(session: AsyncSession, match_id: str) -> int:
    """What the escrow of ``match_id`` holds (0: none)."""
    return int(await session.scalar(select(CoinAccount.balance).where(
        CoinAccount.match_id == match_id)) or 0)


async def all_accounts(session: AsyncSession) -> list[CoinAccount]:
    """Every account of the ledger."""
    return list(await session.scalars(select(CoinAccount)))


async def all_entries(session: AsyncSession) -> list[CoinEntry]:
    """Every entry of the ledger, oldest first."""
    return list(await session.scalars(select(CoinEntry).order_by(CoinEntry.id)))


async def coin_matches(session: AsyncSession, also: Collection[str]) -> list[MatchRow]:
    """Every match with a stake, and the matches of ``also`` whatever their stake."""
    return list(await session.scalars(
        select(MatchRow).where((MatchRow.stake != 0) | MatchRow.id.in_(also))))


async def finished_coin_matches(session: AsyncSession) -> list[MatchRow]:
    """Every finished match that was played for a stake."""
    return list(await session.scalars(select(MatchRow).where(
        MatchRow.stake != 0, MatchRow.status == MatchStatus.FINISHED)))


async def nicknames(session: AsyncSession, ids: Collection[int]) -> dict[int, str]:
    """The nickname of each user of ``ids`` that exists."""
    if not ids:
        return {}
    return {u.id: u.nickname for u in await session.scalars(
        select(User).where(User.id.in_(ids)))}
