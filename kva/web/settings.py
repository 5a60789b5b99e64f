"""Platform settings from the environment, with defaults that run out of the box.

Every variable is documented in ``docs/configuration.md``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kva.rules import parse_ascii_int
from kva.service.analysis import DEFAULT_MAX_QUEUE as DEFAULT_ANALYSIS_QUEUE
from kva.service.botapi import DEFAULT_MAX_PENDING_TO_TARGET
from kva.service.play.clock import PRESETS, parse_presets
from kva.service.ratelimit import DEFAULTS as RATE_DEFAULTS
from kva.service.ratelimit import SUSPECT_MINUTES, parse_limits
from kva.service.routing import HashRing, match_ids_for
from kva.web.bodylimit import DEFAULT_MAX_BODY
from kva.web.security import Network, parse_allowed_origins, parse_trusted_proxies


def _positive_float(name: str, default: float) -> float:
    value = _float(name, default)
    if value == 0:
        raise ValueError(f"{name} must be more than 0 seconds")
    return value


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative")
    return value


def _count(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = parse_ascii_int(raw)
    if value is None:
        raise ValueError(f"{name} must be a whole number, not {raw!r}")
    return value


def _ws_count(name: str, default: int) -> int:
    """A positive whole number from ``name`` (a WebSocket or size limit), or ``default``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = parse_ascii_int(raw)
    if value is None or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {raw!r}")
    return value


