"""The reads a match's setup makes once (issue 14, scale), and the refusals that must survive
them: the bot guard, the identity middleware and the match socket share one read of the
session per request or handshake (a bot account's browser session is still refused; a revoked
session is still refused at the next frame, ``hello`` included); a socket's ``hello`` during the
setup reads no rematch and no ratings (a finished match's still gets both); a friend's table is
read from memory by its creator's page and its join, and its join does not republish the
lobby."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from sqlalchemy import event, insert, select
from sqlalchemy.engine import Engine

import kva.web.identity as identity_module
import kva.web.ws as ws_module
from kva.service.accounts.sessions import revoke, token_hash
from kva.service.lobby.rematch import RematchService
from kva.storage.botapi import BotAccount
from kva.storage.db import create_engine, session_factory
from kva.storage.models import SessionRow
from tests.helpers.webhelp import ServerThread, Socket, Table, Visitor


async def _revoke_in_the_database(database_url: str, cookie: str) -> None:
    """Revoke the session straight in the database: no broker news reaches the server."""
    engine = create_engine(database_url)
    try:
        assert await revoke(session_factory(engine), cookie)
    finally:
        await engine.dispose()


async def _make_bot_account(database_url: str, cookie: str) -> None:
    """Turn the user of ``cookie`` into a bot account (its ``bot_accounts`` row)."""
    engine = create_engine(database_url)
    try:
        async with session_factory(engine)() as session, session.begin():
            user_id = await session.scalar(select(SessionRow.user_id).where(
                SessionRow.token_hash == token_hash(cookie)))
            assert user_id is not None
            await session.execute(insert(BotAccount).values(user_id=user_id, max_matches=3))
    finally:
        await engine.dispose()


@pytest.fixture
def session_reads(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The tokens whose live session the server read (every read, in order)."""
    reads: list[str | None] = []
    real = identity_module.live_session

    async def counted(sessions: Any, token: str | None) -> Any:
        reads.append(token)
        return await real(sessions, token)

    monkeypatch.setattr(identity_module, "live_session", counted)
    return reads


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """The SQL statements run meanwhile (the test server runs in this process)."""
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(" ".join(statement.split()))

    event.listen(Engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", note)


async def test_a_handshake_and_a_guarded_form_read_the_session_once(
    server: ServerThread, session_reads: list[str | None]
) -> None:
    async with Visitor(server.base_url) as host:
        match_id = await host.new_match("friend")
        session_reads.clear()
        sock = Socket(server.base_url, match_id, host.cookie)
        await sock.open()  # the guard and the socket: one read; the hello: one more
        assert sock.state["you"] == 0
        assert session_reads == [host.cookie]
        await sock.close()
        session_reads.clear()
        await host.new_match("bot:easy")  # a guarded form: the guard and the middleware
        assert session_reads == [host.cookie]


async def test_a_bot_accounts_browser_session_is_still_refused(
    server: ServerThread, database_url: str
) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as bot:
        match_id = await host.new_match("friend")
        await _make_bot_account(database_url, bot.cookie)
        with pytest.raises(websockets.InvalidStatus):  # refused at the handshake (4403)
            await Socket(server.base_url, match_id, bot.cookie).open(hello=False)
        r = await bot.http.post("/matches", data={"opponent": "bot:easy", "target": "75",
                                                  "bazaar": "draw"})
        assert r.status_code == 403 and r.json()["code"] == "bot_account"
        r = await bot.http.get(f"/m/{match_id}")  # not a guarded page: it still renders
        assert r.status_code == 200
        sock = await host.connect(match_id)  # a person's socket opens as before
        assert sock.state["you"] == 0
        await sock.close()


async def test_a_session_revoked_after_the_handshake_is_refused_at_hello(
    table: Table, database_url: str
) -> None:
    await _revoke_in_the_database(database_url, table.mover.cookie)
    await table.mover.send({"type": "hello", "version": 0})
    await table.mover.wait_for(lambda m: m.get("type") == "error" and m["code"] == "revoked")
    await table.mover.wait_closed(5.0)
    assert table.mover._ws.close_code == 4401


async def test_a_revoked_cookie_opens_no_players_socket(
    server: ServerThread, database_url: str
) -> None:
    async with Visitor(server.base_url) as host:
        match_id = await host.new_match("friend")
        await _revoke_in_the_database(database_url, host.cookie)
        sock = Socket(server.base_url, match_id, host.cookie)
        await sock.open()
        assert sock.state["you"] is None  # nobody's seat: a spectator of a public table
        await sock.close()


async def test_a_hello_reads_the_rematch_and_the_ratings_only_once_the_match_is_finished(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real_status = RematchService.status
    real_ratings = ws_module.match_ratings_message

    async def status(self: RematchService, match_id: str) -> Any:
        asked.append("rematch")
        return await real_status(self, match_id)

    async def ratings(sessions: Any, match_id: str) -> Any:
        asked.append("ratings")
        return await real_ratings(sessions, match_id)

    monkeypatch.setattr(RematchService, "status", status)
    monkeypatch.setattr(ws_module, "match_ratings_message", ratings)
    async with Visitor(server.base_url) as v:
        match_id = await v.new_match("bot:easy")
        sock = await v.connect(match_id)
        assert sock.state["status"] == "active"
        assert asked == []
        await sock.send({"type": "resign"})
        await sock.wait_for(lambda m: m.get("type") == "state" and m["status"] == "finished")
        await sock.send({"type": "rematch_offer"})  # a bot accepts at once
        await sock.wait_for(lambda m: m.get("type") == "rematch" and m["state"] == "accepted")
        await sock.close()
        asked.clear()
        again = await v.connect(match_id)  # a page reloaded after the end
        found = await again.wait_for(lambda m: m.get("type") == "rematch")
        assert found["state"] == "accepted" and found["match_id"]
        assert asked == ["rematch", "ratings"]
        await again.close()


async def test_a_friends_table_is_read_from_memory_and_its_join_tells_no_lobby(
    server: ServerThread, statements: list[str]
) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        match_id = await host.new_match("friend")
        statements.clear()
        token = await host.share_token(match_id)  # the creator's page shows the link
        r = await guest.http.get(f"/t/{token}")  # a visitor with a session joins at once
        assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
        touched = [s for s in statements
                   if " tables" in s and not s.startswith("INSERT") or "watch_grants" in s]
        assert touched == []  # no table read, no watch grant read, no lobby list
        sock = await guest.connect(match_id)
        assert sock.state["you"] == 1
        await sock.close()


async def test_a_password_tables_join_still_needs_its_password(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        match_id = await host.new_match("friend", password="s3cret")
        token = await host.share_token(match_id)
        r = await guest.http.get(f"/t/{token}")
        assert r.status_code == 200 and "password" in r.text  # asked for it
        r = await guest.http.post(f"/t/{token}", data={"password": "wrong"})
        assert r.status_code == 403
        r = await guest.http.post(f"/t/{token}", data={"password": "s3cret"})
        assert r.status_code == 303
        assert (await watcher.http.get(f"/m/{match_id}")).status_code == 403
        r = await watcher.http.post(f"/t/{token}", data={"password": "s3cret"})
        assert r.status_code == 303  # a spectator now, granted
        assert (await watcher.http.get(f"/m/{match_id}")).status_code == 200
        r = await watcher.http.get(f"/t/{token}")  # the grant stands: no password again
        assert r.status_code == 303
