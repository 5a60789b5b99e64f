"""Helpers for the Domino Coin tests: a play service on the test database, registered
players with wallets, coin tables played to the end, and the audit."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.coins import wallets as coins
from kva.service.coins.audit import AuditReport, audit
from kva.service.play import PlayService
from kva.storage.models import User


async def wallet_balance(sessions: async_sessionmaker, user: User) -> int:
    async with sessions() as session, session.begin():
        value = await coins.balance(session, user)
    assert value is not None
    return value


async def run_audit(sessions: async_sessionmaker) -> AuditReport:
    async with sessions() as session:
        return await audit(session)


async def open_coin_table(play: PlayService, user: User, stake: int) -> tuple[str, str]:
    match_id, token = await play.create_match(user.id, user.nickname, "open", 75, "draw",
                                              stake=stake)
    assert token is not None
    return match_id, token
