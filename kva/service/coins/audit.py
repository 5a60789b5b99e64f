"""``kva coins audit``: every Domino Coin balance recomputed from the entries, and every
invariant of the ledger checked (docs/coins.md).

A discrepancy is a sentence naming the account, the match or the entry at fault; an empty
list means the ledger is right. :func:`suspicious` lists what an operator should look at for
one person passing coins between two of their accounts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from kva.service.coins.wallets import STAKES, START_GRANT, TOPUP_TO, moves_played
from kva.status import GIVEN_UP, EndReason, MatchStatus
from kva.storage import coins_reads
from kva.storage.addresses import session_addresses
from kva.storage.ledger import (
    ESCROW,
    GRANT,
    ISSUING,
    PAYOUT,
    REFUND,
    STAKE,
    TOPUP,
    WALLET,
    CoinAccount,
    CoinEntry,
)
from kva.storage.models import MatchRow

#: Which account kinds each entry kind moves coins between.
_FLOWS = {GRANT: (ISSUING, WALLET), TOPUP: (ISSUING, WALLET), STAKE: (WALLET, ESCROW),
          PAYOUT: (ESCROW, WALLET), REFUND: (ESCROW, WALLET)}


@dataclass(slots=True)
class AuditReport:
    """What the audit found: the discrepancies, and the figures it checked."""

    problems: list[str] = field(default_factory=list)
    accounts: int = 0
    entries: int = 0
    wallets_total: int = 0
    escrow_total: int = 0
    issued: int = 0
    coin_matches: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class _Ledger:
    """What the entries say: each account's balance, each match's entries, each wallet's
    starting grants."""

    computed: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    by_match: defaultdict[str, list[CoinEntry]] = field(
        default_factory=lambda: defaultdict(list))
    grants: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))


async def audit(session: AsyncSession) -> AuditReport:
    """Recompute every balance from the entries and check every invariant."""
    report = AuditReport()
    accounts = {a.id: a for a in await coins_reads.all_accounts(session)}
    report.accounts = len(accounts)
    entries = await coins_reads.all_entries(session)
    report.entries = len(entries)
    ledger = _Ledger()
    for e in entries:
        _check_entry(e, accounts, ledger, report.problems)
    _check_accounts(accounts, ledger, report)
    await _check_matches(session, accounts, ledger.computed, ledger.by_match, report)
    return report


def _check_entry(e: CoinEntry, accounts: dict[int, CoinAccount], ledger: _Ledger,
                 problems: list[str]) -> None:
    """Check one entry and count it into ``ledger`` (not if it names no account)."""
    src, dst = accounts.get(e.from_account), accounts.get(e.to_account)
    if src is None or dst is None:
        problems.append(f"entry {e.id} ({e.key}) names an account that does not exist")
        return
    if e.amount <= 0:
        problems.append(f"entry {e.id} ({e.key}) moves {e.amount} (not positive)")
    flow = _FLOWS.get(e.kind)
    if flow is None or (src.kind, dst.kind) != flow:
        problems.append(f"entry {e.id} ({e.key}) of kind {e.kind} moves from a {src.kind} "
                        f"to a {dst.kind}")
    if e.kind in (STAKE, PAYOUT, REFUND):
        if e.match_id is None:
            problems.append(f"entry {e.id} ({e.key}) of kind {e.kind} names no match")
        else:
            ledger.by_match[e.match_id].append(e)
        escrow = dst if e.kind == STAKE else src
        if escrow.match_id != e.match_id:
            problems.append(f"entry {e.id} ({e.key}) uses the escrow of match "
                            f"{escrow.match_id}, not {e.match_id}")
    if e.kind == GRANT:
        ledger.grants[e.to_account] += 1
        if e.amount != START_GRANT:
            problems.append(f"entry {e.id} ({e.key}) grants {e.amount}, not {START_GRANT}")
    if e.kind == TOPUP and e.amount > TOPUP_TO:
        problems.append(f"entry {e.id} ({e.key}) tops up {e.amount} (more than {TOPUP_TO})")
    ledger.computed[e.from_account] -= e.amount
    ledger.computed[e.to_account] += e.amount


def _check_accounts(accounts: dict[int, CoinAccount], ledger: _Ledger,
                    report: AuditReport) -> None:
    """Check each account's cached balance against the entries, and the totals."""
    total = 0
    for acc in accounts.values():
        want = ledger.computed[acc.id]
        total += want
        name = _name(acc)
        if acc.balance != want:
            report.problems.append(f"{name}: cached balance {acc.balance}, entries say {want}")
        if acc.kind in (WALLET, ESCROW) and want < 0:
            report.problems.append(f"{name} is negative: {want}")
        if acc.kind == ISSUING:
            report.issued = -want
            if want > 0:
                report.problems.append(f"{name} is positive: {want}")
        elif acc.kind == WALLET:
            report.wallets_total += want
            if ledger.grants[acc.id] != 1:
                report.problems.append(f"{name} has {ledger.grants[acc.id]} starting grants, "
                                       "not 1")
        else:
            report.escrow_total += want
    if total != 0:
        report.problems.append(f"the accounts sum to {total}, not 0")
    cached = sum(a.balance for a in accounts.values())
    if cached != 0:
        report.problems.append(f"the cached balances sum to {cached}, not 0")
    if sum(1 for a in accounts.values() if a.kind == ISSUING) != 1:
        report.problems.append("there is not exactly one issuing account")


