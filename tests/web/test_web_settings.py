"""Settings from the environment: defaults that run out of the box, and clear errors."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from kva.commands.serve import uvicorn_options
from kva.config import (
    KNOWN_VARIABLES,
    RANGES,
    ConfigurationError,
    Settings,
    async_database_url,
)
from kva.settings.caps import EngineOptions


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
                                             ("KVA_CLOCK_PRESETS", "blitz=99999999999+60"),
                                             ("KVA_CLOCK_PRESETS", "blitz=10+86401"),
                                             ("KVA_CLOCK_PRESETS", "blitz=٣+60"),
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
    environ = {"KVA_SECRET_KEY": "k"} | ({} if value is None else {"KVA_WS_DEFLATE": value})
    options = uvicorn_options(Settings.from_env(environ), "info")
    assert options["ws_per_message_deflate"] is deflate
    assert options["ws_max_size"] == 64 * 1024 and options["proxy_headers"] is False


def test_an_unknown_name_is_refused_with_the_closest_known_one() -> None:
    with pytest.raises(ConfigurationError) as refused:
        Settings.from_env({"KVA_SECRET_KEY": "k", "KVA_WS_RATES": "5", "KVA_PROT": "80"})
    message = str(refused.value)
    assert "unknown setting KVA_WS_RATES (did you mean KVA_WS_RATE?)" in message
    assert "unknown setting KVA_PROT (did you mean KVA_PORT?)" in message


def test_the_test_suites_names_are_exempt_and_only_they() -> None:
    """``KVA_TEST_*`` names belong to the test suite and its tools, which share their
    environment with the servers they start; ``KVA_TESTING`` is not one of them."""
    exempt = {"KVA_SECRET_KEY": "k", "KVA_TEST_DATABASE_URL": "postgresql://x/y",
              "KVA_TEST_PROBE_DIR": "/tmp", "KVA_TEST_ANYTHING_ELSE": "1"}
    assert Settings.from_env(exempt).secret_key == "k"
    with pytest.raises(ConfigurationError, match="KVA_TESTING"):
        Settings.from_env({**exempt, "KVA_TESTING": "1"})
    assert Settings.from_env({"KVA_SECRET_KEY": "k", "OTHER_PORT": "x"}).port == 8000


class _Recording(dict[str, str]):
    """An environment that notes every name looked up in it."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values)
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self.asked.add(key)
        return super().get(key, default)


def test_every_name_read_is_known_and_every_known_name_is_read() -> None:
    environ = _Recording({"KVA_SECRET_KEY": "k"})
    Settings.from_env(environ)
    assert {name for name in environ.asked if name.startswith("KVA_")} == KNOWN_VARIABLES


@pytest.mark.parametrize(("name", "value"), [("KVA_SQLITE_DIRECT_APPEND", "maybe"),
                                             ("KVA_SECURE_COOKIES", "2"),
                                             ("KVA_DB_POOL_SIZE", "0"),
                                             ("KVA_BOT_HEARTBEAT", "0"),
                                             ("KVA_BOT_API_RATE", "lots"),
                                             ("KVA_BOT_API_AUTH_FAIL_RATE", "5/fortnight")])
def test_bad_values_of_the_storage_and_bot_api_settings_are_named(name: str, value: str) -> None:
    with pytest.raises(ConfigurationError, match=name):
        Settings.from_env({"KVA_SECRET_KEY": "k", name: value})


def test_the_storage_switches_reach_the_engine_options() -> None:
    assert Settings.from_env({"KVA_SECRET_KEY": "k"}).engine_options() == EngineOptions()
    options = Settings.from_env({"KVA_SECRET_KEY": "k", "KVA_DB_POOL_SIZE": "7",
                                 "KVA_SQLITE_DIRECT_APPEND": "0",
                                 "KVA_PG_DIRECT_APPEND": "off"}).engine_options()
    assert options == EngineOptions(pool_size=7, sqlite_direct_append=False,
                                    pg_direct_append=False)


