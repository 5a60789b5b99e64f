"""Password hashes (accounts and closed tables): Argon2 (pwdlib), on small pools of their own.

Argon2 is made to be expensive (64 MiB and about 0.17 s of one core per hash or check here), so
an unbounded number of them at once is a denial of service: every waiting check holds memory
and every running one a core. Each kind of work therefore has its own bounded lane:

* ``account`` (registering, and logging in when nothing makes the login suspect):
  :data:`ACCOUNT_THREADS` threads;
* ``suspect`` (logins from a client, or for a nickname, that failed a login recently, or
  from a client refused one unchecked:
  :meth:`kva.service.ratelimit.AuthRateLimiter.login_suspect`): :data:`SUSPECT_THREADS`
  thread at a lower CPU priority (:data:`SUSPECT_NICE`), so wrong logins, however many
  addresses they come from after their first failure, never fill the lane honest logins are
  checked on;
* ``table`` (closed-table passwords, which anyone with a link may try): :data:`TABLE_THREADS`
  thread, run at a lower CPU priority (:data:`TABLE_NICE`), so guessing table passwords can
  never take the cores honest logins need.

A thread count alone does not bound the cores a lane takes: libargon2 runs each hash's lanes
(pwdlib's ``parallelism=4``) on threads of its own, so one check spreads over every core. On
2 cores a single table-password check thus slowed honest logins down as much as a second login
would (``kva bench auth``: login p95 1.9-3.4x idle). Linux keeps a nice value per thread and
libargon2's threads inherit their creator's, so the table lane's threads are made nicer and the
scheduler gives their CPU to the account lane whenever both want it (docs/performance.md).

A lane takes at most its threads plus :data:`QUEUE` waiting jobs; one more is refused at once
with :class:`PasswordsBusy` (the web answers 503 with ``Retry-After``) instead of queueing
memory and latency for everyone. A client has at most one login being checked at a time, and
so has an account (:func:`one_at_a_time`): another is refused with :class:`PasswordsInFlight`
or :class:`AccountInFlight`, without hashing, so each address an attacker holds has at most
one guess in a lane, and one account logged in to from many addresses at once (its password
or guesses at it) at most one check.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, TypeVar

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

_HASHER = PasswordHash((Argon2Hasher(),))
Lane = Literal["account", "suspect", "table"]
#: Threads per lane.
ACCOUNT_THREADS = 2
SUSPECT_THREADS = 1
TABLE_THREADS = 1
#: Jobs that may wait in a lane besides the running ones.
QUEUE = 4
#: Nice value of the table lane's threads (Linux; 0 elsewhere): it yields the CPU to logins.
TABLE_NICE = 15
#: Nice value of the suspect lane's threads: a guesser's checks yield the CPU to honest logins.
SUSPECT_NICE = TABLE_NICE
T = TypeVar("T")


class PasswordsBusy(RuntimeError):
    """Too many password hashes or checks are waiting in this lane: try again shortly."""


class PasswordsInFlight(PasswordsBusy):
    """This client already has a login being checked: it waits for that answer first."""


class AccountInFlight(PasswordsInFlight):
    """This account already has a login being checked (from any client): try again shortly."""


class _Pool:
    """A thread pool that refuses work instead of queueing more than ``threads + queue``."""

    def __init__(self, name: str, threads: int, queue: int, nice: int = 0) -> None:
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name,
                                            initializer=_be_nice, initargs=(nice,))
        self._limit = threads + queue
        self._pending = 0
        self._lock = threading.Lock()  # servers in tests run one event loop per thread

    async def run(self, fn: Callable[..., T], *args: str) -> T:
        with self._lock:
            if self._pending >= self._limit:
                raise PasswordsBusy("password checks are busy")
            self._pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, fn, *args)
        finally:
            with self._lock:
                self._pending -= 1


def _be_nice(nice: int) -> None:
    """Lower this thread's CPU priority by ``nice`` (Linux: per thread, inherited by the
    threads libargon2 starts from it); nothing elsewhere or when refused."""
    if nice and sys.platform == "linux":
        with contextlib.suppress(OSError):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid)
                                                     + nice))


_POOLS: dict[str, _Pool] = {
    "account": _Pool("argon2-account", ACCOUNT_THREADS, QUEUE),
    "suspect": _Pool("argon2-suspect", SUSPECT_THREADS, QUEUE, SUSPECT_NICE),
    "table": _Pool("argon2-table", TABLE_THREADS, QUEUE, TABLE_NICE),
}


async def hash_password(password: str, lane: Lane = "account") -> str:
    """The Argon2 hash of ``password`` (PasswordsBusy when the lane is full)."""
    return await _POOLS[lane].run(_HASHER.hash, password)


async def verify_password(password: str, hashed: str, lane: Lane = "account") -> bool:
    """Whether ``password`` matches ``hashed`` (PasswordsBusy when the lane is full)."""
    return await _POOLS[lane].run(_HASHER.verify, password, hashed)


#: Clients (``client|`` + ``client_key``) and accounts (``nickname|`` + nickname key) with a
#: login being checked now, on this process.
_IN_FLIGHT: set[str] = set()
_IN_FLIGHT_LOCK = threading.Lock()  # servers in tests run one event loop per thread


@contextlib.contextmanager
def one_at_a_time(client: str, nickname_key: str | None = None) -> Iterator[None]:
    """Hold ``client``'s and ``nickname_key``'s one place in the login lanes for the block.

    Refused at once, nothing hashed: :class:`PasswordsInFlight` when the client already has a
    login being checked, :class:`AccountInFlight` when the account does (from anywhere). So
    however many addresses log in to one account at once, with its password or without, that
    account has one check in a lane and the rest of the lane stays free for everyone else.
    """
    keys = [f"client|{client}"] + ([f"nickname|{nickname_key}"] if nickname_key else [])
    with _IN_FLIGHT_LOCK:
        if keys[0] in _IN_FLIGHT:
            raise PasswordsInFlight("a login from this client is being checked")
        if len(keys) > 1 and keys[1] in _IN_FLIGHT:
            raise AccountInFlight("a login to this account is being checked")
        _IN_FLIGHT.update(keys)
    try:
        yield
    finally:
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.difference_update(keys)
