"""``kva coins audit [--suspicious]``: recompute every Domino Coin balance from the ledger's
entries and check every invariant (docs/coins.md). Exit 0 when the ledger is right; 1 with one
line per discrepancy otherwise. ``--suspicious`` also lists pairs of players whose coin matches
look like coins passed on purpose between two accounts of one person."""

from __future__ import annotations

import argparse
import asyncio
import sys

from kva.service.coins.audit import audit, suspicious
from kva.settings.caps import EngineOptions
from kva.storage.db import DEFAULT_OPTIONS, Database, session_factory
from kva.storage.migrate import upgrade


async def run_audit(url: str, *, show_suspicious: bool, out: object = sys.stdout,
                    options: EngineOptions = DEFAULT_OPTIONS) -> int:
    """Audit the ledger at ``url`` (an engine with ``options``); print the findings; the exit
    status. A discrepancy is reported only if it is still there when the audit is run twice
    more (what a match starting or ending between two reads shows is not a discrepancy)."""
    database = Database(url, options)
    engine = database.engine
    try:
        await upgrade(engine)
        reader = engine
        if engine.dialect.name == "postgresql":  # every read of one audit sees one snapshot
            reader = engine.execution_options(isolation_level="REPEATABLE READ")
        async with session_factory(reader)() as session:
            report = await audit(session)
            pairs = await suspicious(session) if show_suspicious else []
        for _again in range(2):  # a match started or settled between two reads (SQLite
            if report.ok:        # reads each statement apart) is gone the next time
                break
            async with session_factory(reader)() as session:
                again = await audit(session)
            report.problems = [p for p in report.problems if p in again.problems]
    finally:
        await database.dispose()
    write = out.write  # type: ignore[attr-defined]
    for problem in report.problems:
        write(f"DISCREPANCY {problem}\n")
    write(f"{'ok' if report.ok else 'FAILED'}: {report.accounts} accounts, {report.entries} "
          f"entries, {report.coin_matches} coin matches; issued {report.issued} = wallets "
          f"{report.wallets_total} + escrow {report.escrow_total}; "
          f"{len(report.problems)} discrepancies\n")
    for p in pairs:
        write(f"SUSPICIOUS {p.user_a} / {p.user_b}: {p.matches} coin matches, net "
              f"{p.net_to_b:+d} coins to {p.user_b}, {p.quick_resigns} quick resignations"
              + (f", sessions share address {', '.join(p.shared_addresses)}"
                 if p.shared_addresses else "") + "\n")
    return 0 if report.ok else 1


def _audit(args: argparse.Namespace) -> int:
    from kva.config import ConfigurationError, Settings, async_database_url

    try:  # the server's settings, checked as it checks them (a secret is not needed here)
        settings = Settings.from_env(create_secret=False)
    except ConfigurationError as exc:
        print(f"kva coins: {exc}", file=sys.stderr, flush=True)
        return 2
    url = (async_database_url(args.database_url) if args.database_url
           else settings.database_url)
    return asyncio.run(run_audit(url, show_suspicious=args.suspicious,
                                 options=settings.engine_options()))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``kva coins``."""
    parser = subparsers.add_parser("coins", help="Domino Coin ledger tools")
    which = parser.add_subparsers(dest="coins_command", metavar="SUBCOMMAND")
    which.required = True
    check = which.add_parser("audit", help="recompute every balance and check every invariant")
    check.add_argument("--database-url", default=None,
                       help="the database (default: KVA_DATABASE_URL, else var/kva.sqlite3)")
    check.add_argument("--suspicious", action="store_true",
                       help="also list pairs of players who may be passing coins on purpose")
    check.set_defaults(func=_audit)