def test_the_bot_api_settings_are_read() -> None:
    settings = Settings.from_env({"KVA_SECRET_KEY": "k", "KVA_BOT_API_RATE": "5/second",
                                  "KVA_BOT_API_AUTH_FAIL_RATE": "3/minute",
                                  "KVA_BOT_HEARTBEAT": "2.5"})
    assert (settings.bot_api_rate, settings.bot_api_auth_fail_rate,
            settings.bot_heartbeat) == ("5/second", "3/minute", 2.5)
    assert Settings.from_env({"KVA_SECRET_KEY": "k"}).bot_heartbeat == 10.0


def test_a_command_that_signs_nothing_creates_no_secret(tmp_path: Path) -> None:
    environ = {"KVA_DATA_DIR": str(tmp_path / "var")}
    assert Settings.from_env(environ, create_secret=False).secret_key == ""
    assert not (tmp_path / "var").exists()
    made = Settings.from_env(environ).secret_key
    assert Settings.from_env(environ, create_secret=False).secret_key == made


def test_the_example_bot_clients_names_are_left_alone() -> None:
    """A bot's author may start a server from the shell that holds their bot's token."""
    environ = {"KVA_SECRET_KEY": "k", "KVA_BOT_TOKEN": "kvab_x", "KVA_URL": "http://h:1"}
    assert Settings.from_env(environ).secret_key == "k"


@pytest.mark.parametrize(("name", "value"), [("KVA_FIRST_MOVE_TIMEOUT", "nan"),
                                             ("KVA_FORCED_DELAY", "inf"),
                                             ("KVA_DISCONNECT_GRACE", "1e308"),
                                             ("KVA_BOT_HEARTBEAT", "-inf"),
                                             ("KVA_WS_RATE", "NaN"),
                                             ("KVA_WS_PER_MATCH", "99999999"),
                                             ("KVA_LOGIN_SUSPECT_MINUTES", "999999"),
                                             ("KVA_PORT", "70000")])
def test_a_number_out_of_its_range_is_refused_naming_the_range(name: str, value: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        Settings.from_env({"KVA_SECRET_KEY": "k", name: value})
    assert str(refused.value) == (f"{name}={value} is out of range: it must be from "
                                  f"{RANGES[name].text()}")


@pytest.mark.parametrize("name", sorted(RANGES))
def test_each_number_setting_takes_the_ends_of_its_range(name: str) -> None:
    allowed = RANGES[name]
    low, high = allowed.text().split(" ")[0:3:2]
    for value in (low, high):
        Settings.from_env({"KVA_SECRET_KEY": "k", name: value})


def _numbers(value: object) -> list[float]:
    if isinstance(value, tuple):
        return [n for item in value for n in _numbers(item)]
    return [value] if isinstance(value, float) else []


@pytest.mark.parametrize("name", sorted(KNOWN_VARIABLES))
def test_no_setting_takes_nan_or_infinity(name: str) -> None:
    """A setting that takes a number has a range (and refuses nan and inf); one that takes
    ``nan`` is no number setting, and leaves no nan or inf among the settings."""
    for value in ("nan", "inf"):
        try:
            settings = Settings.from_env({"KVA_SECRET_KEY": "k", name: value})
        except ConfigurationError as exc:
            assert name in str(exc)
            continue
        assert name not in RANGES
        numbers = [n for field in dataclasses.fields(settings)
                   for n in _numbers(getattr(settings, field.name))]
        assert all(math.isfinite(n) for n in numbers), name


def test_the_quick_bot_offer_wait_is_read_in_its_range() -> None:
    assert Settings.from_env({"KVA_SECRET_KEY": "k"}).quick_bot_offer == 20.0
    assert Settings.from_env({"KVA_SECRET_KEY": "k",
                              "KVA_QUICK_BOT_OFFER": "5"}).quick_bot_offer == 5.0
    with pytest.raises(ConfigurationError, match="KVA_QUICK_BOT_OFFER"):
        Settings.from_env({"KVA_SECRET_KEY": "k", "KVA_QUICK_BOT_OFFER": "0.5"})
