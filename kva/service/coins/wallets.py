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
``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's single writer serialises the rest. This
module decides what moves and when; the statements are :mod:`kva.storage.coins_repo`'s (and,
for reads, :mod:`kva.storage.coins_reads`').
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.coins.stakes import STAKES as STAKES
from kva.service.coins.stakes import CoinError as CoinError
from kva.service.coins.stakes import check_stake as check_stake
from kva.status import GIVEN_UP, MatchStatus
from kva.storage import coins_reads, coins_repo
from kva.storage.addresses import session_addresses
from kva.storage.coins_repo import issuing_account, move, wallet_of
from kva.storage.ledger import GRANT, PAYOUT, REFUND, TOPUP, CoinAccount
from kva.storage.lookups import match_row, user_row
from kva.storage.models import MatchRow, User

log = logging.getLogger(__name__)

#: What a new registered account is granted, once.
START_GRANT = 1000
#: A wallet below this may claim a top-up back to it, once per UTC day.
TOPUP_TO = 100
#: A coin match ended by resignation within this many moves is logged as suspicious.
QUICK_RESIGN_MOVES = 6
#: ``users.kind`` of a registered player.
REGISTERED = "registered"


# ---------------------------------------------------------------------- accounts


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
            issuing = await issuing_account(session, lock=True)
            wallet = await coins_repo.add_wallet(session, user.id)
            await move(session, f"grant:{user.id}", START_GRANT, issuing, wallet, GRANT)
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
    issuing = await issuing_account(session, lock=True)
    wallet = await coins_repo.locked_wallet(session, user.id)
    assert wallet is not None
    key = f"topup:{user.id}:{day}"
    if await coins_repo.entry_exists(session, key):
        raise CoinError("topup_claimed", "the daily top-up was already claimed today")
    if wallet.balance >= TOPUP_TO:
        raise CoinError("topup_above",
                        f"the daily top-up is for balances below {TOPUP_TO} coins")
    amount = TOPUP_TO - wallet.balance
    try:
        async with session.begin_nested():
            await move(session, key, amount, issuing, wallet, TOPUP)
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
    if row.user_at(1) is not None or row.bot_at(1) is not None:
        await start_match(session, match_id)
        return
    creator = await user_row(session, row.user_at(0))
    if creator is None:
        raise CoinError("guest", "coin tables are for registered players")
    await check_can_cover(session, creator, row.stake)


async def _stake_row(session: AsyncSession, match_id: str) -> MatchRow | None:
    """The row of a coin match as stored now (None for any other match: one small read)."""
    if not await stake_of(session, match_id):
        return None
    return await match_row(session, match_id, fresh=True)


async def start_match(session: AsyncSession, match_id: str) -> int:
    """Move both stakes of the coin match ``match_id`` into its escrow: call it inside the
    transaction that starts the match (both seats taken). Returns the stake (0: not a coin
    match, nothing done). A second start of the same match breaks the escrow's and the
    entries' unique keys (IntegrityError): its transaction rolls back, nothing moves twice.

    CoinError (``insufficient``, naming the player; ``guest``; ``bot_stake``) when a player
    cannot cover it: the caller's transaction must roll back, so the match does not start
    and nothing moves."""
    found = await coins_repo.match_seats(session, match_id)
    if found is None or not found.stake:
        return 0
    stake = check_stake(found.stake)
    ids = found.people()
    if ids is None:
        raise CoinError("bot_stake", "coin tables are person against person")
    wallets = await _covering_wallets(session, ids, stake)
    # One escrow per match and one stake entry per match and wallet (unique keys): a second
    # start of the same match fails here and rolls its whole transaction back.
    escrow = await coins_repo.add_escrow(session, match_id, 2 * stake)
    await coins_repo.move_stakes(session, match_id, stake, [wallets[uid] for uid in ids],
                                 escrow)
    return stake


async def _covering_wallets(session: AsyncSession, ids: list[int], stake: int
                            ) -> dict[int, CoinAccount]:
    """The wallets of the players ``ids``, locked (opened first, with their grants, where
    needed); CoinError ``insufficient`` naming the first who cannot cover ``stake``."""
    wallets = await coins_repo.locked_wallets(session, ids)
    if len(wallets) < 2:  # a wallet not opened yet: open it (with its grant), then lock
        users = await coins_repo.users_by_id(session, ids)
        for uid in sorted(ids):
            if uid not in wallets:
                await ensure_wallet(session, users[uid])
        wallets = await coins_repo.locked_wallets(session, ids)
    for uid in ids:
        if wallets[uid].balance < stake:
            raise CoinError("insufficient",
                            f"a player cannot cover the stake of {stake} coins", user_id=uid)
    return wallets


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
    row = await match_row(session, match_id)  # loaded already by the rating, this commit
    finished = MatchStatus.FINISHED
    if row is not None and row.status != finished:  # a copy older than this transaction's
        row = await match_row(session, match_id, fresh=True)
    if row is None or not row.stake or row.status != finished or row.winner not in (0, 1):
        return None
    winner_id = row.user_at(row.winner)
    _set_meta_stake(row, row.stake)
    escrow, wallet = await coins_repo.locked_payout_accounts(session, match_id, winner_id)
    if escrow is None or wallet is None or escrow.balance <= 0:
        if escrow is None or wallet is None:
            log.error("coin match %s finished with no escrow or no winner's wallet", match_id)
        return None  # paid already (a second settlement): nothing moves
    amount = escrow.balance
    await move(session, f"payout:{match_id}", amount, escrow, wallet, PAYOUT, match_id)
    await _log_suspicious(session, row, amount)
    return Payout(row.stake, int(row.winner), amount)


