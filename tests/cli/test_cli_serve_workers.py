"""``kva serve --workers N``: refused without a shared broker, warned about on SQLite or with
per-process rate limits; the worker processes' app factory reads the environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kva.commands.serve import APP_FACTORY, workers_problem
from kva.config import Settings

ROOT = Path(__file__).resolve().parents[2]
PG = "postgresql+asyncpg://kva@db/kva"
REDIS = "redis://cache:6379/0"


def _settings(database_url: str = PG, broker_url: str | None = REDIS,
              rate: str = REDIS) -> Settings:
    return Settings(database_url=database_url, broker_url=broker_url, secret_key="k",
                    rate_limit_storage=rate)


def test_one_process_needs_nothing_shared() -> None:
    assert workers_problem(_settings("sqlite+aiosqlite:///x", None, "memory://"), 1) == (None, [])


@pytest.mark.parametrize("broker", [None, "memory"])
def test_several_processes_without_redis_are_refused(broker: str | None) -> None:
    problem, _ = workers_problem(_settings(broker_url=broker), 2)
    assert problem is not None and "KVA_BROKER_URL=redis://" in problem


def test_several_processes_on_postgres_and_redis_are_fine() -> None:
    assert workers_problem(_settings(), 4) == (None, [])


def test_sqlite_and_per_process_rate_limits_are_warned_about() -> None:
    problem, warnings = workers_problem(_settings("sqlite+aiosqlite:///x", REDIS, "memory://"), 2)
    assert problem is None
    assert any("SQLite" in w for w in warnings)
    assert any("KVA_RATE_LIMIT_STORAGE" in w for w in warnings)


def test_zero_workers_are_refused() -> None:
    assert workers_problem(_settings(), 0)[0] is not None


def test_the_factory_import_string_names_a_callable() -> None:
    module, name = APP_FACTORY.split(":")
    factory = getattr(__import__(module, fromlist=[name]), name)
    assert callable(factory)


def test_the_command_refuses_workers_without_redis(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "KVA_DATA_DIR": str(tmp_path), "KVA_BROKER_URL": ""}
    done = subprocess.run([sys.executable, "-m", "kva", "serve", "--workers", "2",
                           "--port", "1"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    assert "needs a shared broker" in done.stderr and "KVA_BROKER_URL=redis://" in done.stderr


def test_a_process_missing_from_its_upstreams_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """KVA_UPSTREAMS (nginx's upstream list, for match ids routed to their creator) must name
    this process: KVA_UPSTREAM_SELF, else KVA_HOST:KVA_PORT."""
    import dataclasses

    listed = dataclasses.replace(_settings(), host="127.0.0.1", port=8001,
                                 upstreams=("127.0.0.1:8001", "127.0.0.1:8002"))
    assert workers_problem(listed, 1) == (None, [])
    assert listed.match_ids() is not None
    problem, _ = workers_problem(dataclasses.replace(listed, port=8003), 1)
    assert problem is not None and "KVA_UPSTREAM_SELF" in problem
    assert workers_problem(dataclasses.replace(listed, port=8003,
                                               upstream_self="127.0.0.1:8002"), 1) == (None, [])
    monkeypatch.setenv("KVA_UPSTREAMS", "127.0.0.1:8001,nonsense")
    with pytest.raises(ValueError, match="KVA_UPSTREAMS"):
        Settings.from_env()