def _ipv6_prefix(name: str, default: int) -> int:
    """The IPv6 prefix length per-client limits group addresses by: 32 to 128, or ``default``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = parse_ascii_int(raw, max_digits=3)
    if value is None or not 32 <= value <= 128:
        raise ValueError(f"{name} must be a prefix length from 32 to 128, not {raw!r}")
    return value


def _limit(name: str, key: str) -> str:
    """A rate limit from ``name`` (``"5/minute;30/hour"``), checked now, or the default."""
    raw = os.environ.get(name) or RATE_DEFAULTS[key]
    parse_limits(name, raw)
    return raw


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


def parse_upstreams(raw: str) -> tuple[str, ...]:
    """``KVA_UPSTREAMS``: comma-separated ``host:port`` entries, as nginx's upstream lists them
    (a clear error for anything else)."""
    upstreams = tuple(part.strip() for part in raw.split(",") if part.strip())
    if upstreams:
        try:
            HashRing(upstreams)
        except ValueError as exc:
            raise ValueError(f"KVA_UPSTREAMS: {exc}") from None
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


def _clock_presets() -> tuple[tuple[str, int, int], ...]:
    """``KVA_CLOCK_PRESETS``: (name, seconds a move, seconds of reserve) of every preset."""
    try:
        presets = parse_presets(os.environ.get("KVA_CLOCK_PRESETS", ""))
    except ValueError as exc:
        raise ValueError(f"KVA_CLOCK_PRESETS: {exc}") from None
    return tuple((name, move, reserve) for name, (move, reserve) in presets.items())


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything configurable about a running platform."""

    database_url: str
    broker_url: str | None
    secret_key: str
    host: str = "127.0.0.1"
    port: int = 8000
    forced_delay: float = 0.6
    bot_delay: float = 0.8
    #: Seconds a seated player's browser has to send its kva-fair/1 client seed before the
    #: server chooses one (``KVA_SEED_WAIT``; docs/fairness.md).
    seed_wait: float = 5.0
    #: Seconds between two full garbage collections of a serving process
    #: (``KVA_GC_FULL_EVERY``; :func:`kva.web.runtime.collecting_old_garbage`).
    full_collection_every: float = 600.0
    secure_cookies: bool = False
    disconnect_grace: float = 60.0
    first_move_timeout: float = 120.0
    #: The time of each clock preset (``KVA_CLOCK_PRESETS``; docs/rules.md, "Time control").
    clock_presets: tuple[tuple[str, int, int], ...] = tuple(
        (name, move, reserve) for name, (move, reserve) in PRESETS.items())
    #: WebSocket limits (per socket, per client, per match; docs/configuration.md): frames a
    #: second and the burst allowed, refusals tolerated before a flooding socket is closed,
    #: live sockets per player (or address) on one process, spectators per match on one
    #: process, and spectators per address (and per user) on one match.
    ws_rate: float = 10.0
    ws_burst: int = 20
    ws_flood: int = 40
    ws_per_client: int = 16
    ws_per_match: int = 200
    ws_spectators_per_client: int = 4
    #: Origins (besides this site itself) whose pages may open WebSockets and post forms.
    allowed_origins: tuple[str, ...] = ()
    #: Where rate-limit counters live: ``memory://`` (one process) or ``redis://...``.
    rate_limit_storage: str = "memory://"
    login_rate_ip: str = RATE_DEFAULTS["login_ip"]
    login_rate_nickname: str = RATE_DEFAULTS["login_nickname"]
    register_rate_ip: str = RATE_DEFAULTS["register_ip"]
    login_rate_nickname_ip: str = RATE_DEFAULTS["login_nickname_ip"]
    table_password_rate_ip: str = RATE_DEFAULTS["table_password_ip"]
    table_password_rate_table: str = RATE_DEFAULTS["table_password_table"]
    table_create_rate_ip: str = RATE_DEFAULTS["table_create_ip"]
    bot_match_create_rate_ip: str = RATE_DEFAULTS["bot_match_create_ip"]
    guest_create_rate_ip: str = RATE_DEFAULTS["guest_create_ip"]
    analysis_rate_ip: str = RATE_DEFAULTS["analysis_ip"]
    challenge_rate_ip: str = RATE_DEFAULTS["challenge_ip"]
    #: Pending challenges one player may be sent at once (``KVA_CHALLENGES_PER_TARGET``).
    challenges_per_target: int = DEFAULT_MAX_PENDING_TO_TARGET
    #: Matches waiting for (or in) post-game analysis at once (``KVA_ANALYSIS_QUEUE``).
    analysis_queue: int = DEFAULT_ANALYSIS_QUEUE
    #: Minutes a failed login sends its client's and its nickname's next logins to the
    #: suspect Argon2 lane (``KVA_LOGIN_SUSPECT_MINUTES``; 0: never).
    login_suspect_minutes: int = SUSPECT_MINUTES
    #: Waiting open tables one player may have in the lobby at once.
    max_open_tables: int = 3
    #: Reverse proxies whose ``X-Forwarded-*`` headers are believed (none by default).
    trusted_proxies: tuple[Network, ...] = ()
    #: Per-client limits count an IPv6 client as its whole ``/ipv6_prefix`` network
    #: (``KVA_IPV6_PREFIX``; :func:`kva.web.security.client_key`).
    ipv6_prefix: int = 64
    #: The largest request body any route reads (``KVA_MAX_BODY_BYTES``; kva.web.bodylimit).
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: nginx's ``upstream kva_match`` servers (``host:port``, ``KVA_UPSTREAMS``) and this
    #: process's own entry among them (``KVA_UPSTREAM_SELF``, by default ``KVA_HOST:KVA_PORT``):
    #: new match ids are drawn so that nginx's hash sends their sockets to this process, which
    #: then keeps the match instead of handing it over (docs/deployment.md). Empty: plain ids.
    upstreams: tuple[str, ...] = ()
    upstream_self: str | None = None

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

    def rate_limits(self) -> dict[str, str]:
        """The limits for :class:`kva.service.ratelimit.AuthRateLimiter`."""
        return {
            "login_ip": self.login_rate_ip,
            "login_nickname": self.login_rate_nickname,
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
    def from_env(cls) -> Settings:
        """Read ``KVA_*`` variables; anything unset gets the embedded default."""
        data_dir = Path(os.environ.get("KVA_DATA_DIR") or "var")
        database_url = async_database_url(os.environ.get("KVA_DATABASE_URL") or (
            f"sqlite+aiosqlite:///{data_dir / 'kva.sqlite3'}"
        ))
        secret = os.environ.get("KVA_SECRET_KEY") or persistent_secret(data_dir)
        port_raw = os.environ.get("KVA_PORT") or "8000"
        port_number = parse_ascii_int(port_raw, max_digits=5)
        if port_number is None:
            raise ValueError(f"KVA_PORT must be a port number, not {port_raw!r}")
        port = port_number
        # Processes sharing a Redis broker share their rate-limit counters there by default.
        broker_raw = os.environ.get("KVA_BROKER_URL") or ""
        host = os.environ.get("KVA_HOST") or "127.0.0.1"
        shared_limits = broker_raw if broker_raw.startswith(("redis://", "rediss://")) else ""
        return cls(
            database_url=database_url,
            broker_url=os.environ.get("KVA_BROKER_URL") or None,
            secret_key=secret,
            host=host,
            port=port,
            forced_delay=_float("KVA_FORCED_DELAY", 0.6),
            bot_delay=_float("KVA_BOT_DELAY", 0.8),
            seed_wait=_float("KVA_SEED_WAIT", 5.0),
            full_collection_every=_positive_float("KVA_GC_FULL_EVERY", 600.0),
            secure_cookies=os.environ.get("KVA_SECURE_COOKIES", "") in ("1", "true", "yes"),
            disconnect_grace=_float("KVA_DISCONNECT_GRACE", 60.0),
            first_move_timeout=_float("KVA_FIRST_MOVE_TIMEOUT", 120.0),
            clock_presets=_clock_presets(),
            ws_rate=_float("KVA_WS_RATE", 10.0) or 10.0,
            ws_burst=_ws_count("KVA_WS_BURST", 20),
            ws_flood=_ws_count("KVA_WS_FLOOD", 40),
            ws_per_client=_ws_count("KVA_WS_PER_CLIENT", 16),
            ws_per_match=_ws_count("KVA_WS_PER_MATCH", 200),
            ws_spectators_per_client=_ws_count("KVA_WS_SPECTATORS_PER_CLIENT", 4),
            allowed_origins=parse_allowed_origins(os.environ.get("KVA_ALLOWED_ORIGINS", "")),
            rate_limit_storage=(os.environ.get("KVA_RATE_LIMIT_STORAGE") or shared_limits
                                or "memory://"),
            login_rate_ip=_limit("KVA_LOGIN_RATE_IP", "login_ip"),
            login_rate_nickname=_limit("KVA_LOGIN_RATE_NICKNAME", "login_nickname"),
            register_rate_ip=_limit("KVA_REGISTER_RATE_IP", "register_ip"),
            login_rate_nickname_ip=_limit("KVA_LOGIN_RATE_NICKNAME_IP", "login_nickname_ip"),
            table_password_rate_ip=_limit("KVA_TABLE_PASSWORD_RATE_IP", "table_password_ip"),
            table_password_rate_table=_limit("KVA_TABLE_PASSWORD_RATE_TABLE",
                                             "table_password_table"),
            table_create_rate_ip=_limit("KVA_TABLE_CREATE_RATE_IP", "table_create_ip"),
            bot_match_create_rate_ip=_limit("KVA_BOT_MATCH_CREATE_RATE_IP",
                                            "bot_match_create_ip"),
            guest_create_rate_ip=_limit("KVA_GUEST_CREATE_RATE_IP", "guest_create_ip"),
            analysis_rate_ip=_limit("KVA_ANALYSIS_RATE_IP", "analysis_ip"),
            challenge_rate_ip=_limit("KVA_CHALLENGE_RATE_IP", "challenge_ip"),
            challenges_per_target=_ws_count("KVA_CHALLENGES_PER_TARGET",
                                            DEFAULT_MAX_PENDING_TO_TARGET),
            analysis_queue=_ws_count("KVA_ANALYSIS_QUEUE", DEFAULT_ANALYSIS_QUEUE),
            login_suspect_minutes=_count("KVA_LOGIN_SUSPECT_MINUTES", SUSPECT_MINUTES),
            max_open_tables=_count("KVA_MAX_OPEN_TABLES", 3),
            trusted_proxies=parse_trusted_proxies(os.environ.get("KVA_TRUSTED_PROXIES", "")),
            ipv6_prefix=_ipv6_prefix("KVA_IPV6_PREFIX", 64),
            max_body_bytes=_ws_count("KVA_MAX_BODY_BYTES", DEFAULT_MAX_BODY),
            upstreams=parse_upstreams(os.environ.get("KVA_UPSTREAMS", "")),
            upstream_self=os.environ.get("KVA_UPSTREAM_SELF", "").strip() or None,
        )