def _name(acc: CoinAccount) -> str:
    if acc.kind == WALLET:
        return f"wallet of user {acc.user_id} (account {acc.id})"
    if acc.kind == ESCROW:
        return f"escrow of match {acc.match_id} (account {acc.id})"
    return f"issuing account {acc.id}"


async def _check_matches(session: AsyncSession, accounts: dict[int, CoinAccount],
                         computed: dict[int, int], by_match: dict[str, list[CoinEntry]],
                         report: AuditReport) -> None:
    escrows = {a.match_id: a for a in accounts.values()
               if a.kind == ESCROW and a.match_id is not None}
    wallets = {a.id: a.user_id for a in accounts.values() if a.kind == WALLET}
    ids = set(escrows) | set(by_match)
    rows = {r.id: r for r in await coins_reads.coin_matches(session, ids)}
    report.coin_matches = len(rows)
    for match_id in sorted(ids - set(rows)):
        report.problems.append(f"match {match_id} has coin entries but no stake")
    for row in rows.values():
        escrow = escrows.get(row.id)
        held = computed[escrow.id] if escrow is not None else 0
        entries = by_match.get(row.id, [])
        stakes = [e for e in entries if e.kind == STAKE]
        payouts = [e for e in entries if e.kind == PAYOUT]
        if row.stake not in STAKES:
            report.problems.append(f"match {row.id} has a stake of {row.stake}, not one of "
                                   f"{', '.join(map(str, STAKES))}")
        for e in stakes:
            if e.amount != row.stake:
                report.problems.append(f"match {row.id}: stake entry {e.id} moves {e.amount}, "
                                       f"the stake is {row.stake}")
        payers = sorted(wallets.get(e.from_account) or 0 for e in stakes)
        seated = sorted(u or 0 for u in row.seat_users())
        if row.status == MatchStatus.CANCELLED and row.end_reason == EndReason.ABORT:
            _check_aborted(row, stakes, entries, held, wallets, report)
            continue
        if row.status in (MatchStatus.WAITING, MatchStatus.CANCELLED):
            if entries or held:
                report.problems.append(f"match {row.id} is {row.status} but moved coins "
                                       f"(escrow {held})")
            continue
        if len(stakes) != 2 or payers != seated:
            report.problems.append(f"match {row.id} ({row.status}) has {len(stakes)} stake "
                                   f"entries from users {payers}, its players are {seated}")
        if row.status == MatchStatus.ACTIVE:
            if payouts:
                report.problems.append(f"match {row.id} is still being played but was paid")
            if held != 2 * row.stake:
                report.problems.append(f"escrow of active match {row.id} holds {held}, not "
                                       f"{2 * row.stake}")
            continue
        if row.status == MatchStatus.FINISHED:
            if held != 0:
                report.problems.append(f"escrow of finished match {row.id} holds {held} "
                                       "(stranded)")
            if len(payouts) != 1:
                report.problems.append(f"finished match {row.id} has {len(payouts)} payouts, "
                                       "not 1")
                continue
            winner = row.user_at(0 if row.winner == 0 else 1)
            paid_to = wallets.get(payouts[0].to_account)
            if winner is None or paid_to != winner:
                report.problems.append(f"finished match {row.id} paid user {paid_to}, the "
                                       f"winner is user {winner}")
            if payouts[0].amount != 2 * row.stake:
                report.problems.append(f"finished match {row.id} paid {payouts[0].amount}, not "
                                       f"{2 * row.stake}")


