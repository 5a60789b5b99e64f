"""``kva bench server`` (``tools/bench/server.py``) runs end to end: it starts one SQLite
``kva serve``, keeps three friend matches live between WebSocket clients for a few seconds, and
prints a table and a headline with no errors (a smoke test: nothing here is timed or judged;
the figures are for people, see docs/performance.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kva.cli import main
from tools.bench.server import StepResult, _descendants, headline, percentile

#: The checkout's root: a bench started from another directory finds ``tools`` through it.
ROOT = Path(__file__).resolve().parents[2]


def _bench(tmp_path: Path, capsys: pytest.CaptureFixture[str], *options: str
           ) -> tuple[str, dict[str, Any]]:
    """Run ``kva bench server`` on one started SQLite server with ``options``: its output and
    its JSON."""
    out_json = tmp_path / "bench.json"
    status = main(["bench", "server", "--start", "1", "--db", "sqlite", "--forced-delay", "0",
                   "--slo-ms", "100000", "--seed", "1", "--json", str(out_json), *options])
    out = capsys.readouterr().out
    assert status == 0, out
    return out, json.loads(out_json.read_text())


def test_bench_server_plays_matches_and_prints_a_headline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.txt"
    # 3 s measured after 1 s of warm-up: at 0.3 s a move, about ten actions a match are
    # measured, as many as a smoke test of the figures needs
    out, data = _bench(tmp_path, capsys, "--matches", "3", "--duration", "3", "--warmup", "1",
                       "--think", "0.3", "--trace", str(trace))
    last = out.strip().splitlines()[-1]
    assert last.startswith("headline: sqlite 1 process: 3 matches, p99 action→opponent"), out
    assert ", 0 errors" in last, out
    (step,) = data["steps"]
    assert step["errors"] == 0, step["error_kinds"]
    assert step["actions"] > 0 and step["opponent_samples"] > 0, step
    assert step["server_rss_mib"] > 0 and step["server_cpu_percent"] is not None
    assert data["headline"] == last
    samples = [line.split() for line in trace.read_text().splitlines()]
    measured = [float(ms) for _sent, ms, phase in samples if phase == "m"]
    assert len(measured) == step["opponent_samples"], (len(measured), step)
    assert max(measured) == pytest.approx(step["opponent_ms"]["max"], abs=0.01)
    assert {phase for _sent, _ms, phase in samples} <= {"m", "w"}


def test_bench_server_plays_four_seat_kozel_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, data = _bench(tmp_path, capsys, "--game", "kozel", "--seats", "4", "--matches", "2",
                       "--duration", "3", "--warmup", "1", "--think", "0.2")
    last = out.strip().splitlines()[-1]
    assert last.startswith("headline: sqlite 1 process, Kozel at 4 seats: 2 matches"), out
    assert ", 0 errors" in last, out
    (step,) = data["steps"]
    assert step["errors"] == 0, step["error_kinds"]
    assert step["actions"] > 0 and step["opponent_samples"] > 0, step


def test_bench_server_refuses_a_trace_file_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "server", "--start", "1", "--matches", "1",
                   "--trace", str(tmp_path / "missing" / "trace.txt")])
    assert status == 2
    err = capsys.readouterr().err
    assert "cannot write --trace" in err and "No such file" in err


def _step(matches: int, p99: float, errors: int = 0) -> StepResult:
    ms = {"p50": 1.0, "p95": 2.0, "p99": p99, "max": p99}
    return StepResult(matches=matches, seconds=10.0, actions=100, opponent_samples=100,
                      actions_per_s=10.0, actor_ms=ms, opponent_ms=ms, errors=errors,
                      error_kinds={"stall": errors} if errors else {}, matches_started=1,
                      matches_finished=1, server_cpu_percent=50.0, server_rss_mib=100.0,
                      server_processes=1, client_cpu_percent=5.0)


def test_headline_is_the_largest_step_within_the_objective_with_no_errors() -> None:
    steps = [_step(10, 20.0), _step(25, 40.0), _step(50, 45.0, errors=1), _step(100, 80.0)]
    line = headline("sqlite 1 process", steps, 50.0)
    assert line.startswith("headline: sqlite 1 process: 25 matches, p99 action→opponent 40.0 ms")
    assert headline("x", [_step(10, 60.0)], 50.0) == (
        "headline: x: none of 10 matches kept p99 action→opponent ≤ 50 ms with no errors")


def test_percentile_is_nearest_rank() -> None:
    values = [float(i) for i in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([7.0], 0.99) == 7.0


def test_nginx_chash_picks_one_server_per_key_whatever_their_order() -> None:
    from tools.bench.server import nginx_chash

    urls = ["http://127.0.0.1:8001", "http://127.0.0.1:8002", "http://127.0.0.1:8003"]
    keys = [f"m{i:05d}" for i in range(300)]
    picked = [nginx_chash(k, urls) for k in keys]
    assert picked == [nginx_chash(k, urls[::-1]) for k in keys]
    assert set(picked) == set(urls)  # every server gets some matches
    # Consistent: dropping a server moves only its own keys.
    for key, url in zip(keys, picked, strict=True):
        if url != urls[2]:
            assert nginx_chash(key, urls[:2]) == url


def test_returning_players_keep_their_sessions_from_match_to_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVA_WS_RATE", "1000")  # matches of a few seconds, 50 moves a second
    _out, data = _bench(tmp_path, capsys, "--matches", "2", "--duration", "6", "--warmup", "1",
                        "--think", "0.02", "--jitter", "0", "--players", "returning")
    (step,) = data["steps"]
    assert step["errors"] == 0, step["error_kinds"]
    assert step["matches_started"] >= 2, step  # the slots' next matches, in the window
    assert step["new_guests"] == 0, step  # played by the players of their first matches


def test_a_terminated_bench_stops_the_servers_it_started(tmp_path: Path) -> None:
    """``kill`` (SIGTERM) ends the bench as Ctrl-C does: exit 130, its servers stopped."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    bench = subprocess.Popen(
        [sys.executable, "-m", "kva", "bench", "server", "--start", "1", "--db", "sqlite",
         "--matches", "1", "--duration", "120", "--warmup", "1", "--forced-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path})
    try:
        assert bench.stdout is not None
        for line in bench.stdout:  # the table's header: the server is up, the ramp started
            if line.startswith("matches"):
                break
        servers = [pid for pid in _descendants([bench.pid]) if pid != bench.pid]
        assert servers, "the bench started no server"
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=60) == 130
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
    deadline = time.monotonic() + 10
    alive = servers
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in servers if Path(f"/proc/{pid}").exists()]
        time.sleep(0.1)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"servers left running: {alive}"


def test_the_bench_lifts_every_per_address_limit_that_its_players_meet() -> None:
    """Hundreds of bench players share one address: every per-address limit on what they do
    (create guests and tables, join, log in) must be lifted, or the bench measures 429s."""
    from tools.bench.server import GENEROUS_LIMITS

    docs = (ROOT / "docs" / "configuration.md").read_text()
    met = {"KVA_GUEST_CREATE_RATE_IP", "KVA_BOT_MATCH_CREATE_RATE_IP", "KVA_TABLE_CREATE_RATE_IP",
           "KVA_TABLE_PASSWORD_RATE_IP", "KVA_REGISTER_RATE_IP", "KVA_LOGIN_RATE_IP"}
    assert all(name in docs for name in met)
    assert met <= set(GENEROUS_LIMITS)
