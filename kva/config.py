"""The platform's configuration: every ``KVA_*`` setting, read from the environment in one place.

:meth:`Settings.from_env` reads the environment once, at start; every other module takes the
values it needs from the :class:`Settings` it is given (or from what the caller built from it,
such as :meth:`Settings.engine_options`), never from ``os.environ``. Anything unset gets a
default that runs out of the box. Every variable is documented in ``docs/configuration.md``.

A ``KVA_*`` name that is not a setting is refused at start (:func:`check_names`), naming the
closest known one, so a misspelt variable is not silently ignored. The names that begin with
``KVA_TEST_`` are exempt: they belong to the test suite and the development tools around the
server (``KVA_TEST_DATABASE_URL``, ``KVA_TEST_REDIS_URL``, ``KVA_TEST_PROBE_DIR``, ...), which
share their environment with the ``kva serve`` processes they start. So are the two names of
the example bot client (:data:`CLIENT_VARIABLES`), which a bot's author may have exported in
the shell that also starts a server to try it against.
"""

from __future__ import annotations

import difflib
import math
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kva.rules import parse_ascii_int
from kva.settings.caps import (
    DEFAULT_ANALYSIS_QUEUE,
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_PENDING_TO_TARGET,
    PG_POOL_SIZE,
    EngineOptions,
)
from kva.settings.clocks import PRESETS, parse_presets
from kva.settings.network import Network, parse_allowed_origins, parse_trusted_proxies
from kva.settings.ratelimits import DEFAULTS as RATE_DEFAULTS
from kva.settings.ratelimits import SUSPECT_MINUTES, parse_limits
from kva.settings.routing import HashRing, match_ids_for

#: The prefix of the names the check leaves alone: the test suite's and its tools'.
EXEMPT_PREFIX = "KVA_TEST_"

#: The example bot client's variables (examples/bot_client.py, docs/bot-api.md): not settings
#: of the server, and not refused by it.
CLIENT_VARIABLES: frozenset[str] = frozenset({"KVA_BOT_TOKEN", "KVA_URL"})

#: Every setting's variable (docs/configuration.md has one row for each).
KNOWN_VARIABLES: frozenset[str] = frozenset({
    # server
    "KVA_HOST", "KVA_PORT", "KVA_WS_DEFLATE", "KVA_GC_FULL_EVERY", "KVA_UPSTREAMS",
    "KVA_UPSTREAM_SELF",
    # storage
    "KVA_DATA_DIR", "KVA_DATABASE_URL", "KVA_BROKER_URL", "KVA_DB_POOL_SIZE",
    "KVA_SQLITE_DIRECT_APPEND", "KVA_PG_DIRECT_APPEND",
    # security
    "KVA_SECRET_KEY", "KVA_SECURE_COOKIES", "KVA_ALLOWED_ORIGINS", "KVA_TRUSTED_PROXIES",
    "KVA_IPV6_PREFIX", "KVA_MAX_BODY_BYTES", "KVA_BODY_TIMEOUT",
    # play and clocks
    "KVA_FORCED_DELAY", "KVA_BOT_DELAY", "KVA_SEED_WAIT", "KVA_DISCONNECT_GRACE",
    "KVA_FIRST_MOVE_TIMEOUT", "KVA_CLOCK_PRESETS",
    # WebSocket limits
    "KVA_WS_RATE", "KVA_WS_BURST", "KVA_WS_FLOOD", "KVA_WS_PER_CLIENT", "KVA_WS_PER_MATCH",
    "KVA_WS_SPECTATORS_PER_CLIENT",
    # rate limits and caps
    "KVA_RATE_LIMIT_STORAGE", "KVA_LOGIN_RATE_IP", "KVA_LOGIN_RATE_NICKNAME",
    "KVA_LOGIN_RATE_ACCOUNT",
    "KVA_LOGIN_RATE_NICKNAME_IP", "KVA_REGISTER_RATE_IP", "KVA_TABLE_PASSWORD_RATE_IP",
    "KVA_TABLE_PASSWORD_RATE_TABLE", "KVA_TABLE_CREATE_RATE_IP", "KVA_BOT_MATCH_CREATE_RATE_IP",
    "KVA_GUEST_CREATE_RATE_IP", "KVA_ANALYSIS_RATE_IP", "KVA_CHALLENGE_RATE_IP",
    "KVA_LOGIN_SUSPECT_MINUTES", "KVA_CHALLENGES_PER_TARGET", "KVA_ANALYSIS_QUEUE",
    "KVA_MAX_OPEN_TABLES", "KVA_QUICK_BOT_OFFER",
    # bot API
    "KVA_BOT_API_RATE", "KVA_BOT_API_AUTH_FAIL_RATE", "KVA_BOT_HEARTBEAT",
})


