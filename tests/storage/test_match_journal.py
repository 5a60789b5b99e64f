"""The journal of a match in progress (issue 14): each action is one appended row, the record
in progress is assembled from them exactly as ``write_record`` writes it, a restart resumes
identically, and a stale copy is caught by the refused insert, not by a read before each write.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.games.georgian_live import apply_change, change_of
from kva.rules import action_to_json, verify_record
from kva.service import PlayError
from kva.service.cluster.broker import MemoryBroker
from kva.service.play import PlayService
from kva.service.play.commit import record_of
from kva.storage import journal, repo
from kva.storage import journal_writer as writers
from kva.storage.db import Database
from kva.storage.models import MatchAction
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play
from tests.storage.journal_help import append_journal


def _service(database: Database, broker: MemoryBroker | None = None) -> PlayService:
    # a wall clock that stands still: the states compared show the same time left
    return make_play(database, broker, forced_delay=3600, bot_delay=3600,
                     rng_factory=random.Random, now_ms=lambda: 1_700_000_000_000)


def _timed_by(record: dict[str, Any], by: str | None) -> dict[str, Any]:
    """``record`` with its running clock timed by the process ``by``."""
    meta = {**record["meta"], "clock": {**record["meta"]["clock"], "by": by}}
    return {**record, "meta": meta}


async def _new_match(
    sessions: async_sessionmaker, play: PlayService
) -> tuple[str, tuple[int, int]]:
    a = await make_user(sessions, kind="guest")
    b = await make_user(sessions, kind="guest")
    match_id, _ = await play.create_match(a.id, a.nickname, "player", 75, "draw",
                                          opponent_user=(b.id, b.nickname))
    live = play._live[match_id]
    for _ in range(1000):  # dealt once both client seeds are in (at once: no seed wait; up
        if live.match is not None:  # to 10 s on a machine busy with other work)
            break
        await asyncio.sleep(0.01)
    assert live.match is not None
    return match_id, (a.id, b.id)


async def _step(play: PlayService, match_id: str, ids: tuple[int, int],
                rng: random.Random) -> None:
    live = play._live[match_id]
    assert live.match is not None
    seat = live.match.turn
    assert seat is not None
    code = rng.choice(live.match.legal_codes())
    await play.act(match_id, ids[seat], live.version, action_to_json(code))


async def _stored(sessions: async_sessionmaker, match_id: str) -> tuple[dict[str, Any], int]:
    async with sessions() as session:
        row = await repo.get_match(session, match_id)
        assert row is not None
        return await repo.current_record(session, row, apply_change)


async def test_the_record_assembled_from_the_journal_is_write_record(database, sessions) -> None:
    play = _service(database)
    match_id, ids = await _new_match(sessions, play)
    live = play._live[match_id]
    rng = random.Random(3)
    steps = 0
    assert live.match is not None
    while not live.match.over:
        await _step(play, match_id, ids, rng)
        steps += 1
        if steps % 7 == 0 or live.match.over:
            record, version = await _stored(sessions, match_id)
            assert version == live.version
            assert record == record_of(live)
    async with sessions() as session:
        row = await repo.get_match(session, match_id)
        assert row is not None and row.status == "finished" and row.version == live.version
        verify_record(row.record)
        assert row.record == record_of(live)
        # one row per change, each a few hundred bytes at most however long the match (a
        # hand's end and the clock's state, ``c``, are the largest parts)
        sizes = list(await session.scalars(
            select(func.length(MatchAction.change)).where(MatchAction.match_id == match_id)))
    assert len(sizes) >= steps and max(sizes) < 500
    await play.stop()


async def test_a_restart_mid_match_resumes_identically(database, sessions) -> None:
    play = _service(database)
    match_id, ids = await _new_match(sessions, play)
    rng = random.Random(5)
    before = play._live[match_id]
    assert before.match is not None
    for _ in range(40):  # the deal is random: forty random moves may end the match first
        if before.match.over:
            break
        await _step(play, match_id, ids, rng)
    await play.stop()
    again = _service(database)  # a new process: nothing in memory
    states = [await again.state_for(match_id, user_id) for user_id in ids]
    after = play._live[match_id]
    resumed = again._live[match_id]
    assert resumed is not after and resumed.version == before.version
    # the same record, but for the process that times the clock now (the new one)
    assert resumed.clock is not None and before.clock is not None
    assert resumed.clock.by in (None, again._liveness.me)
    assert record_of(resumed) == _timed_by(record_of(before), resumed.clock.by)
    for user_id, state in zip(ids, states, strict=True):
        assert state == await play.state_for(match_id, user_id)
    assert resumed.match is not None
    while not resumed.match.over:
        await _step(again, match_id, ids, rng)
    async with sessions() as session:
        row = await repo.get_match(session, match_id)
    assert row is not None
    verify_record(row.record)
    await again.stop()


async def test_a_stale_copy_is_refused_by_the_journal_and_reloaded(database, sessions) -> None:
    here, there = _service(database), _service(database)  # two processes, one database
    match_id, ids = await _new_match(sessions, here)
    rng = random.Random(7)
    await there.state_for(match_id, ids[0])  # "there" holds a copy...
    old = there._live[match_id]
    version = old.version
    assert old.match is not None and old.match.turn is not None
    old_seat = old.match.turn
    old_action = action_to_json(old.match.legal_codes()[0])
    await _step(here, match_id, ids, rng)  # ...that "here" moves on
    live = here._live[match_id]
    assert live.match is not None and live.version == version + 1
    seat = live.match.turn
    assert seat is not None
    # a client still at the old version, legal in the old position: the journal insert is
    # refused, the copy reloaded, and the action judged stale against it
    with pytest.raises(PlayError) as refused:
        await there.act(match_id, ids[old_seat], version, old_action)
    assert refused.value.code == "stale"
    assert there._live[match_id] is not old
    assert there._live[match_id].version == version + 1
    # a client at the current version on a process whose copy is behind: it plays
    there._live[match_id] = old  # put the stale copy back
    action = action_to_json(live.match.legal_codes()[0])
    await there.act(match_id, ids[seat], version + 1, action)
    record, stored = await _stored(sessions, match_id)
    assert stored == version + 2
    assert record == record_of(there._live[match_id])
    await here.stop()
    await there.stop()


async def test_a_commit_landing_during_a_version_read_keeps_the_copy(
    database, sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of ``fresh`` (issue 14): the stored version was read, then a commit of this
    process landed, then the two were compared; the copy was dropped for a second one."""
    play = _service(database)
    match_id, ids = await _new_match(sessions, play)
    play._store.shared = True  # another process may write: reads check the stored version
    live = play._live[match_id]
    rng = random.Random(11)
    read = repo.match_version
    landed: list[int] = []

    async def read_then_commit(session: Any, mid: str) -> int | None:
        if landed:
            return await read(session, mid)
        landed.append(1)
        # A commit of this process lands between the read and the compare: the read saw the
        # version before it (the commit goes first here only because the session takes its
        # connection at its first statement, and SQLite has one).
        await _step(play, match_id, ids, rng)
        version = await read(session, mid)
        return None if version is None else version - 1

    monkeypatch.setattr(repo, "match_version", read_then_commit)
    state = await play.state_for(match_id, ids[0])
    assert landed
    assert play._live[match_id] is live  # the same copy: no second one
    assert state["version"] == live.version


