"""Domino Coin: a virtual in-game coin (not money: it cannot be bought, sold or exchanged, and
means nothing outside kva), kept on the double-entry ledger of :mod:`kva.storage.ledger`.

Coins are created only by the issuing account: :data:`START_GRANT` once per registered account
(its wallet is opened, with the grant, the first time anything asks for it) and the daily
top-up back to :data:`TOPUP_TO` for a wallet below it. A coin match moves both stakes from the
wallets to its escrow in the transaction that starts it (:func:`start_match`, called by the
play service where the second player sits or a quick game's match is created) and the whole
escrow to the winner's wallet in the transaction that finishes it (:func:`finish_match`,
beside the rating update). Every movement has a unique key, so a retried or repeated
transaction (a restart, a second process finishing the same match) moves nothing twice; a
transaction that fails moves nothing at all.

Rows are locked in one order (issuing, then escrow, then wallets by id), with
``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's single writer serialises the rest.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import case, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from kva.rules.numbers import parse_ascii_int
from kva.storage.ledger import (
    ESCROW,
    GRANT,
    ISSUING,
    PAYOUT,
    STAKE,
    TOPUP,
    WALLET,
    CoinAccount,
    CoinEntry,
)
from kva.storage.models import MatchRow, SessionRow, User, utcnow

log = logging.getLogger(__name__)

#: The stakes a table may be played for, per player (0: no stake).
STAKES: tuple[int, ...] = (10, 50, 100, 500, 1000)
#: What a new registered account is granted, once.
START_GRANT = 1000
#: A wallet below this may claim a top-up back to it, once per UTC day.
TOPUP_TO = 100
#: A coin match ended by resignation within this many moves is logged as suspicious.
QUICK_RESIGN_MOVES = 6
#: ``users.kind`` of a registered player.
REGISTERED = "registered"


class CoinError(ValueError):
    """A coin operation refused; nothing moved. ``code``: ``bad_stake``, ``guest``,
    ``bot_stake``, ``insufficient``, ``topup_claimed``, ``topup_above``."""

    def __init__(self, code: str, message: str, *, user_id: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: The player who could not cover a stake (``insufficient``).
        self.user_id = user_id


def check_stake(raw: object) -> int:
    """The stake ``raw`` (a form value or a number) as an int: 0 (none) or one of
    :data:`STAKES`; CoinError ``bad_stake`` for anything else."""
    if raw is None or raw == "":
        return 0
    if isinstance(raw, bool):
        raise CoinError("bad_stake", "choose a stake of 10, 50, 100, 500 or 1,000 coins")
    if isinstance(raw, int):
        value = raw
    else:
        parsed = parse_ascii_int(str(raw), max_digits=6)
        if parsed is None:
            raise CoinError("bad_stake", "choose a stake of 10, 50, 100, 500 or 1,000 coins")
        value = parsed
    if value != 0 and value not in STAKES:
        raise CoinError("bad_stake", "choose a stake of 10, 50, 100, 500 or 1,000 coins")
    return value


# ---------------------------------------------------------------------- accounts


async def _issuing(session: AsyncSession, *, lock: bool) -> CoinAccount:
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


async def _move(session: AsyncSession, key: str, amount: int, source: CoinAccount,
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


async def ensure_wallet(session: AsyncSession, user: User) -> CoinAccount:
    """The wallet of a registered ``user``, opened now with :data:`START_GRANT` if it was not
    (once: the wallet and the grant have unique keys). CoinError ``guest`` for a guest."""
    if user.kind != REGISTERED:
        raise CoinError("guest", "coin tables are for registered players")
    found = await wallet_of(session, user.id)
    if found is not None:
        return found
    try:
        async with session.begin_nested():
            issuing = await _issuing(session, lock=True)
            wallet = CoinAccount(key=f"wallet:{user.id}", kind=WALLET, user_id=user.id,
                                 balance=0)
            session.add(wallet)
            await session.flush()
            await _move(session, f"grant:{user.id}", START_GRANT, issuing, wallet, GRANT)
    except IntegrityError:  # opened meanwhile by another transaction
        found = await wallet_of(session, user.id)
        if found is None:
            raise
        return found
    return wallet


async def balance(session: AsyncSession, user: User | None) -> int | None:
    """The balance of ``user``'s wallet (opened now if needed); None for a guest or nobody.
    The caller commits (a new wallet and its grant)."""
    if user is None or user.kind != REGISTERED:
        return None
    return (await ensure_wallet(session, user)).balance


def utc_day(now: datetime | None = None) -> date:
    """Today in UTC: the day a top-up is counted in."""
    return (now or datetime.now(UTC)).astimezone(UTC).date()


async def claim_topup(session: AsyncSession, user: User, now: datetime | None = None) -> int:
    """Top ``user``'s wallet back up to :data:`TOPUP_TO`; the coins added. CoinError
    ``topup_above`` (balance at or above it) or ``topup_claimed`` (claimed today, UTC)."""
    day = utc_day(now).isoformat()
    await ensure_wallet(session, user)
    issuing = await _issuing(session, lock=True)
    wallet = await wallet_of(session, user.id, lock=True)
    assert wallet is not None
    await session.refresh(wallet)
    key = f"topup:{user.id}:{day}"
    if await session.scalar(select(CoinEntry.id).where(CoinEntry.key == key)) is not None:
        raise CoinError("topup_claimed", "the daily top-up was already claimed today")
    if wallet.balance >= TOPUP_TO:
        raise CoinError("topup_above",
                        f"the daily top-up is for balances below {TOPUP_TO} coins")
    amount = TOPUP_TO - wallet.balance
    try:
        async with session.begin_nested():
            await _move(session, key, amount, issuing, wallet, TOPUP)
    except IntegrityError:
        raise CoinError("topup_claimed", "the daily top-up was already claimed today") from None
    return amount


# ---------------------------------------------------------------------- matches


async def check_can_cover(session: AsyncSession, user: User, stake: int) -> None:
    """CoinError unless ``user`` may play for ``stake`` now (a read: nothing is reserved)."""
    stake = check_stake(stake)
    if stake == 0:
        return
    wallet = await ensure_wallet(session, user)
    if wallet.balance < stake:
        raise CoinError("insufficient", f"this table needs {stake} coins; you have "
                        f"{wallet.balance}", user_id=user.id)


async def match_created(session: AsyncSession, match_id: str) -> None:
    """A coin match was just added in this transaction: a table waiting for its second
    player needs a registered creator who can cover the stake now (CoinError otherwise;
    nothing is reserved until it starts); a match with both seats taken (a quick game)
    starts now (:func:`start_match`)."""
    row = await _stake_row(session, match_id)
    if row is None:
        return
    if row.seat1_user_id is not None or row.seat1_bot is not None:
        await start_match(session, match_id)
        return
    creator = await session.get(User, row.seat0_user_id)
    if creator is None:
        raise CoinError("guest", "coin tables are for registered players")
    await check_can_cover(session, creator, row.stake)


async def _stake_row(session: AsyncSession, match_id: str) -> MatchRow | None:
    """The row of a coin match as stored now (None for any other match: one small read)."""
    if not await stake_of(session, match_id):
        return None
    return await session.get(MatchRow, match_id, populate_existing=True)


async def start_match(session: AsyncSession, match_id: str) -> int:
    """Move both stakes of the coin match ``match_id`` into its escrow: call it inside the
    transaction that starts the match (both seats taken). Returns the stake (0: not a coin
    match, nothing done). A second start of the same match breaks the escrow's and the
    entries' unique keys (IntegrityError): its transaction rolls back, nothing moves twice.

    CoinError (``insufficient``, naming the player; ``guest``; ``bot_stake``) when a player
    cannot cover it: the caller's transaction must roll back, so the match does not start
    and nothing moves."""
    found = (await session.execute(
        select(MatchRow.stake, MatchRow.seat0_user_id, MatchRow.seat1_user_id,
               MatchRow.seat0_bot, MatchRow.seat1_bot).where(MatchRow.id == match_id))).first()
    if found is None or not found.stake:
        return 0
    stake = check_stake(found.stake)
    if found.seat0_bot or found.seat1_bot or found.seat0_user_id is None \
            or found.seat1_user_id is None:
        raise CoinError("bot_stake", "coin tables are person against person")
    ids = [int(found.seat0_user_id), int(found.seat1_user_id)]
    wallets = await _locked_wallets(session, ids)
    if len(wallets) < 2:  # a wallet not opened yet: open it (with its grant), then lock
        users = {u.id: u for u in await session.scalars(select(User).where(User.id.in_(ids)))}
        for uid in sorted(ids):
            if uid not in wallets:
                await ensure_wallet(session, users[uid])
        wallets = await _locked_wallets(session, ids)
    for uid in ids:
        if wallets[uid].balance < stake:
            raise CoinError("insufficient",
                            f"a player cannot cover the stake of {stake} coins", user_id=uid)
    # One escrow per match and one stake entry per match and wallet (unique keys): a second
    # start of the same match fails here and rolls its whole transaction back.
    escrow = CoinAccount(key=f"escrow:{match_id}", kind=ESCROW, match_id=match_id,
                         balance=2 * stake)
    session.add(escrow)
    await session.flush()
    now = utcnow()
    await session.execute(insert(CoinEntry), [
        {"key": f"stake:{match_id}:{seat}", "amount": stake, "from_account": wallets[uid].id,
         "to_account": escrow.id, "kind": STAKE, "match_id": match_id, "created_at": now}
        for seat, uid in enumerate(ids)])
    await session.execute(update(CoinAccount)
                          .where(CoinAccount.id.in_([wallets[uid].id for uid in ids]))
                          .values(balance=CoinAccount.balance - stake)
                          .execution_options(synchronize_session=False))
    for uid in ids:
        set_committed_value(wallets[uid], "balance", wallets[uid].balance - stake)
    return stake


async def _locked_wallets(session: AsyncSession, ids: list[int]) -> dict[int, CoinAccount]:
    """The wallets of ``ids``, locked in account order, as stored now."""
    return {int(w.user_id): w for w in await session.scalars(
        select(CoinAccount).where(CoinAccount.user_id.in_(ids)).order_by(CoinAccount.id)
        .with_for_update().execution_options(populate_existing=True)) if w.user_id is not None}


def _set_meta_stake(row: MatchRow, stake: int) -> None:
    record = row.record
    if isinstance(record, dict):
        meta = dict(record.get("meta") or {})
        if meta.get("stake") != stake:
            meta["stake"] = stake
            row.record = {**record, "meta": meta}


@dataclass(frozen=True, slots=True)
class Payout:
    """The settlement of a coin match: the stake, the seat paid and the coins paid."""

    stake: int
    winner: int
    amount: int


async def finish_match(session: AsyncSession, match_id: str) -> Payout | None:
    """Pay the escrow of the finished coin match ``match_id`` to its winner: call it inside
    the transaction that finishes the match. None when it is not a coin match, not finished,
    has no winner, or was paid already (the unique key of the payout makes that
    exactly-once even for two processes finishing the same match)."""
    row = await session.get(MatchRow, match_id)  # loaded already by the rating, this commit
    if row is not None and row.status != "finished":  # a copy older than this transaction's
        row = await session.get(MatchRow, match_id, populate_existing=True)
    if row is None or not row.stake or row.status != "finished" or row.winner not in (0, 1):
        return None
    winner_id = row.seat0_user_id if row.winner == 0 else row.seat1_user_id
    _set_meta_stake(row, row.stake)
    # The escrow and the winner's wallet, locked in account order in one statement.
    locked = list(await session.scalars(
        select(CoinAccount).where((CoinAccount.match_id == match_id)
                                  | (CoinAccount.user_id == winner_id))
        .order_by(CoinAccount.id).with_for_update()
        .execution_options(populate_existing=True)))
    escrow = next((a for a in locked if a.match_id == match_id), None)
    wallet = next((a for a in locked if a.user_id == winner_id), None)
    if escrow is None or wallet is None or escrow.balance <= 0:
        if escrow is None or wallet is None:
            log.error("coin match %s finished with no escrow or no winner's wallet", match_id)
        return None  # paid already (a second settlement): nothing moves
    amount = escrow.balance
    await _move(session, f"payout:{match_id}", amount, escrow, wallet, PAYOUT, match_id)
    await _log_suspicious(session, row, amount)
    return Payout(row.stake, int(row.winner), amount)


async def _log_suspicious(session: AsyncSession, row: MatchRow, amount: int) -> None:
    """Warn (for operators; logger ``kva.service.coins``) about a coin match that may be one
    person passing coins between two accounts: their sessions share a client address, or it
    ended by resignation (or abandonment) within :data:`QUICK_RESIGN_MOVES` moves."""
    ids = [row.seat0_user_id, row.seat1_user_id]
    addresses: dict[int | None, set[str]] = {uid: set() for uid in ids}
    for uid, address in await session.execute(
            select(SessionRow.user_id, SessionRow.address).distinct().where(
                SessionRow.user_id.in_([i for i in ids if i is not None]),
                SessionRow.address.is_not(None))):
        if address:
            addresses[uid].add(address)
    shared = sorted(addresses[ids[0]] & addresses[ids[1]])
    moves = _moves(row.record)
    quick = row.end_reason in ("resign", "abandon") and moves <= QUICK_RESIGN_MOVES
    if not shared and not quick:
        return
    log.warning("suspicious coin match %s between user %s and user %s: %s%s%s; %d coins paid "
                "to seat %s", row.id, ids[0], ids[1],
                f"sessions share address {', '.join(shared)}" if shared else "",
                "; " if shared and quick else "",
                f"{row.end_reason} after {moves} moves" if quick else "", amount, row.winner)


def _moves(record: Any) -> int:
    hands = record.get("hands") if isinstance(record, dict) else None
    return sum(len(h.get("moves") or []) for h in hands or [] if isinstance(h, dict))


# ---------------------------------------------------------------------- history


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One entry of a wallet's history, as its owner sees it."""

    id: int
    kind: str
    delta: int
    balance: int
    match_id: str | None
    created_at: datetime
    #: The other player of the entry's match (a nickname), None for entries without a match.
    opponent: str | None = None