def _check_aborted(row: MatchRow, stakes: list[CoinEntry], entries: list[CoinEntry],
                   held: int, wallets: dict[int, int | None], report: AuditReport) -> None:
    """An aborted coin match: both stakes went in, and each came back to its player."""
    refunds = sorted((wallets.get(e.to_account) or 0, e.amount)
                     for e in entries if e.kind == REFUND)
    payers = sorted((wallets.get(e.from_account) or 0, e.amount) for e in stakes)
    if held != 0:
        report.problems.append(f"escrow of aborted match {row.id} holds {held} (stranded)")
    if len(stakes) != 2 or refunds != payers or any(e.kind == PAYOUT for e in entries):
        report.problems.append(f"aborted match {row.id} gave back {refunds}, its stakes were "
                               f"{payers}")


@dataclass(frozen=True, slots=True)
class SuspiciousPair:
    """Two accounts that played coin matches against each other, for an operator to judge."""

    user_a: str
    user_b: str
    matches: int
    net_to_b: int
    quick_resigns: int
    shared_addresses: tuple[str, ...]


async def suspicious(session: AsyncSession, *, min_matches: int = 3,
                     quick_moves: int = 6) -> list[SuspiciousPair]:
    """Pairs of players whose coin matches look like coins passed on purpose: they share a
    client address, or at least ``min_matches`` matches went mostly one way, or one of them
    resigned within ``quick_moves`` moves. Most coins passed first."""
    rows = await coins_reads.finished_coin_matches(session)
    pairs: dict[tuple[int, int], list[MatchRow]] = defaultdict(list)
    for row in rows:
        people = row.people()
        if people is None:
            continue
        a, b = sorted(people)
        pairs[(a, b)].append(row)
    ids = {u for pair in pairs for u in pair}
    names = await coins_reads.nicknames(session, ids)
    addresses = await session_addresses(session, ids)
    found = []
    for (a, b), matches in pairs.items():
        net = 0
        quick = 0
        wins_b = 0
        for row in matches:
            winner = row.user_at(0 if row.winner == 0 else 1)
            net += row.stake if winner == b else -row.stake
            wins_b += winner == b
            if row.end_reason in GIVEN_UP \
                    and moves_played(row.record) <= quick_moves:
                quick += 1
        shared = tuple(sorted(addresses[a] & addresses[b]))
        one_way = len(matches) >= min_matches and max(wins_b, len(matches) - wins_b) \
            >= 0.8 * len(matches)
        if shared or one_way or quick:
            found.append(SuspiciousPair(names.get(a, str(a)), names.get(b, str(b)),
                                        len(matches), net, quick, shared))
    found.sort(key=lambda p: -abs(p.net_to_b))
    return found