async def abort_match(session: AsyncSession, match_id: str) -> int:
    """Give each player of the aborted coin match ``match_id`` their stake back from its
    escrow: call it inside the transaction that aborts the match. Returns the stake given
    back to each (0: not a coin match, or refunded already: the entries' unique keys make it
    exactly-once)."""
    found = await coins_repo.match_seats(session, match_id)
    if found is None or not found.stake:
        return 0
    ids = found.people()
    if ids is None:
        return 0
    escrow, wallets = await coins_repo.locked_refund_accounts(session, match_id, ids)
    if escrow is None or escrow.balance < 2 * found.stake or set(wallets) != set(ids):
        if escrow is None or set(wallets) != set(ids):
            log.error("coin match %s aborted with no escrow or a wallet missing", match_id)
        return 0  # refunded already: nothing moves
    for uid in ids:
        await move(session, f"refund:{match_id}:{uid}", found.stake, escrow, wallets[uid],
                   REFUND, match_id)
    return int(found.stake)


async def _log_suspicious(session: AsyncSession, row: MatchRow, amount: int) -> None:
    """Warn (for operators; logger ``kva.service.coins.wallets``) about a coin match that may be one
    person passing coins between two accounts: their sessions share a client address, or it
    ended by resignation (or abandonment) within :data:`QUICK_RESIGN_MOVES` moves."""
    ids = row.seat_users()
    addresses = await session_addresses(session, row.seated_users())
    seen = [addresses.get(uid, set()) if uid is not None else set() for uid in ids]
    shared = sorted(seen[0] & seen[1])
    moves = moves_played(row.record)
    quick = row.end_reason in GIVEN_UP and moves <= QUICK_RESIGN_MOVES
    if not shared and not quick:
        return
    log.warning("suspicious coin match %s between user %s and user %s: %s%s%s; %d coins paid "
                "to seat %s", row.id, ids[0], ids[1],
                f"sessions share address {', '.join(shared)}" if shared else "",
                "; " if shared and quick else "",
                f"{row.end_reason} after {moves} moves" if quick else "", amount, row.winner)


def moves_played(record: Any) -> int:
    """The moves of every hand of a stored record (0 for a record that is not one)."""
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


async def history(session: AsyncSession, user_id: int, page: int = 1, per_page: int = 25
                  ) -> tuple[list[HistoryLine], int]:
    """One page of ``user_id``'s wallet entries, newest first, each with the balance after
    it; and how many entries there are."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page start at 1")
    wallet = await wallet_of(session, user_id)
    if wallet is None:
        return [], 0
    found, total = await coins_reads.wallet_lines(session, wallet.id, page, per_page)
    opponents = await coins_reads.opponents(
        session, user_id, {r.match_id for r in found if r.match_id is not None})
    return [HistoryLine(r.id, r.kind, int(r.delta), int(r.running), r.match_id, r.created_at,
                        opponents.get(r.match_id) if r.match_id else None)
            for r in found], total


async def stake_of(session: AsyncSession, match_id: str) -> int:
    """The stake of a match (0: none)."""
    return await coins_repo.stake_of(session, match_id)


@dataclass(frozen=True, slots=True)
class MatchCoins:
    """What one coin match did to a player's wallet, and what its escrow holds now."""

    stake: int
    #: Coins won or lost so far (0 for someone who does not play it).
    delta: int
    #: Whether the match is settled (its escrow paid out).
    paid: bool
    escrow: int


async def match_coins(session: AsyncSession, match_id: str, user_id: int | None) -> MatchCoins:
    """The stake of ``match_id``, what it moved in and out of ``user_id``'s wallet (None: a
    visitor, who has none), whether it was paid, and what its escrow holds."""
    stake = await stake_of(session, match_id)
    delta, paid = 0, False
    wallet = await wallet_of(session, user_id) if user_id is not None else None
    if wallet is not None and stake:
        for entry in await coins_reads.match_entries(session, match_id):
            if entry.kind == PAYOUT:
                paid = True
            if entry.to_account == wallet.id:
                delta += entry.amount
            elif entry.from_account == wallet.id:
                delta -= entry.amount
    escrow = await coins_reads.escrow_balance(session, match_id)
    return MatchCoins(stake, delta, paid, escrow)


# ------------------------------------------------ the wallet pages, each its own transaction
async def ensure_can_cover(sessions: async_sessionmaker[AsyncSession], user: User,
                           stake: int) -> None:
    """:func:`check_can_cover` in a transaction of its own (a quick-game search's stake,
    checked before the search starts: nothing is reserved)."""
    async with sessions() as session, session.begin():
        await check_can_cover(session, user, stake)


async def wallet_page(sessions: async_sessionmaker[AsyncSession], user: User, page: int,
                      per_page: int) -> tuple[int | None, list[HistoryLine], int]:
    """``user``'s balance (their wallet made if they have none yet) and one page of its
    entries (:func:`history`) with their number, in one transaction."""
    async with sessions() as session, session.begin():
        value = await balance(session, user)
        lines, total = await history(session, user.id, page, per_page)
    return value, lines, total


async def topup(sessions: async_sessionmaker[AsyncSession], user: User) -> int:
    """:func:`claim_topup` now, committed."""
    async with sessions() as session, session.begin():
        return await claim_topup(session, user)


async def balance_now(sessions: async_sessionmaker[AsyncSession], user: User | None) -> int | None:
    """:func:`balance`, committed (a registered user's wallet is made on first sight)."""
    async with sessions() as session, session.begin():
        return await balance(session, user)


async def coins_of_match(sessions: async_sessionmaker[AsyncSession], match_id: str,
                         user_id: int | None) -> MatchCoins:
    """:func:`match_coins`, read in a session of its own."""
    async with sessions() as session:
        return await match_coins(session, match_id, user_id)