async def _opponents(session: AsyncSession, user_id: int,
                     match_ids: set[str]) -> dict[str, str]:
    """The nickname of ``user_id``'s opponent in each of ``match_ids`` (coin matches are
    between two registered players)."""
    if not match_ids:
        return {}
    other = case((MatchRow.seat0_user_id == user_id, MatchRow.seat1_user_id),
                 else_=MatchRow.seat0_user_id)
    rows = await session.execute(
        select(MatchRow.id, User.nickname)
        .join(User, User.id == other)
        .where(MatchRow.id.in_(match_ids)))
    return {match_id: nickname for match_id, nickname in rows}


async def history(session: AsyncSession, user_id: int, page: int = 1, per_page: int = 25
                  ) -> tuple[list[HistoryLine], int]:
    """One page of ``user_id``'s wallet entries, newest first, each with the balance after
    it; and how many entries there are."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page start at 1")
    wallet = await wallet_of(session, user_id)
    if wallet is None:
        return [], 0
    signed = case((CoinEntry.to_account == wallet.id, CoinEntry.amount),
                  else_=-CoinEntry.amount)
    lines = (
        select(CoinEntry.id, CoinEntry.kind, signed.label("delta"),
               func.sum(signed).over(order_by=CoinEntry.id).label("running"),
               CoinEntry.match_id, CoinEntry.created_at)
        .where((CoinEntry.to_account == wallet.id) | (CoinEntry.from_account == wallet.id))
        .subquery()
    )
    total = await session.scalar(select(func.count()).select_from(lines)) or 0
    rows = await session.execute(select(lines).order_by(lines.c.id.desc())
                                 .limit(per_page).offset((page - 1) * per_page))
    found = rows.all()
    opponents = await _opponents(session, user_id,
                                 {r.match_id for r in found if r.match_id is not None})
    return [HistoryLine(r.id, r.kind, int(r.delta), int(r.running), r.match_id, r.created_at,
                        opponents.get(r.match_id) if r.match_id else None)
            for r in found], int(total)


async def stake_of(session: AsyncSession, match_id: str) -> int:
    """The stake of a match (0: none)."""
    return int(await session.scalar(select(MatchRow.stake).where(MatchRow.id == match_id))
               or 0)


def summary(stake: int) -> dict[str, Any]:
    """What a page shows of a coin match's stake: per player and the pot."""
    return {"stake": stake, "pot": 2 * stake}
