"""kva-fair/1 wired into play (issue 11, docs/fairness.md): the commitment in the very first
state, client seeds sent over the socket after it, the deal waiting for both, the server's seed
for a browser that sends none in time, the seed revealed only at the end, and a restart that
resumes with the same seed."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kva.rules import commitment, verify_record
from kva.service.play import PlayService, Seat
from kva.service.play.commit import record_of as record_of_live
from kva.storage import repo
from kva.storage.models import MatchFair
from tests.helpers.play import make_play
from tests.helpers.webhelp import Visitor

ROOT = Path(__file__).resolve().parents[2]
HEX64 = "0123456789abcdef"


def fair_of(state: dict[str, Any]) -> dict[str, Any]:
    fair = state["fair"]
    assert fair is not None and fair["scheme"] == "kva-fair/1"
    assert len(fair["commitment"]) == 64 and set(fair["commitment"]) <= set(HEX64)
    return fair  # type: ignore[no-any-return]


def undealt(state: dict[str, Any]) -> bool:
    return state["view"]["hand_counts"] == [0, 0] and not state["view"]["legal"]


async def record_of(visitor: Visitor, match_id: str) -> dict[str, Any]:
    r = await visitor.http.get(f"/m/{match_id}/record.json")
    assert r.status_code == 200, r.status_code
    return r.json()  # type: ignore[no-any-return]


def cli_verify(tmp_path: Path, record: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return subprocess.run([sys.executable, "-m", "kva", "record", "verify", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


async def test_seeds_from_both_players_deal_the_match(make_server: Any, tmp_path: Path) -> None:
    server = make_server(seed_wait=60.0)
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        match_id = await host.new_match("friend")
        a = await host.connect(match_id)
        first = a.states[0]  # the very first state the creator receives: the commitment
        committed = fair_of(first)["commitment"]
        assert first["fair"]["client_seeds"] == [None, None]
        assert first["fair"]["server_seed"] is None
        # The creator's seed may come while the table waits; nothing is dealt.
        seed0 = secrets.token_hex(16)
        await a.send({"type": "seed", "seed": seed0.upper()})  # any case; stored lowercase
        token = await host.share_token(match_id)
        r = await guest.http.post(f"/t/{token}", headers={"origin": server.base_url})
        assert r.status_code == 303, r.status_code
        b = await guest.connect(match_id)
        assert fair_of(b.states[0])["commitment"] == committed
        joined = b.state
        assert joined["status"] == "active" and undealt(joined)
        assert joined["fair"]["client_seeds"] == [seed0, None]
        w = await watcher.connect(match_id)
        assert fair_of(w.states[0])["commitment"] == committed
        # Refusals change nothing: a spectator, a bad seed, a second different seed.
        await w.expect_error({"type": "seed", "seed": secrets.token_hex(16)}, "not_seated")
        for bad in ("xyz", 5, None, "ab" * 17, "g" * 32):
            await b.expect_error({"type": "seed", "seed": bad}, "bad_seed")
        await a.expect_error({"type": "seed", "seed": secrets.token_hex(16)}, "illegal")
        await a.send({"type": "seed", "seed": seed0})  # the same seed again: nothing happens
        assert undealt(await b.resync())
        # The second seed deals the match.
        seed1 = secrets.token_hex(16)
        await b.send({"type": "seed", "seed": seed1})
        dealt = await a.wait_for(lambda m: m.get("type") == "state" and not undealt(m))
        assert dealt["event"] == {"kind": "deal"}
        assert dealt["fair"]["client_seeds"] == [seed0, seed1]
        assert dealt["fair"]["server_seed"] is None and dealt["fair"]["commitment"] == committed
        assert len(dealt["view"]["hand"]) == 7
        # The record is not public before the end; at the end the seed is revealed.
        assert (await host.http.get(f"/m/{match_id}/record.json")).status_code == 404
        await a.send({"type": "resign"})
        over = await b.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        revealed = over["fair"]["server_seed"]
        assert revealed is not None and commitment(revealed) == committed
        record = await record_of(host, match_id)
        assert record["meta"]["fair"] == {
            "scheme": "kva-fair/1", "commitment": committed, "client_seeds": [seed0, seed1],
            "seed_by": ["player", "player"], "server_seed": revealed}
        verify_record(record)
        done = cli_verify(tmp_path, record)
        assert done.returncode == 0 and done.stdout.startswith("ok "), done.stdout + done.stderr
        # A tampered record fails the same command.
        record["meta"]["fair"]["client_seeds"][1] = secrets.token_hex(16)
        assert cli_verify(tmp_path, record).returncode == 1
        for s in (a, b, w):
            await s.close()


async def test_the_server_chooses_a_seed_nobody_sent(make_server: Any) -> None:
    server = make_server(seed_wait=0.4)
    async with Visitor(server.base_url) as me:
        match_id = await me.new_match("bot:easy")
        sock = await me.connect(match_id)
        first = sock.states[0]
        fair = fair_of(first)
        assert fair["client_seeds"][0] is None and fair["client_seeds"][1] is not None  # bot's
        if undealt(first):  # dealt within the wait's end, without a seed from us
            await sock.wait_for(lambda m: m.get("type") == "state" and not undealt(m), 10)
        await sock.send({"type": "resign"})
        await sock.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
        record = await record_of(me, match_id)
        assert record["meta"]["fair"]["seed_by"] == ["server", "server"]
        assert record["meta"]["fair"]["commitment"] == fair["commitment"]
        verify_record(record)
        await sock.close()


# ---------------------------------------------------------------------- the service alone
@pytest.fixture
def service_factory(database: Any) -> Any:
    made: list[PlayService] = []

    def make(seed_wait: float = 0.0) -> PlayService:
        service = make_play(database, seed_wait=seed_wait)
        made.append(service)
        return service

    return make


async def _two_players(sessions: Any) -> list[Seat]:
    a = await repo.create_guest(sessions)
    b = await repo.create_guest(sessions)
    return [Seat(a.id, a.nickname), Seat(b.id, b.nickname)]


async def _play_until(play: PlayService, match_id: str, seats: list[Seat], hands: int,
                      rng: random.Random) -> None:
    """Random legal moves by whoever is to play, until ``hands`` hands are finished or the
    match is over (forced draws and passes are the server's, with no delay)."""
    for _ in range(5000):
        state = await play.state_for(match_id, seats[0].user_id)
        view = state["view"]
        if view["over"] or len(view["previous"]) >= hands:
            return
        turn = view["turn"]
        mine = await play.state_for(match_id, seats[turn].user_id)
        legal = [a for a in mine["view"]["legal"] if a["type"] == "play"]
        if not legal or mine["version"] != state["version"]:
            await asyncio.sleep(0.005)
            continue
        try:
            await play.act(match_id, seats[turn].user_id, mine["version"], rng.choice(legal))
        except Exception:  # a forced move got there first
            await asyncio.sleep(0.005)
    raise AssertionError("the match did not get there")


async def test_a_restart_resumes_with_the_same_seed(sessions: Any, service_factory: Any) -> None:
    seats = await _two_players(sessions)
    first = service_factory(seed_wait=60.0)
    row = first.prepare_match(seats, 75, "draw")
    async with sessions() as session, session.begin():
        session.add(row)
    await first.activate(row.id)
    match_id = row.id
    state = await first.state_for(match_id, seats[0].user_id)
    committed = state["fair"]["commitment"]
    assert undealt(state) and state["fair"]["client_seeds"] == [None, None]
    async with sessions() as session:
        stored = await session.get(MatchFair, match_id)
        assert stored is not None and commitment(stored.server_seed) == committed
        # The secret is in its own table, not in the match's stored record.
        assert stored.server_seed not in json.dumps((await repo.get_match(session, match_id))
                                                    .record)  # type: ignore[union-attr]
    seeds = [secrets.token_hex(16), secrets.token_hex(16)]
    await first.seed(match_id, seats[0].user_id, seeds[0])
    await first.stop()
    # A new process on the same database: the seed that came is kept, the next one deals.
    second = service_factory(seed_wait=60.0)
    await second.start()
    await second.seed(match_id, seats[1].user_id, seeds[1])
    state = await second.state_for(match_id, seats[0].user_id)
    assert not undealt(state) and state["fair"]["commitment"] == committed
    assert state["fair"]["client_seeds"] == seeds
    # What is stored of the match in progress holds the commitment, never the seed.
    live = second._live[match_id]
    assert live.fair is not None
    in_progress = json.dumps(record_of_live(live))
    assert committed in in_progress and live.fair.server_seed.hex() not in in_progress
    assert "server_seed" not in in_progress
    rng = random.Random(7)
    await _play_until(second, match_id, seats, 1, rng)  # a hand over: the next dealt
    # (unless that first hand won the match: rare, but the deals are random)
    won_in_one = (await second.state_for(match_id, seats[0].user_id))["view"]["over"]
    await second.stop()
    third = service_factory()
    await third.start()
    await _play_until(third, match_id, seats, 3, rng)
    over = await third.state_for(match_id, seats[0].user_id)
    assert over["fair"]["commitment"] == committed
    assert (over["fair"]["server_seed"] is None) == (not over["view"]["over"])
    if not over["view"]["over"]:
        await third.resign(match_id, seats[1].user_id)
    record = await third.finished_record(match_id)
    assert record is not None
    fair = record["meta"]["fair"]
    assert fair["commitment"] == committed and fair["client_seeds"] == seeds
    assert fair["seed_by"] == ["player", "player"] and commitment(fair["server_seed"]) == committed
    assert len(record["hands"]) >= 2 or won_in_one  # hands dealt after the restarts, by the
    # same dealer
    verify_record(record)
    await third.stop()
