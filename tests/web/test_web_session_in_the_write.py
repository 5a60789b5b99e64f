"""A player's action checks their session in its own write (no read of the session before each
action frame): a revoked session's action is refused ``revoked``, the socket closed with 4401,
and nothing applied, even when the revocation was made straight in the database (no broker
news); the refusals that apply nothing (illegal, stale) still end a revoked session's socket."""

from __future__ import annotations

from typing import Any

import pytest

import kva.web.ws as ws_module
from kva.service.accounts.sessions import guest_with_session, revoke, token_hash
from kva.storage import repo
from kva.storage.db import Database, create_engine, session_factory
from kva.storage.migrate import upgrade
from kva.storage.models import MatchRow
from tests.helpers.webhelp import Socket, Table


async def _revoke_behind_the_brokers_back(database_url: str, cookie: str) -> None:
    engine = create_engine(database_url)
    try:
        assert await revoke(session_factory(engine), cookie)  # no broker: no news
    finally:
        await engine.dispose()


async def _ended(sock: Socket) -> None:
    await sock.wait_for(lambda m: m.get("type") == "error" and m["code"] == "revoked")
    await sock.wait_closed(5.0)
    assert sock._ws.close_code == 4401


async def test_a_legal_action_of_a_revoked_session_is_refused_and_not_applied(
    table: Table, database_url: str
) -> None:
    before = table.mover.state
    await _revoke_behind_the_brokers_back(database_url, table.mover.cookie)
    await table.mover.send({"type": "action", "version": before["version"],
                            "action": before["view"]["legal"][0]})
    await _ended(table.mover)
    again = await table.waiter.resync()  # the match did not move
    assert again["version"] == before["version"]
    assert table.waiter.state["version"] == before["version"]
    assert not [m for m in table.mover.messages
                if m.get("type") == "state" and m["version"] > before["version"]]


@pytest.mark.parametrize("kind", ["illegal", "stale", "not_your_turn"])
async def test_an_action_refused_otherwise_still_ends_a_revoked_sessions_socket(
    table: Table, database_url: str, kind: str
) -> None:
    sock = table.waiter if kind == "not_your_turn" else table.mover
    state = sock.state
    action: dict[str, Any] = {"type": "action", "version": state["version"],
                              "action": {"type": "play", "tile": "9-9"}}
    if kind == "stale":
        action = {**action, "version": state["version"] - 1,
                  "action": state["view"]["legal"][0]}
    elif kind == "not_your_turn":
        action = {**action, "action": {"type": "play", "tile": state["view"]["hand"][0]}}
    await _revoke_behind_the_brokers_back(database_url, sock.cookie)
    await sock.send(action)
    await _ended(sock)


async def test_an_action_frame_reads_no_session_first(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cost this design removes: one database read per action frame. (Other frames,
    rarer, still read the session before they are handled.)"""
    reads: list[str] = []
    real = ws_module.session_is_live

    async def counted(sessions: Any, token: str | None) -> bool:
        reads.append("read")
        return await real(sessions, token)

    monkeypatch.setattr(ws_module, "session_is_live", counted)
    before = table.mover.state
    played = await table.mover.play_first_legal()
    assert played.get("type") == "state" and played["version"] > before["version"]
    assert reads == []
    await table.mover.resync()  # a hello does read it
    assert reads == ["read"]


@pytest.mark.parametrize("path", ["append_change", "journal_writer"])
async def test_the_journal_insert_is_written_only_for_a_live_session(
    database_url: str, path: str
) -> None:
    """Both ways of appending (in the caller's transaction, or alone through the driver)
    refuse a taken version (False) and an ended session (SessionEnded), writing nothing."""
    database = Database(database_url)
    engine = database.engine

    async def append(seq: int, player_session: str | None) -> bool:
        if path == "journal_writer":
            return await database.journal.append(match_id, seq, f"{{{seq}}}", player_session)
        async with engine.begin() as conn:
            return await repo.append_change(conn, match_id, seq, f"{{{seq}}}", player_session)

    try:
        await upgrade(engine)
        sessions = database.sessions
        _user, token = await guest_with_session(sessions)
        match_id = f"sessioncheck-{path}"[:24]
        async with sessions() as session:
            session.add(MatchRow(id=match_id, status="active", target=75, bazaar="draw",
                                 record={}, version=0))
            await session.commit()
        assert await append(1, token_hash(token))
        assert not await append(1, token_hash(token))  # the same version again: stale
        assert not await append(1, None)
        assert await revoke(sessions, token)
        with pytest.raises(repo.SessionEnded):
            await append(2, token_hash(token))
        with pytest.raises(repo.SessionEnded):  # an unknown session neither
            await append(2, token_hash("nobody"))
        assert await append(2, None)  # the server's own changes carry no session
        async with engine.connect() as conn:
            assert await repo.journal_since(conn, match_id, 0) == [(1, "{1}"), (2, "{2}")]
    finally:
        await engine.dispose()
