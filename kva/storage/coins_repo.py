"""The Domino Coin ledger's accounts and movements (:mod:`kva.storage.ledger`), for the coin
service (:mod:`kva.service.coins.wallets`), which decides what moves and when.

Every function works in the caller's transaction and leaves committing to it. Those that lock
say so: rows are locked in one order (issuing, then escrow, then wallets by id), with
``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's single writer serialises the rest. Each
movement updates the loaded accounts' balances as the stored rows now have them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import case, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from kva.storage.ledger import ESCROW, ISSUING, STAKE, WALLET, CoinAccount, CoinEntry
from kva.storage.models import MatchRow, MatchSeat, User, people_of, utcnow


async def issuing_account(session: AsyncSession, *, lock: bool) -> CoinAccount:
    """The issuing account (locked if ``lock``), created now if the database has none."""
    stmt = select(CoinAccount).where(CoinAccount.key == ISSUING)
    found = await session.scalar(stmt.with_for_update() if lock else stmt)
    if found is None:  # the migration creates it; a database built otherwise gets it here
        found = CoinAccount(key=ISSUING, kind=ISSUING, balance=0)
        session.add(found)
        await session.flush()
    return found


async def wallet_of(session: AsyncSession, user_id: int, *, lock: bool = False
                    ) -> CoinAccount | None:
    """The wallet of ``user_id`` as stored (None: not opened yet, or a guest)."""
    stmt = select(CoinAccount).where(CoinAccount.user_id == user_id)
    return await session.scalar(stmt.with_for_update() if lock else stmt)


async def locked_wallet(session: AsyncSession, user_id: int) -> CoinAccount | None:
    """The wallet of ``user_id``, locked, its balance read again as stored now (a copy the
    session loaded before the lock may be older)."""
    wallet = await wallet_of(session, user_id, lock=True)
    if wallet is not None:
        await session.refresh(wallet)
    return wallet


async def add_wallet(session: AsyncSession, user_id: int) -> CoinAccount:
    """A new, empty wallet for ``user_id``, written now (IntegrityError if it has one)."""
    wallet = CoinAccount(key=f"wallet:{user_id}", kind=WALLET, user_id=user_id, balance=0)
    session.add(wallet)
    await session.flush()
    return wallet


async def move(session: AsyncSession, key: str, amount: int, source: CoinAccount,
               target: CoinAccount, kind: str, match_id: str | None = None) -> None:
    """Append one entry and move the cached balances in this transaction. The caller holds
    both accounts' locks; IntegrityError if ``key`` (or the match's kind and source) exists."""
    if amount <= 0:
        raise ValueError("an entry moves a positive amount")
    await session.execute(insert(CoinEntry).values(
        key=key, amount=amount, from_account=source.id, to_account=target.id, kind=kind,
        match_id=match_id, created_at=utcnow()))
    await session.execute(
        update(CoinAccount).where(CoinAccount.id.in_([source.id, target.id]))
        .values(balance=CoinAccount.balance + case((CoinAccount.id == source.id, -amount),
                                                   else_=amount))
        .execution_options(synchronize_session=False))
    # The loaded copies follow the stored rows, without being marked changed (no second,
    # absolute UPDATE at the next flush).
    set_committed_value(source, "balance", source.balance - amount)
    set_committed_value(target, "balance", target.balance + amount)


async def entry_exists(session: AsyncSession, key: str) -> bool:
    """Whether the movement ``key`` happened already."""
    return await session.scalar(select(CoinEntry.id).where(CoinEntry.key == key)) is not None


async def stake_of(session: AsyncSession, match_id: str) -> int:
    """The stake of a match (0: none)."""
    return int(await session.scalar(select(MatchRow.stake).where(MatchRow.id == match_id))
               or 0)


class MatchSeats(NamedTuple):
    """A match's stake and who sits in it."""

    stake: int
    #: The user of each seat, in seat order (None: a bot, or nobody yet).
    users: tuple[int | None, ...]
    #: The bot of each seat, in seat order (None: a person, or nobody yet).
    bots: tuple[str | None, ...]

    def people(self) -> list[int] | None:
        """The user of each seat when every seat holds a person (a coin match's players);
        None when a bot sits in one, or one is still empty."""
        return people_of(zip(self.users, self.bots, strict=True))