#: Bot API requests per token (``KVA_BOT_API_RATE``, ``limits`` notation).
BOT_API_RATE = "30/second;1200/minute"
#: Failed bot API token authentications per address before it must wait
#: (``KVA_BOT_API_AUTH_FAIL_RATE``): guessing tokens is slow, and an owner who pasted a wrong
#: token still gets several tries.
BOT_API_AUTH_FAIL_RATE = "20/minute;200/hour"
#: Seconds between heartbeat lines on an idle bot API stream (``KVA_BOT_HEARTBEAT``), so
#: proxies and clients see it alive.
BOT_HEARTBEAT = 10.0
#: Seconds a Kozel quick-game searcher waits before bots are offered for the free seats
#: (``KVA_QUICK_BOT_OFFER``): long enough for humans to gather, short enough not to bore.
QUICK_BOT_OFFER = 20.0


class ConfigurationError(ValueError):
    """The environment cannot configure the platform: an unknown name or a bad value."""


@dataclass(frozen=True, slots=True)
class Range:
    """The values a number setting may take: finite, from ``low`` to ``high`` in ``unit``."""

    low: float
    high: float
    unit: str

    def text(self) -> str:
        """How docs/configuration.md and the refusal word it: ``0 to 60 seconds``."""
        return f"{_plain(self.low)} to {_plain(self.high)} {self.unit}"

    def holds(self, value: float) -> bool:
        """Whether ``value`` is finite and within the range (nan and inf never are)."""
        return math.isfinite(value) and self.low <= value <= self.high


#: The range of every number setting. A value outside it (nan and inf included) is refused at
#: start: a nan timeout or an infinite delay would start and then break every match using it.
RANGES: dict[str, Range] = {
    "KVA_PORT": Range(0, 65535, "(a port number)"),
    "KVA_GC_FULL_EVERY": Range(1, 86400, "seconds"),
    "KVA_DB_POOL_SIZE": Range(1, 1000, "connections"),
    "KVA_IPV6_PREFIX": Range(32, 128, "bits"),
    "KVA_MAX_BODY_BYTES": Range(1, 1 << 30, "bytes"),
    "KVA_BODY_TIMEOUT": Range(1, 600, "seconds"),
    "KVA_FORCED_DELAY": Range(0, 60, "seconds"),
    "KVA_BOT_DELAY": Range(0, 60, "seconds"),
    "KVA_SEED_WAIT": Range(0, 600, "seconds"),
    "KVA_DISCONNECT_GRACE": Range(0, 86400, "seconds"),
    "KVA_FIRST_MOVE_TIMEOUT": Range(1, 86400, "seconds"),
    "KVA_WS_RATE": Range(0, 1_000_000, "frames a second"),
    "KVA_WS_BURST": Range(1, 1_000_000, "frames"),
    "KVA_WS_FLOOD": Range(1, 1_000_000, "frames"),
    "KVA_WS_PER_CLIENT": Range(1, 1_000_000, "sockets"),
    "KVA_WS_PER_MATCH": Range(1, 1_000_000, "sockets"),
    "KVA_WS_SPECTATORS_PER_CLIENT": Range(1, 1_000_000, "sockets"),
    "KVA_LOGIN_SUSPECT_MINUTES": Range(0, 10080, "minutes"),
    "KVA_CHALLENGES_PER_TARGET": Range(1, 10000, "challenges"),
    "KVA_ANALYSIS_QUEUE": Range(1, 10000, "matches"),
    "KVA_MAX_OPEN_TABLES": Range(0, 1000, "tables"),
    "KVA_BOT_HEARTBEAT": Range(0.1, 3600, "seconds"),
    "KVA_QUICK_BOT_OFFER": Range(1, 600, "seconds"),
}


def _plain(number: float) -> str:
    """``number`` as an operator writes it: ``1073741824``, ``0.1``, never ``1.07e+09``."""
    return str(int(number)) if float(number).is_integer() else str(number)