def test_change_rows_fold_back_into_the_record() -> None:
    from kva.rules import Match, write_record

    match = Match(75, "draw", random.Random(2))
    rng = random.Random(2)
    checkpoint = write_record(match)
    changes = []
    while not match.over:
        hand = len(match.hands) - 1
        match.apply(rng.choice(match.legal_codes()))
        changes.append(journal.encode(change_of(match, hand)))
    done = journal.assemble(checkpoint, changes, apply_change)
    assert done["hands"] == write_record(match)["hands"]
    assert checkpoint["hands"][0]["moves"] == []  # the checkpoint is left untouched


def test_pool_options() -> None:
    from kva.settings.caps import PG_POOL_SIZE
    from kva.storage.db import pool_options

    lite = pool_options("sqlite+aiosqlite:///x.db")
    assert (lite["pool_size"], lite["max_overflow"]) == (1, 0)  # one writer connection
    assert lite["pool_reset_on_return"] is None  # no rollback hop after every commit
    pg = pool_options("postgresql+asyncpg://u@h/db")
    assert pg["pool_size"] == PG_POOL_SIZE and pg["max_overflow"] == 0
    assert pg["pool_pre_ping"] is False  # no round trip per checkout
    assert pool_options("postgresql+asyncpg://u@h/db", 7)["pool_size"] == 7  # KVA_DB_POOL_SIZE


def test_tune_gc_freezes_once_and_raises_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from kva.web import runtime

    before = gc.get_threshold()
    monkeypatch.setattr(runtime, "_tuned", [])
    try:
        runtime.tune_gc((12_345, 11, 13))
        assert gc.get_threshold() == (12_345, 11, 13) and gc.get_freeze_count() > 0
        runtime.tune_gc((1, 1, 1))  # once per process
        assert gc.get_threshold() == (12_345, 11, 13)
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


