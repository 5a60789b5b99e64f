"""The fair login lane: wrong logins cannot take the Argon2 threads honest logins need.

A login from a client (``client_key``) that failed or was refused recently, or for a nickname
that failed recently, is a suspect and is checked on the small ``suspect`` lane; everyone else
on the ``account`` lane. A known device of the account lifts the nickname's mark, never the
client's. A client, and an account, has at most one login being checked at a time, and an
account at most so many successful logins a minute.

Argon2 is replaced by a stub so that these tests are fast and decide themselves when the lanes
are full: right passwords are checked at once, guesses (``guess…``) wait at a gate.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from kva.service.accounts import passwords
from kva.service.accounts import registration as accounts
from kva.service.ratelimit import AuthRateLimiter
from tests.helpers.accounts_help import PASSWORD, new_nickname, register, registered
from tests.helpers.webhelp import Visitor

GUESSERS = 12


class GatedHasher:
    """Stands in for pwdlib's Argon2 hasher; records which lane thread checked what."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.gate.set()
        self.checked: list[tuple[str, str]] = []  # (password, thread name)
        self._lock = threading.Lock()

    def hash(self, password: str) -> str:
        return "stub$" + password

    def verify(self, password: str, hashed: str) -> bool:
        with self._lock:
            self.checked.append((password, threading.current_thread().name))
        if password.startswith("guess"):
            self.gate.wait(15)
        return hashed == "stub$" + password

    def lane_of(self, password: str) -> str:
        """The lane (thread name prefix) that checked ``password`` last."""
        names = [name for p, name in self.checked if p == password]
        assert names, f"{password!r} was never checked"
        return names[-1].rsplit("_", 1)[0]


@pytest.fixture
def hasher(monkeypatch: pytest.MonkeyPatch) -> Iterator[GatedHasher]:
    stub = GatedHasher()
    monkeypatch.setattr(passwords, "_HASHER", stub)
    monkeypatch.setattr(accounts, "_DUMMY_HASH", None)  # unknown nicknames check a stub hash
    try:
        yield stub
    finally:
        stub.gate.set()


async def _login_from(base_url: str, address: str, nickname: str, password: str = PASSWORD,
                      device: str | None = None) -> httpx.Response:
    """A login from the client ``address`` (``X-Forwarded-For``), with a ``kva_device``."""
    cookies = {"kva_device": device} if device is not None else {}
    async with httpx.AsyncClient(base_url=base_url, headers={"x-forwarded-for": address},
                                 cookies=cookies, timeout=20) as http:
        return await http.post("/login", data={"nickname": nickname, "password": password})


def _guesser(i: int) -> str:
    return f"203.0.113.{i + 1}"


async def _guessers_fail_once(base_url: str, nickname: Callable[[int], str]) -> None:
    """Every guesser address makes one wrong login (answered at once: the gate is open)."""
    for i in range(GUESSERS):
        r = await _login_from(base_url, _guesser(i), nickname(i), f"wrong-{i}-pw")
        assert r.status_code == 400


def _waiting() -> int:
    """Password checks running or waiting in any lane of this process."""
    return sum(pool._pending for pool in passwords._POOLS.values())


async def _flood(base_url: str, nickname: Callable[[int], str], password: str | None = None,
                 device: str | None = None) -> list[asyncio.Task[Any]]:
    """Every guesser sends one more login (a wrong ``guess-…`` password unless ``password``),
    all at once; returns when each was either refused or is running or waiting in a lane (the
    gate holds them there)."""
    tasks = [asyncio.ensure_future(_login_from(base_url, _guesser(i), nickname(i),
                                               password or f"guess-{i}-pw", device))
             for i in range(GUESSERS)]
    for _ in range(1000):
        if _waiting() + sum(t.done() for t in tasks) == GUESSERS:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError(f"the flood did not settle: {_waiting()} in lanes")
    return tasks


async def _release(hasher: GatedHasher, tasks: list[asyncio.Task[Any]]) -> list[int]:
    hasher.gate.set()
    return [r.status_code for r in await asyncio.gather(*tasks)]