async def match_seats(session: AsyncSession, match_id: str) -> MatchSeats | None:
    """A match's stake and seats, read now (one SELECT); None: no such match."""
    rows = (await session.execute(
        select(MatchRow.stake, MatchSeat.user_id, MatchSeat.bot)
        .join(MatchSeat, MatchSeat.match_id == MatchRow.id)
        .where(MatchRow.id == match_id).order_by(MatchSeat.seat))).all()
    if not rows:
        return None
    return MatchSeats(int(rows[0].stake), tuple(r.user_id for r in rows),
                      tuple(r.bot for r in rows))


async def users_by_id(session: AsyncSession, ids: Sequence[int]) -> dict[int, User]:
    """The users of ``ids`` (those that exist), by id."""
    return {u.id: u for u in await session.scalars(select(User).where(User.id.in_(ids)))}


async def locked_wallets(session: AsyncSession, ids: Sequence[int]) -> dict[int, CoinAccount]:
    """The wallets of ``ids``, locked in account order, as stored now; by user id."""
    return {int(w.user_id): w for w in await session.scalars(
        select(CoinAccount).where(CoinAccount.user_id.in_(ids)).order_by(CoinAccount.id)
        .with_for_update().execution_options(populate_existing=True)) if w.user_id is not None}


async def add_escrow(session: AsyncSession, match_id: str, balance: int) -> CoinAccount:
    """The escrow of ``match_id``, written now holding ``balance`` (its stakes' entries
    follow: :func:`move_stakes`). IntegrityError if the match has one already."""
    escrow = CoinAccount(key=f"escrow:{match_id}", kind=ESCROW, match_id=match_id,
                         balance=balance)
    session.add(escrow)
    await session.flush()
    return escrow


async def move_stakes(session: AsyncSession, match_id: str, stake: int,
                      wallets: Sequence[CoinAccount], escrow: CoinAccount) -> None:
    """One stake entry per seat from ``wallets`` (seat order) to ``escrow``, and the wallets'
    balances down by ``stake``; the escrow's balance is written with it already. The caller
    holds the wallets' locks; IntegrityError if a seat's stake moved already."""
    now = utcnow()
    await session.execute(insert(CoinEntry), [
        {"key": f"stake:{match_id}:{seat}", "amount": stake, "from_account": wallet.id,
         "to_account": escrow.id, "kind": STAKE, "match_id": match_id, "created_at": now}
        for seat, wallet in enumerate(wallets)])
    await session.execute(update(CoinAccount)
                          .where(CoinAccount.id.in_([wallet.id for wallet in wallets]))
                          .values(balance=CoinAccount.balance - stake)
                          .execution_options(synchronize_session=False))
    for wallet in wallets:
        set_committed_value(wallet, "balance", wallet.balance - stake)


async def locked_payout_accounts(
    session: AsyncSession, match_id: str, winner_id: int | None
) -> tuple[CoinAccount | None, CoinAccount | None]:
    """The escrow of ``match_id`` and the wallet of ``winner_id``, locked in account order in
    one statement, as stored now (None for one that does not exist)."""
    locked = list(await session.scalars(
        select(CoinAccount).where((CoinAccount.match_id == match_id)
                                  | (CoinAccount.user_id == winner_id))
        .order_by(CoinAccount.id).with_for_update()
        .execution_options(populate_existing=True)))
    escrow = next((a for a in locked if a.match_id == match_id), None)
    wallet = next((a for a in locked if a.user_id == winner_id), None)
    return escrow, wallet


async def locked_refund_accounts(
    session: AsyncSession, match_id: str, user_ids: Sequence[int]
) -> tuple[CoinAccount | None, dict[int, CoinAccount]]:
    """The escrow of ``match_id`` and the wallets of ``user_ids`` (by user id), locked in
    account order in one statement, as stored now (the escrow None if there is none)."""
    locked = list(await session.scalars(
        select(CoinAccount).where((CoinAccount.match_id == match_id)
                                  | CoinAccount.user_id.in_(user_ids))
        .order_by(CoinAccount.id).with_for_update()
        .execution_options(populate_existing=True)))
    escrow = next((a for a in locked if a.match_id == match_id), None)
    return escrow, {int(a.user_id): a for a in locked if a.user_id is not None}
