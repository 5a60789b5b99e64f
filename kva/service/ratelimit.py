"""Rate limits on logging in, registering, guessing table passwords and opening tables.

Built on the ``limits`` library (moving windows). Storage is in memory by default, which is
right for one ``kva serve`` process; ``redis://`` shares the counters between processes.

What is counted (defaults in :data:`DEFAULTS`, settings in docs/configuration.md):

* every login or registration attempt, per client IP address;
* every *failed* login, per (nickname, IP address): a short window that slows a guesser down
  without locking the real owner out, who logs in from another address;
* every *failed* login, per nickname whatever the address, far higher: a guesser spread over
  many addresses still meets a ceiling (a known device of the account is exempt);
* every *successful* login, per account (nickname), whatever the address or device: an
  account's own password, looped from many addresses, cannot keep the Argon2 lane busy;
* every registration, per client IP address (accounts are not free to mass-produce);
* every table-password attempt, per client, and every wrong one per table: the table's
  ceiling refuses only the clients that guessed wrong on it;
* every table opened, per client IP address;
* every match against a bot started, per client IP address;
* every guest user created (a visitor with no session who acts), per client IP address:
  each is a user and a session row, so a cookie-less flood must not write them unbounded;
* every request for a match's analysis, per client IP address;
* every challenge sent (from the Bots page or the bot API), per client IP address.

Failed logins also mark their client and their nickname as *suspect* for
``suspect_minutes`` (``KVA_LOGIN_SUSPECT_MINUTES``), and logins refused unchecked their
client: :meth:`AuthRateLimiter.login_suspect`
sends such a login to the small suspect Argon2 lane (:mod:`kva.service.accounts.passwords`) instead
of the one honest logins are checked on. That is not a refusal, only a place in line.

A refused attempt is refused before any password is hashed or checked, so the limit also
bounds the CPU an attacker can make the server spend on Argon2.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import cast

from limits import RateLimitItemPerMinute
from limits.aio.storage import Storage as AsyncStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from kva.settings.ratelimits import DEFAULTS, SUSPECT_MINUTES, parse_limits

#: The storage namespace of wrong table passwords per (table, client).
_TABLE_CLIENT = "table_password_table_client"
#: The storage namespace of recent failed logins per client and per nickname (suspects).
_SUSPECT = "login_suspect"
#: Failures remembered per client or nickname within those minutes: more than the per-address
#: limits let through, so the window only empties once the failures stop.
_SUSPECT_KEPT = 1000


@dataclass(frozen=True, slots=True)
class Refusal:
    """An attempt refused: which limit, and seconds until it may be tried again."""

    scope: str
    retry_after: int


class AuthRateLimiter:
    """The counters of login and registration attempts (one per application)."""

    def __init__(self, storage_url: str = "memory://",
                 limits: dict[str, str] | None = None,
                 suspect_minutes: int = SUSPECT_MINUTES) -> None:
        config = {**DEFAULTS, **(limits or {})}
        unknown = set(config) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown rate limits: {sorted(unknown)}")
        self._items = {name: parse_limits(name, text) for name, text in config.items()}
        if suspect_minutes < 0:
            raise ValueError(f"suspect_minutes must be 0 or more, not {suspect_minutes}")
        self._suspect = (RateLimitItemPerMinute(_SUSPECT_KEPT, suspect_minutes)
                         if suspect_minutes else None)
        storage: AsyncStorage
        if storage_url.startswith(("redis://", "rediss://")):
            storage = cast(AsyncStorage, storage_from_string(
                "async+" + storage_url, implementation="redispy", key_prefix="kva-limits"))
        elif storage_url in ("memory://", "memory", ""):
            storage = cast(AsyncStorage, storage_from_string("async+memory://"))
        else:
            raise ValueError(f"unsupported rate-limit storage {storage_url!r} "
                             "(expected memory:// or redis://...)")
        self._storage = storage
        self._limiter = MovingWindowRateLimiter(storage)

    async def _blocked(self, scope: str, key: str) -> Refusal | None:
        """The refusal if any limit of ``scope`` is used up for ``key`` (counts nothing)."""
        for item in self._items[scope]:
            if not await self._limiter.test(item, scope, key):
                stats = await self._limiter.get_window_stats(item, scope, key)
                return Refusal(scope, max(1, int(stats.reset_time - time.time()) + 1))
        return None

    async def _hit(self, scope: str, key: str) -> None:
        for item in self._items[scope]:
            await self._limiter.hit(item, scope, key)

    async def check_login(self, ip: str, nickname_key: str,
                          known_device: bool = False) -> Refusal | None:
        """Count one login attempt from ``ip``; the refusal if it must not be tried now.

        A ``known_device`` (the account signed in from this browser before) is exempt from
        the per-nickname ceiling on failures, so guessers spread over many addresses cannot
        lock the owner out; it still meets the per-address and per-(nickname, address) limits
        and the account's ceiling on successful logins."""
        refusal = (await self._blocked("login_ip", ip)
                   or await self._blocked("login_nickname_ip", f"{nickname_key}|{ip}")
                   or await self._blocked("login_account", nickname_key))
        if refusal is None and not known_device:
            refusal = await self._blocked("login_nickname", nickname_key)
        if refusal is None:
            await self._hit("login_ip", ip)
        return refusal

    async def login_failed(self, nickname_key: str, ip: str = "unknown") -> None:
        """Count a failed login against ``nickname_key`` from ``ip`` (and from anywhere), and
        mark both suspect for a while."""
        await self._hit("login_nickname_ip", f"{nickname_key}|{ip}")
        await self._hit("login_nickname", nickname_key)
        await self._mark_suspect(f"ip|{ip}", f"nickname|{nickname_key}")

    async def login_succeeded(self, nickname_key: str) -> None:
        """Count a successful login to the account ``nickname_key`` (from anywhere)."""
        await self._hit("login_account", nickname_key)

    async def login_refused(self, ip: str) -> None:
        """Mark ``ip`` suspect for a login refused unchecked (the lanes full, or one of its
        logins still being checked), so a guesser cannot retry its way onto the trusted lane.
        Not the nickname, which nobody failed on, and no limit counts it."""
        await self._mark_suspect(f"ip|{ip}")

    async def _mark_suspect(self, *keys: str) -> None:
        if self._suspect is not None:
            for key in keys:
                await self._limiter.hit(self._suspect, _SUSPECT, key)

    async def login_suspect(self, ip: str, nickname_key: str,
                            known_device: bool = False) -> bool:
        """Whether a login from ``ip`` for ``nickname_key`` is suspect: either of them failed
        a login within the last ``suspect_minutes`` (counts nothing).

        A ``known_device`` of the account lifts the nickname's mark (guessers at the owner's
        nickname do not send the owner to their lane), never the address's: a device cookie
        copied to many addresses is no way back onto the honest lane for an address that
        failed or was refused."""
        if self._suspect is None:
            return False
        keys = [f"ip|{ip}"] + ([] if known_device else [f"nickname|{nickname_key}"])
        for key in keys:
            stats = await self._limiter.get_window_stats(self._suspect, _SUSPECT, key)
            if stats.remaining < self._suspect.amount:
                return True
        return False

    async def check_table_password(self, client: str, table: str) -> Refusal | None:
        """Count one table-password attempt from ``client``; the refusal if ``client`` has
        used up its guesses, or the table its wrong ones and ``client`` made some of them.

        The table's ceiling refuses only clients that already guessed wrong on it, so a
        friend who types the right password from a fresh address is never locked out; each
        new address still gets one guess at a table under attack, and is bounded by its own
        per-client limit everywhere.
        """
        refusal = await self._blocked("table_password_ip", client)
        if refusal is None and await self._failed_here(table, client):
            refusal = await self._blocked("table_password_table", table)
        if refusal is None:
            await self._hit("table_password_ip", client)
        return refusal

    async def _failed_here(self, table: str, client: str) -> bool:
        """Whether ``client`` guessed wrong on ``table`` within its ceiling's windows."""
        for item in self._items["table_password_table"]:
            stats = await self._limiter.get_window_stats(item, _TABLE_CLIENT, f"{table}|{client}")
            if stats.remaining < item.amount:
                return True
        return False

    async def table_password_failed(self, table: str, client: str) -> None:
        """Count a wrong password for ``table`` from ``client``."""
        await self._hit("table_password_table", table)
        for item in self._items["table_password_table"]:
            await self._limiter.hit(item, _TABLE_CLIENT, f"{table}|{client}")

    async def check(self, scope: str, key: str) -> Refusal | None:
        """Count one attempt of ``scope`` from ``key``; the refusal if it must not be made now."""
        refusal = await self._blocked(scope, key)
        if refusal is None:
            await self._hit(scope, key)
        return refusal

    async def check_table_create(self, ip: str) -> Refusal | None:
        """Count one new table from ``ip``; the refusal if it must not be opened now."""
        return await self.check("table_create_ip", ip)

    async def check_bot_match_create(self, ip: str) -> Refusal | None:
        """Count one new match against a bot from ``ip``; the refusal if it must wait."""
        return await self.check("bot_match_create_ip", ip)

    async def check_guest_create(self, ip: str) -> Refusal | None:
        """Count one new guest user from ``ip``; the refusal if none may be created now."""
        return await self.check("guest_create_ip", ip)

    async def check_register(self, ip: str) -> Refusal | None:
        """Count one registration attempt from ``ip``; the refusal if it must not be tried."""
        refusal = await self._blocked("login_ip", ip) or await self._blocked("register_ip", ip)
        if refusal is None:
            await self._hit("login_ip", ip)
            await self._hit("register_ip", ip)
        return refusal

    async def reset(self) -> None:
        """Forget every counter (tests and operators)."""
        await self._storage.reset()
