"""``kva coins audit``: exit 0 and a summary on a right ledger; exit 1 naming each
discrepancy; ``--suspicious`` lists pairs of accounts passing coins one way; a coin match
between accounts sharing an address is logged."""

from __future__ import annotations

import io
import logging

import pytest
from sqlalchemy import update

from kva.commands.coins import run_audit
from kva.storage.ledger import CoinAccount
from kva.storage.models import SessionRow
from tests.helpers.coins_help import open_coin_table
from tests.helpers.community_help import make_user


async def test_audit_exit_status_discrepancies_and_suspicious_pairs(
        sessions, play, database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    main, alt = await make_user(sessions), await make_user(sessions)
    async with sessions() as session, session.begin():
        for i, user in enumerate((main, alt)):
            session.add(SessionRow(token_hash=f"{user.id:064d}"[:60] + f"{i:04d}",
                                   user_id=user.id, address="203.0.113.7"))
    caplog.set_level(logging.WARNING, logger="kva.service.coins.wallets")
    for _ in range(3):  # alt loses on purpose, at once, three times
        match_id, token = await open_coin_table(play, main, 100)
        await play.join_table(token, alt.id, alt.nickname, None, registered=True)
        await play.resign(match_id, alt.id)
    assert "suspicious coin match" in caplog.text and "203.0.113.7" in caplog.text
    out = io.StringIO()
    assert await run_audit(database_url, show_suspicious=True, out=out) == 0
    text = out.getvalue()
    assert "ok: " in text and "0 discrepancies" in text
    line = next(x for x in text.splitlines() if x.startswith("SUSPICIOUS")
                and main.nickname in x and alt.nickname in x)
    assert "3 coin matches" in line and "3 quick resignations" in line
    assert "203.0.113.7" in line and "300 coins to" in line

    async with sessions() as session, session.begin():  # a balance changed by hand
        await session.execute(update(CoinAccount).where(CoinAccount.user_id == alt.id)
                              .values(balance=CoinAccount.balance + 50))
    out = io.StringIO()
    assert await run_audit(database_url, show_suspicious=False, out=out) == 1
    text = out.getvalue()
    assert f"DISCREPANCY wallet of user {alt.id}" in text and "FAILED" in text
    async with sessions() as session, session.begin():
        await session.execute(update(CoinAccount).where(CoinAccount.user_id == alt.id)
                              .values(balance=CoinAccount.balance - 50))