async def test_old_reference_cycles_are_collected_on_a_timer() -> None:
    """With the server's thresholds the old generation is, in practice, never collected by
    allocation counts; the timer collects it, so cyclic garbage cannot pile up."""
    import gc
    import weakref

    from kva.web import runtime

    class Node:
        def __init__(self) -> None:
            self.me = self

    before = gc.get_threshold()
    gc.set_threshold(10**9, 10**9, 10**9)  # nothing collected by counts during the test
    try:
        node = Node()
        gc.collect()  # the cycle is old now
        alive = weakref.ref(node)
        del node
        async with runtime.collecting_old_garbage(every=0.05):
            for _ in range(100):
                if alive() is None:
                    break
                await asyncio.sleep(0.02)
        assert alive() is None
    finally:
        gc.set_threshold(*before)


async def test_the_home_page_list_shows_the_score_of_a_match_in_progress(
        database, sessions) -> None:
    """The score of a match in progress comes from its journal, not from its checkpoint (which
    holds the score at the deal): a hand ended, the list shows it."""
    play = _service(database)
    rng = random.Random(13)
    for _attempt in range(20):  # the deal is the fair one, random: a first hand may end the
        match_id, ids = await _new_match(sessions, play)  # match, or score nothing
        live = play._live[match_id]
        assert live.match is not None
        while len(live.match.hands) < 2 and not live.match.over:
            await _step(play, match_id, ids, rng)
        if not live.match.over and live.match.scores != [0, 0]:
            break
    assert not live.match.over and live.match.scores != [0, 0]
    summary = next(m for m in await play.matches_of(ids[0]) if m.id == match_id)
    assert summary.score == (live.match.scores[0], live.match.scores[1])
    await play.stop()


async def test_the_migration_converts_matches_in_progress_and_folds_back(
    database_url: str, tmp_path: Any
) -> None:
    """0006 gives each stored match in progress the guard row of its version (its record is
    the checkpoint); the downgrade folds the journal back into the record."""
    if not database_url.startswith("sqlite"):
        pytest.skip("up and down on a database of its own (SQLite)")
    from sqlalchemy import text

    from kva.rules import Match, write_record
    from kva.storage.db import create_engine, session_factory
    from kva.storage.migrate import upgrade

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'mig.sqlite3'}")
    try:
        await upgrade(engine, "0005_fair_seeds")
        match = Match(75, "draw", random.Random(4))
        rng = random.Random(4)
        for _ in range(9):
            match.apply(rng.choice(match.legal_codes()))
        record = write_record(match, meta={"match_id": "m1", "rated": False})
        async with engine.begin() as conn:
            await conn.execute(text(
                "INSERT INTO matches (id, status, target, bazaar, rated, version, record, "
                "created_at, updated_at, private) VALUES ('m1', 'active', 75, 'draw', 0, 10, "
                ":record, '2026-11-30', '2026-11-30', 0)"), {"record": journal.encode(record)})
        await upgrade(engine)
        sessions = session_factory(engine)
        async with sessions() as session:
            assert await repo.match_version(session, "m1") == 10
            rows = await repo.journal_since(session, "m1", 0)
            assert [seq for seq, _ in rows] == [10]  # the guard of its version
            assert await repo.append_change(session, "m1", 10, "{}") is False
            await session.rollback()
        changes = []
        for _ in range(5):
            hand = len(match.hands) - 1
            match.apply(rng.choice(match.legal_codes()))
            changes.append(journal.encode(change_of(match, hand)))
        async with engine.begin() as conn:
            for seq, change in enumerate(changes, start=11):
                assert await repo.append_change(conn, "m1", seq, change)
        from alembic import command

        from kva.storage.migrate import alembic_config

        def _down(connection: Any) -> None:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0005_fair_seeds")

        async with engine.connect() as conn:  # later downgrades rebuild tables: no FK checks
            await conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            await conn.run_sync(_down)
            await conn.commit()
        async with engine.connect() as conn:
            version, stored = (await conn.execute(text(
                "SELECT version, record FROM matches WHERE id = 'm1'"))).one()
        assert version == 15
        folded = stored if isinstance(stored, dict) else json.loads(stored)
        assert folded["hands"] == write_record(match)["hands"]
    finally:
        await engine.dispose()


async def test_only_the_latest_finished_matches_stay_in_memory(database, sessions) -> None:
    """A process holds its live matches and a few just finished, not every match it served
    (issue 14: memory follows the load); a dropped match still reads from the database."""
    play = _service(database)
    play._store.settled_size = 2
    finished = []
    for _ in range(4):
        match_id, ids = await _new_match(sessions, play)
        await play.resign(match_id, ids[0])
        finished.append(match_id)
    going_on, ids = await _new_match(sessions, play)
    held = set(play._live)
    assert not held & set(finished[:2])
    assert set(finished[2:]) <= held and going_on in held
    state = await play.state_for(finished[0], None)  # reloaded on demand
    assert state["status"] == "finished"
    await play.stop()