async def test_an_honest_login_is_answered_while_guessers_flood_wrong_logins(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    await owner.__aexit__()
    await _guessers_fail_once(server.base_url, lambda i: f"victim{i}")
    hasher.gate.clear()
    flood = await _flood(server.base_url, lambda i: f"victim{i}")
    try:
        refused = [t.result() for t in flood if t.done()]
        assert refused and all(r.status_code == 503 and r.headers["retry-after"]
                               for r in refused)
        # A fresh address with the right password: answered, not 503.
        r = await _login_from(server.base_url, "198.51.100.7", name)
        assert r.status_code == 303, r.text
    finally:
        statuses = await _release(hasher, flood)
    assert set(statuses) <= {400, 503}


async def test_a_client_has_one_login_checked_at_a_time(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    await owner.__aexit__()
    hasher.gate.clear()
    first = asyncio.ensure_future(_login_from(server.base_url, "203.0.113.50", "someone",
                                              "guess-first"))
    try:
        for _ in range(1000):
            if hasher.checked and hasher.checked[-1][0] == "guess-first":
                break
            await asyncio.sleep(0.01)
        checks = len(hasher.checked)
        # The same client again, even with the right password: refused without hashing.
        r = await _login_from(server.base_url, "203.0.113.50", name)
        assert r.status_code == 429 and 'data-code="login_in_flight"' in r.text
        assert int(r.headers["retry-after"]) >= 1
        assert len(hasher.checked) == checks
        # Another client meanwhile is not held up.
        assert (await _login_from(server.base_url, "203.0.113.51", name)).status_code == 303
    finally:
        hasher.gate.set()
    assert (await first).status_code == 400
    # Once answered, the client may log in again.
    assert (await _login_from(server.base_url, "203.0.113.50", name)).status_code == 303


async def test_suspects_never_take_the_trusted_lane(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    await owner.__aexit__()
    # A fresh client logging in to an account nobody guessed at: the trusted lane.
    assert (await _login_from(server.base_url, "198.51.100.1", name)).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-account"
    # A client that just failed (on any nickname) is a suspect, even with the right password.
    assert (await _login_from(server.base_url, "198.51.100.2", "nobody1", "typo-pw1")
            ).status_code == 400
    assert hasher.lane_of("typo-pw1") == "argon2-account"  # its first try was trusted
    assert (await _login_from(server.base_url, "198.51.100.2", name)).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-suspect"
    # So is a login for a nickname someone just failed on, from a fresh client.
    assert (await _login_from(server.base_url, "198.51.100.3", name, "wrong-pw-3")
            ).status_code == 400
    assert (await _login_from(server.base_url, "198.51.100.4", name)).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-suspect"
    # With the suspect lane full, a suspect is refused though the trusted lane is idle.
    await _guessers_fail_once(server.base_url, lambda i: f"victim{i}")
    hasher.gate.clear()
    flood = await _flood(server.base_url, lambda i: f"victim{i}")
    try:
        assert all(name.startswith("argon2-suspect") for p, name in hasher.checked
                   if p.startswith("guess"))
        r = await _login_from(server.base_url, "198.51.100.2", name)
        assert r.status_code == 503 and r.headers["retry-after"]
        assert (await _login_from(server.base_url, "198.51.100.5", "nobody5", PASSWORD)
                ).status_code == 400  # a fresh client is still answered
        assert hasher.lane_of(PASSWORD) == "argon2-account"
    finally:
        await _release(hasher, flood)


async def test_the_owners_known_device_lifts_the_nicknames_mark(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    device = owner.http.cookies.get("kva_device")
    await owner.__aexit__()
    assert device
    # Guessers from many addresses fail on the owner's nickname: it is marked suspect.
    await _guessers_fail_once(server.base_url, lambda i: name)
    # The owner on a new device waits on the guessers' lane…
    assert (await _login_from(server.base_url, "198.51.100.8", name)).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-suspect"
    # …but from a browser the account is signed in on, the trusted lane is theirs,
    assert (await _login_from(server.base_url, "198.51.100.9", name, device=device)
            ).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-account"
    # and a forged cookie is no help.
    assert (await _login_from(server.base_url, "198.51.100.10", name,
                              device=device[:-2] + "xx")).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-suspect"


async def test_a_known_device_never_lifts_an_addresss_mark(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    device = owner.http.cookies.get("kva_device")
    await owner.__aexit__()
    assert device
    typo = await _login_from(server.base_url, "198.51.100.10", name, "typo-pw", device=device)
    assert typo.status_code == 400
    # The address failed: with the account's device cookie it still waits on the suspect lane.
    assert (await _login_from(server.base_url, "198.51.100.10", name, device=device)
            ).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-suspect"
    # An address that did not fail keeps the trusted lane.
    assert (await _login_from(server.base_url, "198.51.100.11", name, device=device)
            ).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-account"


async def test_one_account_has_one_login_checked_at_a_time(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    device = owner.http.cookies.get("kva_device")
    await owner.__aexit__()
    other, other_name = await registered(server.base_url)
    await other.__aexit__()
    hasher.gate.clear()
    first = asyncio.ensure_future(_login_from(server.base_url, "203.0.113.60", name,
                                              "guess-first"))
    try:
        for _ in range(1000):
            if hasher.checked and hasher.checked[-1][0] == "guess-first":
                break
            await asyncio.sleep(0.01)
        checks = len(hasher.checked)
        # Another address, the right password and the account's device: refused unhashed.
        r = await _login_from(server.base_url, "203.0.113.61", name, device=device)
        assert r.status_code == 429 and 'data-code="account_in_flight"' in r.text
        assert int(r.headers["retry-after"]) >= 1
        assert len(hasher.checked) == checks
        # Another account from another address meanwhile is not held up.
        assert (await _login_from(server.base_url, "203.0.113.62", other_name)
                ).status_code == 303
    finally:
        hasher.gate.set()
    assert (await first).status_code == 400
    # Once answered, the account may be logged in to again, and the address refused for the
    # account's login in flight was not made a suspect by it.
    assert (await _login_from(server.base_url, "203.0.113.61", name, device=device)
            ).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-account"


async def _registered_with(base_url: str, password: str) -> tuple[str, str]:
    """Register a player with ``password``; their nickname and ``kva_device`` cookie."""
    async with Visitor(base_url) as v:
        name = new_nickname("f")
        assert (await register(v, name, password)).status_code == 303
        device = v.http.cookies.get("kva_device")
    assert device
    return name, device


async def test_one_accounts_password_from_many_addresses_leaves_the_lane_to_others(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    # The flooder's own account; its right password waits at the gate while checked.
    flooder, device = await _registered_with(server.base_url, "guess-but-right-1")
    visitor, honest = await registered(server.base_url)
    await visitor.__aexit__()
    hasher.gate.clear()
    flood = await _flood(server.base_url, lambda i: flooder, "guess-but-right-1", device)
    try:
        assert _waiting() == 1  # one check in a lane for the whole flood
        refused = [t.result() for t in flood if t.done()]
        assert len(refused) == GUESSERS - 1
        assert all(r.status_code == 429 and 'data-code="account_in_flight"' in r.text
                   for r in refused)
        for n in range(8):  # honest logins from fresh addresses: every one answered
            r = await _login_from(server.base_url, f"198.51.100.{70 + n}", honest)
            assert r.status_code == 303, r.text
            assert hasher.lane_of(PASSWORD) == "argon2-account"
    finally:
        statuses = await _release(hasher, flood)
    assert sorted(statuses) == [303] + [429] * (GUESSERS - 1)


async def test_wrong_guesses_with_a_device_cookie_leave_the_lane_to_others(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    flooder, device = await _registered_with(server.base_url, "right-password-1")
    visitor, honest = await registered(server.base_url)
    await visitor.__aexit__()
    # The nickname fails once: every later guess at it from a fresh address is suspect,
    # and its device cookie only sends that guess back to the account lane.
    assert (await _login_from(server.base_url, "198.18.0.9", flooder, "wrong-password-0")
            ).status_code == 400
    hasher.gate.clear()
    flood = await _flood(server.base_url, lambda i: flooder, None, device)
    try:
        assert _waiting() == 1
        for n in range(8):
            r = await _login_from(server.base_url, f"198.51.100.{80 + n}", honest)
            assert r.status_code == 303, r.text
    finally:
        statuses = await _release(hasher, flood)
    assert sorted(statuses) == [400] + [429] * (GUESSERS - 1)


async def test_successful_logins_are_limited_per_account(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server(login_rate_account="2/minute")
    name, device = await _registered_with(server.base_url, PASSWORD)
    visitor, other = await registered(server.base_url)
    await visitor.__aexit__()
    for n in range(2):
        assert (await _login_from(server.base_url, f"198.51.100.{90 + n}", name, device=device)
                ).status_code == 303
    checks = len(hasher.checked)
    # A third, from yet another address and with the device cookie: refused before hashing.
    r = await _login_from(server.base_url, "198.51.100.92", name, device=device)
    assert r.status_code == 429 and 'data-code="rate_limited"' in r.text
    assert int(r.headers["retry-after"]) >= 1
    assert len(hasher.checked) == checks
    # Another account is not held up.
    assert (await _login_from(server.base_url, "198.51.100.93", other)).status_code == 303


async def test_a_failure_marks_its_client_and_nickname_suspect_for_a_while() -> None:
    limiter = AuthRateLimiter(suspect_minutes=15)
    assert not await limiter.login_suspect("10.9.0.1", "nino")
    await limiter.login_failed("nino", "10.9.0.1")
    assert await limiter.login_suspect("10.9.0.1", "someone-else")  # the client
    assert await limiter.login_suspect("10.9.0.2", "nino")  # the nickname
    assert not await limiter.login_suspect("10.9.0.2", "someone-else")
    off = AuthRateLimiter(suspect_minutes=0)
    await off.login_failed("nino", "10.9.0.1")
    assert not await off.login_suspect("10.9.0.1", "nino")


async def test_a_known_device_lifts_the_nicknames_mark_and_not_the_clients() -> None:
    limiter = AuthRateLimiter(suspect_minutes=15)
    await limiter.login_failed("nino", "10.9.0.1")
    assert not await limiter.login_suspect("10.9.0.2", "nino", known_device=True)
    assert await limiter.login_suspect("10.9.0.2", "nino")
    assert await limiter.login_suspect("10.9.0.1", "nino", known_device=True)
    await limiter.login_refused("10.9.0.3")
    assert await limiter.login_suspect("10.9.0.3", "nino", known_device=True)


async def test_successes_use_up_the_accounts_ceiling_even_from_a_known_device() -> None:
    limiter = AuthRateLimiter(limits={"login_account": "2/minute"})
    for n in range(2):
        assert await limiter.check_login(f"10.8.0.{n}", "nino", known_device=True) is None
        await limiter.login_succeeded("nino")
    refusal = await limiter.check_login("10.8.0.9", "nino", known_device=True)
    assert refusal is not None and refusal.scope == "login_account"
    assert await limiter.check_login("10.8.0.9", "someone-else") is None


def test_an_account_has_one_place_in_the_lanes_whatever_the_client() -> None:
    with passwords.one_at_a_time("10.7.0.1", "nino"):
        with pytest.raises(passwords.AccountInFlight), \
                passwords.one_at_a_time("10.7.0.2", "nino"):
            pass
        with pytest.raises(passwords.PasswordsInFlight) as refused, \
                passwords.one_at_a_time("10.7.0.1", "someone-else"):
            pass
        assert not isinstance(refused.value, passwords.AccountInFlight)  # the client's place
        with passwords.one_at_a_time("10.7.0.2", "someone-else"):
            pass
    with passwords.one_at_a_time("10.7.0.2", "nino"):  # freed once the first is answered
        pass


async def test_a_client_refused_for_a_full_lane_is_a_suspect_when_it_retries(
    make_server: Callable[..., Any], hasher: GatedHasher
) -> None:
    server = make_server()
    owner, name = await registered(server.base_url)
    await owner.__aexit__()
    hasher.gate.clear()
    # Fresh clients' first guesses fill the trusted lane; one more is refused unchecked.
    flood = await _flood(server.base_url, lambda i: f"victim{i}")
    try:
        refused = [t.result() for t in flood if t.done()]
        assert refused and all(r.status_code == 503 for r in refused)
        late = next(i for i, t in enumerate(flood) if t.done())
    finally:
        await _release(hasher, flood)
    # Retrying after that 503 does not bring it back onto the trusted lane.
    assert (await _login_from(server.base_url, _guesser(late), name)).status_code == 303
    assert hasher.lane_of(PASSWORD) == "argon2-suspect"
