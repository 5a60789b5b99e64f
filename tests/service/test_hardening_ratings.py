"""Issue 8: a rated match between two accounts that may be one person is logged for operators
(their sessions share an address, or it ended by an early resignation)."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service import ratings
from kva.service.accounts.sessions import open_session
from tests.helpers.community_help import finished_match, make_user


async def _rate(sessions: async_sessionmaker, match_id: str) -> None:
    async with sessions() as session, session.begin():
        assert await ratings.rate_finished_match(session, match_id)


async def test_two_accounts_on_one_address_are_logged(
    sessions: async_sessionmaker, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    async with sessions() as session, session.begin():
        await open_session(session, a.id, "203.0.113.5")
        await open_session(session, b.id, "203.0.113.5")
    row = await finished_match(sessions, a, b, winner=0)
    with caplog.at_level(logging.WARNING, logger="kva.service.ratings"):
        await _rate(sessions, row.id)
    [record] = [r for r in caplog.records if "suspicious" in r.getMessage()]
    text = record.getMessage()
    assert a.nickname in text and b.nickname in text and row.id in text
    assert "203.0.113.5" in text


async def test_players_on_different_addresses_are_not_logged(
    sessions: async_sessionmaker, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    async with sessions() as session, session.begin():
        await open_session(session, a.id, "203.0.113.5")
        await open_session(session, b.id, "198.51.100.8")
    row = await finished_match(sessions, a, b, winner=1)
    with caplog.at_level(logging.WARNING, logger="kva.service.ratings"):
        await _rate(sessions, row.id)
    assert not [r for r in caplog.records if "suspicious" in r.getMessage()]


async def test_an_early_resignation_is_logged(
    sessions: async_sessionmaker, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    row = await finished_match(sessions, a, b, winner=1, end_reason="resign")
    row.record["hands"][-1]["moves"] = row.record["hands"][-1]["moves"][:1]
    row.record["hands"] = row.record["hands"][-1:]
    async with sessions() as session, session.begin():
        stored = await session.get(type(row), row.id)
        assert stored is not None
        stored.record = dict(row.record)
    with caplog.at_level(logging.WARNING, logger="kva.service.ratings"):
        await _rate(sessions, row.id)
    [record] = [r for r in caplog.records if "suspicious" in r.getMessage()]
    assert "resigned after 1 moves" in record.getMessage()
