"""Settings from the environment: defaults that run out of the box, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from kva.commands.serve import uvicorn_options
from kva.web.settings import Settings, async_database_url


def test_defaults_need_no_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KVA_DATABASE_URL", "KVA_BROKER_URL", "KVA_SECRET_KEY", "KVA_HOST", "KVA_PORT",
                 "KVA_FORCED_DELAY", "KVA_BOT_DELAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KVA_DATA_DIR", str(tmp_path / "var"))
    s = Settings.from_env()
    assert s.database_url == f"sqlite+aiosqlite:///{tmp_path / 'var' / 'kva.sqlite3'}"
    assert s.broker_url is None
    assert (s.host, s.port) == ("127.0.0.1", 8000)
    # The generated secret is kept, so sessions outlive a restart.
    assert len(s.secret_key) >= 32
    assert Settings.from_env().secret_key == s.secret_key
    assert (tmp_path / "var" / "secret_key").stat().st_mode & 0o077 == 0


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KVA_DATABASE_URL", "postgresql://kva@db:5432/kva")
    monkeypatch.setenv("KVA_BROKER_URL", "redis://cache:6379/0")
    monkeypatch.setenv("KVA_SECRET_KEY", "k" * 40)
    monkeypatch.setenv("KVA_PORT", "8080")
    monkeypatch.setenv("KVA_FORCED_DELAY", "0")
    s = Settings.from_env()
    assert s.database_url == "postgresql+asyncpg://kva@db:5432/kva"
    assert s.broker_url == "redis://cache:6379/0"
    assert s.secret_key == "k" * 40 and s.port == 8080 and s.forced_delay == 0.0


@pytest.mark.parametrize(("name", "value"), [("KVA_PORT", "eighty"), ("KVA_BOT_DELAY", "soon"),
                                             ("KVA_FORCED_DELAY", "-1"),
                                             ("KVA_CLOCK_PRESETS", "bullet=1+0"),
                                             ("KVA_CLOCK_PRESETS", "blitz=0+60"),
                                             ("KVA_CLOCK_PRESETS", "blitz=10"),
                                             ("KVA_CLOCK_PRESETS", "blitz=ten+60"),
                                             ("KVA_LOGIN_SUSPECT_MINUTES", "soon")])
def test_bad_values_are_named(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv("KVA_SECRET_KEY", "k" * 40)
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        Settings.from_env()


def test_clock_presets_change_only_the_ones_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KVA_SECRET_KEY", "k" * 40)
    assert ("standard", 20, 120) in Settings.from_env().clock_presets
    monkeypatch.setenv("KVA_CLOCK_PRESETS", " blitz=5+30 , standard=2+0")
    assert Settings.from_env().clock_presets == (
        ("blitz", 5, 30), ("standard", 2, 0), ("relaxed", 45, 300))


def test_async_drivers() -> None:
    assert async_database_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert async_database_url("postgres://u@h/d") == "postgresql+asyncpg://u@h/d"
    assert async_database_url("postgresql+asyncpg://u@h/d") == "postgresql+asyncpg://u@h/d"


@pytest.mark.parametrize(("value", "deflate"), [(None, True), ("1", True), ("0", False),
                                                ("off", False), ("false", False)])
def test_websocket_deflate_is_on_unless_turned_off(value: str | None, deflate: bool) -> None:
    """``KVA_WS_DEFLATE=0`` hands uvicorn ``ws_per_message_deflate=False`` (the other options
    stay as they were)."""
    environ = {} if value is None else {"KVA_WS_DEFLATE": value}
    settings = Settings(database_url="sqlite+aiosqlite:///x.db", broker_url=None, secret_key="k")
    options = uvicorn_options(settings, "info", environ)
    assert options["ws_per_message_deflate"] is deflate
    assert options["ws_max_size"] == 64 * 1024 and options["proxy_headers"] is False