def check_range(name: str, value: float, raw: str) -> None:
    """ConfigurationError naming ``name``, its value and its range (:data:`RANGES`) unless
    ``value`` is in that range."""
    allowed = RANGES[name]
    if not allowed.holds(value):
        raise ConfigurationError(f"{name}={raw.strip()} is out of range: it must be from "
                                 f"{allowed.text()}")


def check_names(environ: Mapping[str, str]) -> None:
    """Refuse every ``KVA_*`` name in ``environ`` that is not a setting (except the exempt
    ``KVA_TEST_*`` ones and :data:`CLIENT_VARIABLES`), each with the known name closest to
    it."""
    unknown = sorted(name for name in environ if name.startswith("KVA_")
                     and not name.startswith(EXEMPT_PREFIX) and name not in KNOWN_VARIABLES
                     and name not in CLIENT_VARIABLES)
    if unknown:
        raise ConfigurationError("; ".join(
            f"unknown setting {name} (did you mean {closest_variable(name)}?)"
            for name in unknown) + "; docs/configuration.md lists them")


def closest_variable(name: str) -> str:
    """The known variable whose name is most like ``name``."""
    return difflib.get_close_matches(name, sorted(KNOWN_VARIABLES), n=1, cutoff=0.0)[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything configurable about a running platform, in groups."""

    # ---------------------------------------------------------------- server
    host: str = "127.0.0.1"
    port: int = 8000
    #: Per-message deflate on the WebSockets (``KVA_WS_DEFLATE``; ``kva serve`` only).
    ws_deflate: bool = True
    #: Seconds between two full garbage collections of a serving process
    #: (``KVA_GC_FULL_EVERY``; :func:`kva.web.runtime.collecting_old_garbage`).
    full_collection_every: float = 600.0
    #: nginx's ``upstream kva_match`` servers (``host:port``, ``KVA_UPSTREAMS``) and this
    #: process's own entry among them (``KVA_UPSTREAM_SELF``, by default ``KVA_HOST:KVA_PORT``):
    #: new match ids are drawn so that nginx's hash sends their sockets to this process, which
    #: then keeps the match instead of handing it over (docs/deployment.md). Empty: plain ids.
    upstreams: tuple[str, ...] = ()
    upstream_self: str | None = None

    # --------------------------------------------------------------- storage
    database_url: str
    broker_url: str | None
    #: PostgreSQL connections in one process's pool (``KVA_DB_POOL_SIZE``).
    db_pool_size: int = PG_POOL_SIZE
    #: Journal appends on the loop's own SQLite connection (``KVA_SQLITE_DIRECT_APPEND``) and
    #: on asyncpg connections of their own (``KVA_PG_DIRECT_APPEND``): off only to measure.
    sqlite_direct_append: bool = True
    pg_direct_append: bool = True

    # -------------------------------------------------------------- security
    secret_key: str
    secure_cookies: bool = False
    #: Origins (besides this site itself) whose pages may open WebSockets and post forms.
    allowed_origins: tuple[str, ...] = ()
    #: Reverse proxies whose ``X-Forwarded-*`` headers are believed (none by default).
    trusted_proxies: tuple[Network, ...] = ()
    #: Per-client limits count an IPv6 client as its whole ``/ipv6_prefix`` network
    #: (``KVA_IPV6_PREFIX``; :func:`kva.web.security.client_key`).
    ipv6_prefix: int = 64
    #: The largest request body any route reads (``KVA_MAX_BODY_BYTES``; kva.web.bodylimit).
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: Seconds a request's whole body may take to arrive (``KVA_BODY_TIMEOUT``), so a client
    #: trickling a body cannot hold a connection and a task open for ever (kva.web.bodylimit).
    body_timeout: float = DEFAULT_BODY_TIMEOUT

    # --------------------------------------------------------- play and clocks
    forced_delay: float = 0.6
    bot_delay: float = 0.8
    #: Seconds a seated player's browser has to send its kva-fair/1 client seed before the
    #: server chooses one (``KVA_SEED_WAIT``; docs/fairness.md).
    seed_wait: float = 5.0
    disconnect_grace: float = 60.0
    first_move_timeout: float = 120.0
    #: The time of each clock preset (``KVA_CLOCK_PRESETS``; docs/rules.md, "Time control").
    clock_presets: tuple[tuple[str, int, int], ...] = tuple(
        (name, move, reserve) for name, (move, reserve) in PRESETS.items())

    # ------------------------------------------------------ WebSocket limits
    #: Per socket, per client, per match (docs/configuration.md): frames a second and the
    #: burst allowed, refusals tolerated before a flooding socket is closed, live sockets per
    #: player (or address) on one process, spectators per match on one process, and
    #: spectators per address (and per user) on one match.
    ws_rate: float = 10.0
    ws_burst: int = 20
    ws_flood: int = 40
    ws_per_client: int = 16
    ws_per_match: int = 200
    ws_spectators_per_client: int = 4

    # ------------------------------------------------- rate limits and caps
    #: Where rate-limit counters live: ``memory://`` (one process) or ``redis://...``.
    rate_limit_storage: str = "memory://"
    login_rate_ip: str = RATE_DEFAULTS["login_ip"]
    login_rate_nickname: str = RATE_DEFAULTS["login_nickname"]
    login_rate_account: str = RATE_DEFAULTS["login_account"]
    register_rate_ip: str = RATE_DEFAULTS["register_ip"]
    login_rate_nickname_ip: str = RATE_DEFAULTS["login_nickname_ip"]
    table_password_rate_ip: str = RATE_DEFAULTS["table_password_ip"]
    table_password_rate_table: str = RATE_DEFAULTS["table_password_table"]
    table_create_rate_ip: str = RATE_DEFAULTS["table_create_ip"]
    bot_match_create_rate_ip: str = RATE_DEFAULTS["bot_match_create_ip"]
    guest_create_rate_ip: str = RATE_DEFAULTS["guest_create_ip"]
    analysis_rate_ip: str = RATE_DEFAULTS["analysis_ip"]
    challenge_rate_ip: str = RATE_DEFAULTS["challenge_ip"]
    #: Minutes a failed login sends its client's and its nickname's next logins to the
    #: suspect Argon2 lane (``KVA_LOGIN_SUSPECT_MINUTES``; 0: never).
    login_suspect_minutes: int = SUSPECT_MINUTES
    #: Pending challenges one player may be sent at once (``KVA_CHALLENGES_PER_TARGET``).
    challenges_per_target: int = DEFAULT_MAX_PENDING_TO_TARGET
    #: Matches waiting for (or in) post-game analysis at once (``KVA_ANALYSIS_QUEUE``).
    analysis_queue: int = DEFAULT_ANALYSIS_QUEUE
    #: Waiting open tables one player may have in the lobby at once.
    max_open_tables: int = 3
    #: Seconds before a Kozel quick-game searcher is offered bots (``KVA_QUICK_BOT_OFFER``).
    quick_bot_offer: float = QUICK_BOT_OFFER

    # --------------------------------------------------------------- bot API
    bot_api_rate: str = BOT_API_RATE
    bot_api_auth_fail_rate: str = BOT_API_AUTH_FAIL_RATE
    bot_heartbeat: float = BOT_HEARTBEAT

    def match_ids(self) -> Callable[[], str] | None:
        """What draws new match ids routed to this process (None: no upstreams configured).
        Raises ValueError when this process is not among the upstreams."""
        if not self.upstreams:
            return None
        me = self.upstream_self or f"{self.host}:{self.port}"
        try:
            return match_ids_for(self.upstreams, me)
        except ValueError as exc:
            raise ValueError(f"KVA_UPSTREAM_SELF: {exc}") from None

    def engine_options(self) -> EngineOptions:
        """The options of the database engine (:func:`kva.storage.db.create_engine`)."""
        return EngineOptions(pool_size=self.db_pool_size,
                             sqlite_direct_append=self.sqlite_direct_append,
                             pg_direct_append=self.pg_direct_append)

    def rate_limits(self) -> dict[str, str]:
        """The limits for :class:`kva.service.ratelimit.AuthRateLimiter`."""
        return {
            "login_ip": self.login_rate_ip,
            "login_nickname": self.login_rate_nickname,
            "login_account": self.login_rate_account,
            "login_nickname_ip": self.login_rate_nickname_ip,
            "register_ip": self.register_rate_ip,
            "table_password_ip": self.table_password_rate_ip,
            "table_password_table": self.table_password_rate_table,
            "table_create_ip": self.table_create_rate_ip,
            "bot_match_create_ip": self.bot_match_create_rate_ip,
            "guest_create_ip": self.guest_create_rate_ip,
            "analysis_ip": self.analysis_rate_ip,
            "challenge_ip": self.challenge_rate_ip,
        }

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *,
                 create_secret: bool = True) -> Settings:
        """The settings of ``environ`` (the process's environment by default); anything unset
        gets its default. :class:`ConfigurationError` names an unknown ``KVA_*`` variable
        (:func:`check_names`) or a bad value.

        Without ``KVA_SECRET_KEY`` the secret is the one kept in the data folder, created
        there the first time; ``create_secret=False`` (a command that signs nothing) leaves
        the folder alone and the secret empty when there is none yet."""
        env = _Environment(os.environ if environ is None else environ)
        check_names(env.environ)
        try:
            return cls(**_server(env), **_storage(env), **_security(env, create_secret),
                       **_play(env), **_websocket_limits(env), **_rate_limits(env),
                       **_caps(env), **_bot_api(env))
        except ConfigurationError:
            raise
        except ValueError as exc:  # a value the parsers refused, named in their message
            raise ConfigurationError(str(exc)) from None


# ------------------------------------------------------------------ reading
class _Environment:
    """The ``KVA_*`` variables of an environment, read as each setting's type; every method
    gives ``default`` for a variable that is unset (or set to nothing)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def text(self, name: str, default: str = "") -> str:
        return self.environ.get(name) or default

    def seconds(self, name: str, default: float) -> float:
        """A number of seconds, in its range (:data:`RANGES`)."""
        raw = self.text(name)
        if raw == "":
            return default
        try:
            value = float(raw)
        except ValueError:
            raise ConfigurationError(f"{name} must be a number of seconds, not {raw!r}") from None
        check_range(name, value, raw)
        return value

    def count(self, name: str, default: int) -> int:
        """A whole number, 0 or more, in its range (:data:`RANGES`)."""
        raw = self.text(name)
        if raw == "":
            return default
        value = parse_ascii_int(raw)
        if value is None:
            raise ConfigurationError(f"{name} must be a whole number, not {raw!r}")
        check_range(name, value, raw)
        return value

    def at_least_one(self, name: str, default: int) -> int:
        """A whole number of at least 1 (a WebSocket, size or pool limit), in its range."""
        raw = self.text(name)
        if raw.strip() == "":
            return default
        value = parse_ascii_int(raw)
        if value is None or value < 1:
            raise ConfigurationError(
                f"{name} must be a whole number of at least 1, not {raw!r}")
        check_range(name, value, raw)
        return value

    def switch(self, name: str, default: bool) -> bool:
        """On (``1``, ``true``, ``yes``, ``on``) or off (``0``, ``false``, ``no``, ``off``)."""
        raw = self.text(name).strip().lower()
        if raw == "":
            return default
        if raw in ("1", "true", "yes", "on"):
            return True
        if raw in ("0", "false", "no", "off"):
            return False
        raise ConfigurationError(f"{name} must be 1 (on) or 0 (off), not {raw!r}")

    def limit(self, name: str, default: str) -> str:
        """A rate limit (``"5/minute;30/hour"``), checked now."""
        raw = self.text(name, default)
        parse_limits(name, raw)
        return raw


def _server(env: _Environment) -> dict[str, Any]:
    port_raw = env.text("KVA_PORT", "8000")
    port = parse_ascii_int(port_raw, max_digits=5)
    if port is None:
        raise ConfigurationError(f"KVA_PORT must be a port number, not {port_raw!r}")
    check_range("KVA_PORT", port, port_raw)
    return {
        "host": env.text("KVA_HOST", "127.0.0.1"),
        "port": port,
        "ws_deflate": env.switch("KVA_WS_DEFLATE", True),
        "full_collection_every": env.seconds("KVA_GC_FULL_EVERY", 600.0),
        "upstreams": parse_upstreams(env.text("KVA_UPSTREAMS")),
        "upstream_self": env.text("KVA_UPSTREAM_SELF").strip() or None,
    }


def _data_dir(env: _Environment) -> Path:
    return Path(env.text("KVA_DATA_DIR", "var"))


def _storage(env: _Environment) -> dict[str, Any]:
    return {
        "database_url": _database_url(env),
        "broker_url": env.text("KVA_BROKER_URL") or None,
        "db_pool_size": env.at_least_one("KVA_DB_POOL_SIZE", PG_POOL_SIZE),
        "sqlite_direct_append": env.switch("KVA_SQLITE_DIRECT_APPEND", True),
        "pg_direct_append": env.switch("KVA_PG_DIRECT_APPEND", True),
    }


def _database_url(env: _Environment) -> str:
    """``KVA_DATABASE_URL`` with an async driver, else the SQLite file in ``KVA_DATA_DIR``."""
    return async_database_url(env.text("KVA_DATABASE_URL")
                              or f"sqlite+aiosqlite:///{_data_dir(env) / 'kva.sqlite3'}")


def _security(env: _Environment, create_secret: bool) -> dict[str, Any]:
    secret = env.text("KVA_SECRET_KEY")
    if not secret:
        secret = (persistent_secret(_data_dir(env)) if create_secret
                  else kept_secret(_data_dir(env)))
    return {
        "secret_key": secret,
        "secure_cookies": env.switch("KVA_SECURE_COOKIES", False),
        "allowed_origins": parse_allowed_origins(env.text("KVA_ALLOWED_ORIGINS")),
        "trusted_proxies": parse_trusted_proxies(env.text("KVA_TRUSTED_PROXIES")),
        "ipv6_prefix": _ipv6_prefix(env.text("KVA_IPV6_PREFIX"), 64),
        "max_body_bytes": env.at_least_one("KVA_MAX_BODY_BYTES", DEFAULT_MAX_BODY),
        "body_timeout": env.seconds("KVA_BODY_TIMEOUT", DEFAULT_BODY_TIMEOUT),
    }


def _play(env: _Environment) -> dict[str, Any]:
    return {
        "forced_delay": env.seconds("KVA_FORCED_DELAY", 0.6),
        "bot_delay": env.seconds("KVA_BOT_DELAY", 0.8),
        "seed_wait": env.seconds("KVA_SEED_WAIT", 5.0),
        "disconnect_grace": env.seconds("KVA_DISCONNECT_GRACE", 60.0),
        "first_move_timeout": env.seconds("KVA_FIRST_MOVE_TIMEOUT", 120.0),
        "clock_presets": _clock_presets(env.text("KVA_CLOCK_PRESETS")),
    }


def _websocket_limits(env: _Environment) -> dict[str, Any]:
    return {
        "ws_rate": env.seconds("KVA_WS_RATE", 10.0) or 10.0,  # 0: the default
        "ws_burst": env.at_least_one("KVA_WS_BURST", 20),
        "ws_flood": env.at_least_one("KVA_WS_FLOOD", 40),
        "ws_per_client": env.at_least_one("KVA_WS_PER_CLIENT", 16),
        "ws_per_match": env.at_least_one("KVA_WS_PER_MATCH", 200),
        "ws_spectators_per_client": env.at_least_one("KVA_WS_SPECTATORS_PER_CLIENT", 4),
    }


#: The rate limits' fields, their variables and their keys in ``RATE_DEFAULTS``.
_RATE_LIMITS = (
    ("login_rate_ip", "KVA_LOGIN_RATE_IP", "login_ip"),
    ("login_rate_nickname", "KVA_LOGIN_RATE_NICKNAME", "login_nickname"),
    ("login_rate_account", "KVA_LOGIN_RATE_ACCOUNT", "login_account"),
    ("register_rate_ip", "KVA_REGISTER_RATE_IP", "register_ip"),
    ("login_rate_nickname_ip", "KVA_LOGIN_RATE_NICKNAME_IP", "login_nickname_ip"),
    ("table_password_rate_ip", "KVA_TABLE_PASSWORD_RATE_IP", "table_password_ip"),
    ("table_password_rate_table", "KVA_TABLE_PASSWORD_RATE_TABLE", "table_password_table"),
    ("table_create_rate_ip", "KVA_TABLE_CREATE_RATE_IP", "table_create_ip"),
    ("bot_match_create_rate_ip", "KVA_BOT_MATCH_CREATE_RATE_IP", "bot_match_create_ip"),
    ("guest_create_rate_ip", "KVA_GUEST_CREATE_RATE_IP", "guest_create_ip"),
    ("analysis_rate_ip", "KVA_ANALYSIS_RATE_IP", "analysis_ip"),
    ("challenge_rate_ip", "KVA_CHALLENGE_RATE_IP", "challenge_ip"),
)


def _rate_limits(env: _Environment) -> dict[str, Any]:
    # Processes sharing a Redis broker share their rate-limit counters there by default.
    broker = env.text("KVA_BROKER_URL")
    shared = broker if broker.startswith(("redis://", "rediss://")) else ""
    values: dict[str, Any] = {
        field: env.limit(name, RATE_DEFAULTS[key]) for field, name, key in _RATE_LIMITS}
    values["rate_limit_storage"] = env.text("KVA_RATE_LIMIT_STORAGE") or shared or "memory://"
    values["login_suspect_minutes"] = env.count("KVA_LOGIN_SUSPECT_MINUTES", SUSPECT_MINUTES)
    return values


def _caps(env: _Environment) -> dict[str, Any]:
    return {
        "challenges_per_target": env.at_least_one("KVA_CHALLENGES_PER_TARGET",
                                                  DEFAULT_MAX_PENDING_TO_TARGET),
        "analysis_queue": env.at_least_one("KVA_ANALYSIS_QUEUE", DEFAULT_ANALYSIS_QUEUE),
        "max_open_tables": env.count("KVA_MAX_OPEN_TABLES", 3),
        "quick_bot_offer": env.seconds("KVA_QUICK_BOT_OFFER", QUICK_BOT_OFFER),
    }


def _bot_api(env: _Environment) -> dict[str, Any]:
    return {
        "bot_api_rate": env.limit("KVA_BOT_API_RATE", BOT_API_RATE),
        "bot_api_auth_fail_rate": env.limit("KVA_BOT_API_AUTH_FAIL_RATE", BOT_API_AUTH_FAIL_RATE),
        "bot_heartbeat": env.seconds("KVA_BOT_HEARTBEAT", BOT_HEARTBEAT),
    }


# ------------------------------------------------------------------ values
def _ipv6_prefix(raw: str, default: int) -> int:
    """``KVA_IPV6_PREFIX``: the prefix length per-client limits group IPv6 addresses by, 32 to
    128, or ``default``."""
    if raw.strip() == "":
        return default
    value = parse_ascii_int(raw, max_digits=3)
    if value is None:
        raise ConfigurationError(
            f"KVA_IPV6_PREFIX must be a prefix length from 32 to 128, not {raw!r}")
    check_range("KVA_IPV6_PREFIX", value, raw)
    return value


def _clock_presets(raw: str) -> tuple[tuple[str, int, int], ...]:
    """``KVA_CLOCK_PRESETS``: (name, seconds a move, seconds of reserve) of every preset."""
    try:
        presets = parse_presets(raw)
    except ValueError as exc:
        raise ConfigurationError(f"KVA_CLOCK_PRESETS: {exc}") from None
    return tuple((name, move, reserve) for name, (move, reserve) in presets.items())


def parse_upstreams(raw: str) -> tuple[str, ...]:
    """``KVA_UPSTREAMS``: comma-separated ``host:port`` entries, as nginx's upstream lists them
    (a clear error for anything else)."""
    upstreams = tuple(part.strip() for part in raw.split(",") if part.strip())
    if upstreams:
        try:
            HashRing(upstreams)
        except ValueError as exc:
            raise ConfigurationError(f"KVA_UPSTREAMS: {exc}") from None
    return upstreams


def async_database_url(url: str) -> str:
    """``url`` with an async driver: ``postgresql://`` becomes ``postgresql+asyncpg://`` and
    ``sqlite://`` becomes ``sqlite+aiosqlite://``; URLs naming a driver are kept as given."""
    for plain, driver in (("postgresql://", "postgresql+asyncpg://"),
                          ("postgres://", "postgresql+asyncpg://"),
                          ("sqlite://", "sqlite+aiosqlite://")):
        if url.startswith(plain):
            return driver + url[len(plain):]
    return url


def persistent_secret(data_dir: Path) -> str:
    """A secret key kept in ``data_dir/secret_key`` (created once), so sessions outlive a
    restart even when ``KVA_SECRET_KEY`` is not set."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


def kept_secret(data_dir: Path) -> str:
    """The secret key kept in ``data_dir/secret_key``, or "" when there is none yet."""
    path = data_dir / "secret_key"
    return path.read_text().strip() if path.exists() else ""
