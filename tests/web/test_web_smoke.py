"""Smoke: the server starts, migrates an empty database, and plays a bot match to the end."""

from __future__ import annotations

from kva.rules import verify_record
from tests.helpers.webhelp import ServerThread, Visitor, play_out


async def test_bot_match_plays_to_the_end(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        match_id = await me.new_match("bot:easy", target=75)
        sock = await me.connect(match_id)
        await play_out([sock])
        final = sock.state
        assert final["view"]["over"] is True
        assert final["status"] == "finished"
        r = await me.http.get(f"/m/{match_id}/record.json")
        assert r.status_code == 200
        match = verify_record(r.json())
        assert match.scores == final["view"]["scores"]
        await sock.close()


async def test_a_failing_bot_worker_does_not_stall_the_match(server: ServerThread) -> None:
    server.executor.shutdown(wait=True)  # every bot decision now fails to start
    async with Visitor(server.base_url) as me:
        match_id = await me.new_match("bot:hard", target=75)
        sock = await me.connect(match_id)
        await play_out([sock])
        assert sock.state["view"]["over"]
        await sock.close()
