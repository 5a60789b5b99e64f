"""A player's history, result counts and the export of all records (service level)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import event

from kva.rules import verify_record
from kva.service import history, ratings
from kva.storage.models import MatchRow, MatchSeat, utcnow
from tests.helpers.community_help import finished_match, make_user


async def _export(sessions, user_id: int) -> list[dict]:  # type: ignore[no-untyped-def]
    chunks = [chunk async for chunk in history.export_records(sessions, user_id)]
    return json.loads(b"".join(chunks))


async def test_history_lists_finished_matches_newest_first_from_the_players_side(
    sessions,
) -> None:
    me, rival = await make_user(sessions), await make_user(sessions)
    t0 = utcnow() - timedelta(hours=3)
    won = await finished_match(sessions, me, rival, winner=0, finished_at=t0)
    lost = await finished_match(sessions, rival, me, winner=0, rated=False,
                                finished_at=t0 + timedelta(hours=1), end_reason="resign")
    bot = await finished_match(sessions, None, me, bots=("hard", None), winner=1,
                               finished_at=t0 + timedelta(hours=2))
    async with sessions() as session, session.begin():
        await ratings.rate_finished_match(session, won.id)
        session.add(MatchRow(id="unfinished" + won.id[:6], status="active", target=75,
                             bazaar="draw", rated=False, version=3, record=won.record,
                             seats=[MatchSeat(seat=0, user_id=me.id),
                                    MatchSeat(seat=1, user_id=rival.id)]))
    async with sessions() as session:
        lines, total = await history.history(session, me.id)
        tally = await history.counts(session, me.id)
    assert total == 3 and [line.id for line in lines] == [bot.id, lost.id, won.id]
    b, lo, w = lines
    assert (b.result, b.opponent_bot, b.opponent, b.rated) == ("win", "hard", None, False)
    assert (lo.result, lo.opponent, lo.rated, lo.end_reason) == (
        "loss", rival.nickname, False, "resign")
    assert lo.score == (lost.record["score"][1], lost.record["score"][0])
    assert (w.result, w.rated) == ("win", True) and w.rating_delta is not None
    assert w.rating_delta > 0
    assert (tally.wins, tally.losses, tally.draws, tally.total) == (2, 1, 0, 3)
    async with sessions() as session:
        page2, total2 = await history.history(session, me.id, page=2, per_page=2)
        assert total2 == 3 and [line.id for line in page2] == [won.id]
        with pytest.raises(ValueError):
            await history.history(session, me.id, page=0)


async def test_export_is_every_finished_record_oldest_first_and_each_verifies(
    sessions, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(history, "EXPORT_BATCH", 2)  # several batches, keyset paging
    me, rival = await make_user(sessions), await make_user(sessions)
    t0 = utcnow() - timedelta(days=1)
    rows = [await finished_match(sessions, me if i % 2 else rival, rival if i % 2 else me,
                                 finished_at=t0 + timedelta(minutes=i)) for i in range(5)]
    # Two matches finishing in the same instant are both exported, once each.
    rows.append(await finished_match(sessions, me, rival, finished_at=rows[-1].finished_at))
    other = await finished_match(sessions, rival, await make_user(sessions))
    docs = await _export(sessions, me.id)
    assert len(docs) == 6
    ids = [d["meta"]["match_id"] for d in docs]
    assert ids[:4] == [r.record["meta"]["match_id"] for r in rows[:4]]
    assert sorted(ids[4:]) == sorted(r.record["meta"]["match_id"] for r in rows[4:])
    for doc in docs:
        verify_record(doc)
    assert other.record not in docs
    nobody = await make_user(sessions)
    assert await _export(sessions, nobody.id) == []


async def test_a_history_page_reads_its_seats_in_one_query_whatever_its_length(
    sessions,
) -> None:
    """The seats of a page of matches come in one SELECT (``selectin``), not one per match:
    a page of six costs as many statements as a page of one."""
    me = await make_user(sessions)
    rivals = [await make_user(sessions) for _ in range(6)]
    engine = sessions.kw["bind"].sync_engine
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    async def statements_of_a_page() -> int:
        statements.clear()
        event.listen(engine, "before_cursor_execute", count)
        try:
            async with sessions() as session:
                lines, _total = await history.history(session, me.id)
        finally:
            event.remove(engine, "before_cursor_execute", count)
        assert {line.opponent for line in lines} <= {r.nickname for r in rivals}
        return len(statements)

    await finished_match(sessions, me, rivals[0])
    one = await statements_of_a_page()
    for rival in rivals[1:]:
        await finished_match(sessions, rival, me)
    assert await statements_of_a_page() == one
    assert sum("match_seats" in s for s in statements) <= 3  # the filter, the counts, the load