async def _sqlite_writable(url: str) -> bool:
    """Whether another connection to the SQLite file ``url`` can start writing at once (no
    connection holds a write transaction)."""
    from sqlalchemy.exc import OperationalError
    from sqlalchemy.ext.asyncio import create_async_engine

    other = create_async_engine(url, connect_args={"timeout": 0.2})
    try:
        async with other.connect() as conn:
            driver = (await conn.get_raw_connection()).driver_connection
            await driver.execute("BEGIN IMMEDIATE")
            await driver.rollback()
        return True
    except OperationalError:
        return False
    finally:
        await other.dispose()


async def test_a_refused_or_cancelled_append_leaves_no_transaction_open(
    database, sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's pool does not roll back a connection given back (kva.storage.db), so the
    journal's own transaction must end in every case: a version that exists, and a move
    cancelled between its INSERT and its commit (both run in one call on aiosqlite's thread),
    which is not stored."""
    engine = sessions.kw["bind"]
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's single connection only")
    url = engine.url.render_as_string(hide_password=False)
    play = _service(database)
    match_id, ids = await _new_match(sessions, play)
    await _step(play, match_id, ids, random.Random(1))  # a move: one journal row
    version = play._live[match_id].version
    change = journal.encode({"checkpoint": "active"})
    assert await append_journal(database, match_id, version, change) is False  # exists
    assert await _sqlite_writable(url)

    class _CancelledCommit:  # the sqlite3 connection, but cancelled at its COMMIT
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def commit(self) -> None:
            raise asyncio.CancelledError

    on_thread = writers._append_on_thread
    # The way an append goes when the loop's direct connection finds the file locked.
    monkeypatch.setattr(writers, "_append_directly", lambda *args: None)
    monkeypatch.setattr(writers, "_append_on_thread",
                        lambda conn, sql, params: on_thread(_CancelledCommit(conn), sql, params))
    with pytest.raises(asyncio.CancelledError):
        await append_journal(database, match_id, version + 1, change)
    monkeypatch.undo()
    assert await _sqlite_writable(url)
    async with sessions() as session:
        rows = await session.scalar(select(func.count()).select_from(MatchAction).where(
            MatchAction.match_id == match_id, MatchAction.seq == version + 1))
    assert rows == 0
    await play.stop()


async def test_states_encoded_with_kept_moves_are_the_plain_encoding(database, sessions) -> None:
    """The play service encodes each state with the hand's moves put in as kept text
    (commit.encoded_state): after every action of a whole match, for every viewer, the text
    is exactly the plain encoding of the state message."""
    from kva.service.play.commit import encode_state, encoded_state, state_message

    play = _service(database)
    match_id, ids = await _new_match(sessions, play)
    rng = random.Random(3)
    live = play._live[match_id]
    checked = 0
    while live.match is not None and not live.match.over and checked < 400:
        for seat in (0, 1, None):
            text = encoded_state(live, seat, None)
            assert text == encode_state(state_message(live, seat, None))
            json.loads(text)
        await _step(play, match_id, ids, rng)
        live = play._live[match_id]
        checked += 1
    assert checked > 20
    await play.stop()


async def _scored_mid_hand(
    play: PlayService, match_id: str, ids: tuple[int, int], rng: random.Random
) -> list[int]:
    """Play until a placement of the hand in progress has scored; the score before that hand
    plus what it has scored so far (what a forfeit now must keep)."""
    live = play._live[match_id]
    assert live.match is not None
    while live.match.hand.points == [0, 0]:
        await _step(play, match_id, ids, rng)
    match = live.match
    assert not match.over and not match.hand.over
    return [match.scores[0] + match.hand.points[0], match.scores[1] + match.hand.points[1]]


@pytest.mark.parametrize("how", ["resign", "timeout", "abandon"])
async def test_a_forfeit_mid_hand_stores_the_points_already_scored_in_that_hand(
    database, sessions, tmp_path: Any, how: str
) -> None:
    from kva.cli import main

    play = _service(database)
    match_id, ids = await _new_match(sessions, play)
    expected = await _scored_mid_hand(play, match_id, ids, random.Random(6))
    live = play._live[match_id]
    assert live.match is not None
    loser = live.match.turn
    assert loser is not None
    if how == "resign":
        await play.resign(match_id, ids[loser])
    else:
        await play.forfeit(match_id, loser, how)
    record, _ = await _stored(sessions, match_id)
    assert record["winner"] == 1 - loser
    assert record["hands"][-1]["result"]["reason"] == how
    assert record["score"] == expected and record["hands"][-1]["score"] == expected
    path = tmp_path / "forfeit.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["record", "verify", str(path)]) == 0
    await play.stop()
