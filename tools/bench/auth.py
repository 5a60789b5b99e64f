"""``kva bench auth``: honest logins while guests guess a closed table's password, or while one
account is logged in to from many addresses with its known-device cookie.

The bench starts one ``kva serve`` (SQLite in an empty temporary folder, through
:func:`tools.bench.server.started_servers`) with **production's default rate limits**.
Every client is on 127.0.0.1, so to let the per-address limits act as they would in production
the server is started with ``KVA_TRUSTED_PROXIES=127.0.0.1`` and every simulated client sends
``X-Forwarded-For`` with an address of its own: each attacker one (``203.0.113.N``), and each
honest login a fresh one (``198.51.100.N`` and on), since one address logging in dozens of times
a minute would meet ``KVA_LOGIN_RATE_IP`` itself (in production those are different people).

1. A host opens a friend table with a password; ``--honest-accounts`` honest players
   register (the logins go round them, since each account may log in only
   ``KVA_LOGIN_RATE_ACCOUNT`` times a minute), and a flooder registers its own account,
   keeping the ``kva_device`` cookie that registering sets.
2. Idle: the honest players log in ``--idle-logins`` times, one after another.
3. Attack: ``--attackers`` guests each send ``--guesses`` wrong passwords to the table's
   ``POST /t/{token}`` (spread over ``--tables`` such tables), paced over ``--attack-seconds``
   (``0``: as fast as answers come), all at once, each guest waiting for an answer (10 s at most)
   before its next guess; whatever is not sent or answered ``--grace`` seconds after that is
   cut off and counted as ``cut``. Optionally ``--login-guessers`` more addresses
   send wrong-password logins for other nicknames. ``--device-logins N`` adds N addresses
   that log in to the flooder's account with its right password and its device cookie, and
   ``--device-guessers N`` N more that send it wrong passwords with that cookie, each
   ``--guesses`` times at the same pace. Meanwhile the honest players log in again and again,
   one login after another, until the attack is over.

Printed: honest login p50/p95/max idle and under attack (of the logins that succeeded; any
honest login refused is counted and named in the headline), their p95 ratio, how the attack was
answered (by HTTP status), and the server process's RSS (``/proc/<pid>/status``) before the
attack, at its peak during it and after it. The last line is the headline. See
docs/performance.md ("Logins under a password-guessing attack").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tools.bench.command import run_command
from tools.bench.server import (
    HttpFailure,
    _proc_ticks_and_rss,
    http,
    percentile,
    started_servers,
)

#: The only limit-related settings the bench changes: whom ``X-Forwarded-For`` is believed from.
BENCH_ENV: dict[str, str] = {"KVA_TRUSTED_PROXIES": "127.0.0.1"}
TABLE_PASSWORD = "table-secret-42"
HONEST_PASSWORD = "honest-password-1"
FLOOD_PASSWORD = "flooder-password-1"


@dataclass
class Latencies:
    """Honest login times (seconds, of logins that succeeded: 303) and how every login was
    answered (a 503 answers fast but is no login)."""

    seconds: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)

    def summary(self) -> dict[str, float]:
        ordered = sorted(self.seconds)
        return {"p50": percentile(ordered, 0.50), "p95": percentile(ordered, 0.95),
                "max": ordered[-1] if ordered else float("nan")}


@dataclass
class AuthResult:
    """What one run measured."""

    idle: Latencies
    attack: Latencies
    attack_statuses: Counter[str]
    attack_seconds: float
    rss_before_mib: float
    rss_peak_mib: float
    rss_after_mib: float

    def ratio(self) -> float:
        """p95 under attack over p95 idle (NaN without samples)."""
        idle, attack = self.idle.summary()["p95"], self.attack.summary()["p95"]
        return attack / idle if idle > 0 else float("nan")


def _ms(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds * 1000:.0f}"


def _answered(statuses: Counter[str]) -> str:
    order = {"429": 0, "503": 1}
    return " ".join(f"{k}×{v}" for k, v in
                    sorted(statuses.items(), key=lambda kv: (order.get(kv[0], 2), kv[0])))


def headline(r: AuthResult) -> str:
    """``headline: login p95 idle 180 ms, under attack 240 ms (1.3×), attack answered …``."""
    idle, attack = r.idle.summary(), r.attack.summary()
    failed = sum(v for k, v in (r.idle.statuses + r.attack.statuses).items() if k != 303)
    refused = f", HONEST LOGINS REFUSED {failed}" if failed else ""
    return (f"headline: login p95 idle {_ms(idle['p95'])} ms, under attack "
            f"{_ms(attack['p95'])} ms ({r.ratio():.1f}×), attack answered "
            f"{_answered(r.attack_statuses) or 'nothing'}, RSS {r.rss_before_mib:.0f}→"
            f"{r.rss_after_mib:.0f} MiB (peak {r.rss_peak_mib:.0f})" + refused)


def _rss_mib(pid: int) -> float:
    got = _proc_ticks_and_rss(pid)
    return got[1] / 1024 if got else float("nan")


def _address(base: str, n: int) -> str:
    """A distinct fake client address: ``base`` is the first two octets."""
    return f"{base}.{n // 250 % 250}.{n % 250 + 1}"


class AuthBench:
    """The clients of one run against one server."""

    def __init__(self, url: str, pid: int) -> None:
        self.url = url
        self.pid = pid
        self.nicknames: list[str] = []
        self.flooder = "flooder_" + secrets.token_hex(3)
        self.device = ""
        self._honest_n = 0
        self.rss_peak_kib = 0

    def _xff(self, address: str) -> dict[str, str]:
        return {"X-Forwarded-For": address}

    async def setup(self, tables: int, honest_accounts: int) -> list[str]:
        """Open ``tables`` friend tables with a password; register ``honest_accounts`` honest
        players and the flooder (keeping its device cookie)."""
        tokens = []
        for i in range(tables):
            host = self._xff(_address("192.0", i))
            r = await http(self.url, "POST", "/matches",
                           {"opponent": "friend", "target": "75", "bazaar": "draw",
                            "password": TABLE_PASSWORD}, extra_headers=host)
            cookie = r.cookie("kva_session")
            found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.header("location") or "")
            if r.status != 303 or not cookie or not found:
                raise HttpFailure(f"POST /matches answered {r.status}")
            page = await http(self.url, "GET", f"/m/{found.group(1)}", cookie=cookie,
                              extra_headers=host)
            token = re.search(rb'https?://[^"/\s]+/t/([A-Za-z0-9_-]{8,64})', page.body)
            if page.status != 200 or token is None:
                raise HttpFailure(f"GET /m/{{id}} answered {page.status} (no table link)")
            tokens.append(token.group(1).decode())
        for i in range(honest_accounts):
            nickname = f"honest{i}_" + secrets.token_hex(3)
            await self._register(nickname, HONEST_PASSWORD, _address("198.18", i))
            self.nicknames.append(nickname)
        self.device = await self._register(self.flooder, FLOOD_PASSWORD, "198.19.0.1")
        return tokens

    async def _register(self, nickname: str, password: str, address: str) -> str:
        """Register ``nickname`` from ``address``; its ``kva_device`` cookie."""
        r = await http(self.url, "POST", "/register", {"nickname": nickname, "password": password},
                       extra_headers=self._xff(address))
        device = r.cookie("kva_device")
        if r.status != 303 or not device:
            raise HttpFailure(f"POST /register answered {r.status}")
        return device

    async def login(self, into: Latencies) -> None:
        """One honest login from a fresh address (the next honest player's), timed to its
        answer."""
        self._honest_n += 1
        xff = self._xff(_address("198.51", self._honest_n))
        nickname = self.nicknames[self._honest_n % len(self.nicknames)]
        t0 = time.perf_counter()
        r = await http(self.url, "POST", "/login",
                       {"nickname": nickname, "password": HONEST_PASSWORD}, extra_headers=xff)
        if r.status == 303:
            into.seconds.append(time.perf_counter() - t0)
        into.statuses[r.status] += 1

    async def _guesser(self, n: int, tokens: Sequence[str], guesses: int, pace: float,
                       statuses: Counter[str]) -> None:
        """Attacker ``n``: one guest (its own address and cookie) guessing table passwords."""
        xff = self._xff(_address("203.0", n))
        cookie: str | None = None
        start = time.perf_counter()
        for i in range(guesses):
            delay = start + i * pace - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            token = tokens[(n + i) % len(tokens)]
            try:
                r = await http(self.url, "POST", f"/t/{token}",
                               {"password": f"guess-{n}-{i}"}, cookie=cookie, extra_headers=xff,
                               timeout=10.0)
            except TimeoutError:
                statuses["timeout"] += 1
                continue
            except (OSError, HttpFailure):
                statuses["failed"] += 1
                continue
            statuses[str(r.status)] += 1
            cookie = r.cookie("kva_session") or cookie

    async def _login_guesser(self, n: int, guesses: int, pace: float,
                             statuses: Counter[str]) -> None:
        """Wrong-password logins for other nicknames, from one address (its first on the
        account lane, the rest on the suspect lane)."""
        await self._logins("login", _address("100.64", n), guesses, pace, statuses,
                           lambda i: (f"victim{n}_{i % 5}", f"guess-{i}"))

    async def _device_login(self, n: int, guesses: int, pace: float,
                            statuses: Counter[str]) -> None:
        """The flooder's right password, with its device cookie, from one address."""
        await self._logins("device", _address("100.80", n), guesses, pace, statuses,
                           lambda i: (self.flooder, FLOOD_PASSWORD), self.device)

    async def _device_guesser(self, n: int, guesses: int, pace: float,
                              statuses: Counter[str]) -> None:
        """Wrong passwords for the flooder's account, with its device cookie, from one
        address."""
        await self._logins("device-guess", _address("100.90", n), guesses, pace, statuses,
                           lambda i: (self.flooder, f"guess-{n}-{i}"), self.device)

    async def _logins(self, label: str, address: str, count: int, pace: float,
                      statuses: Counter[str], form: Callable[[int], tuple[str, str]],
                      device: str = "") -> None:
        """``count`` logins from ``address`` (``form(i)``: nickname and password), one every
        ``pace`` seconds, each waiting for its answer; counted as ``"{label} {status}"``."""
        headers = self._xff(address) | ({"Cookie": f"kva_device={device}"} if device else {})
        start = time.perf_counter()
        for i in range(count):
            delay = start + i * pace - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            nickname, password = form(i)
            try:
                r = await http(self.url, "POST", "/login",
                               {"nickname": nickname, "password": password},
                               extra_headers=headers, timeout=10.0)
            except TimeoutError:
                statuses[f"{label} timeout"] += 1
                continue
            except (OSError, HttpFailure):
                statuses[f"{label} failed"] += 1
                continue
            statuses[f"{label} {r.status}"] += 1

    async def _sample_rss(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            got = _proc_ticks_and_rss(self.pid)
            if got:
                self.rss_peak_kib = max(self.rss_peak_kib, got[1])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.1)

    async def run(self, args: argparse.Namespace) -> AuthResult:
        tokens = await self.setup(args.tables, args.honest_accounts)
        idle = Latencies()
        await self.login(idle)  # warm-up (the first login pays for imports and caches)
        idle = Latencies()
        for _ in range(args.idle_logins):
            await self.login(idle)
        await asyncio.sleep(0.5)
        rss_before = _rss_mib(self.pid)
        self.rss_peak_kib = int(rss_before * 1024)
        statuses: Counter[str] = Counter()
        pace = args.attack_seconds / args.guesses if args.guesses else 0.0
        stop = asyncio.Event()
        sampler = asyncio.create_task(self._sample_rss(stop))
        t0 = time.perf_counter()
        attack = [asyncio.create_task(self._guesser(n, tokens, args.guesses, pace, statuses))
                  for n in range(args.attackers)]
        for count, client in ((args.login_guessers, self._login_guesser),
                              (args.device_logins, self._device_login),
                              (args.device_guessers, self._device_guesser)):
            attack += [asyncio.create_task(client(n, args.guesses, pace, statuses))
                       for n in range(count)]
        under = Latencies()
        deadline = t0 + args.attack_seconds + args.grace
        # Back to back while the attack lasts, but no longer than its pace plus the grace.
        while not all(t.done() for t in attack) and time.perf_counter() < deadline:
            await self.login(under)
        for task in attack:
            task.cancel()
        await asyncio.gather(*attack, return_exceptions=True)
        attack_s = time.perf_counter() - t0
        planned = (args.attackers + args.login_guessers + args.device_logins
                   + args.device_guessers) * args.guesses
        if sum(statuses.values()) < planned:  # cut off at the deadline: unsent or unanswered
            statuses["cut"] = planned - sum(statuses.values())
        await asyncio.sleep(0.5)
        stop.set()
        await sampler
        return AuthResult(idle, under, statuses, attack_s, rss_before,
                          self.rss_peak_kib / 1024, _rss_mib(self.pid))


def report(r: AuthResult) -> list[str]:
    """The table of one run (without the headline)."""
    lines = [f"{'honest logins':<14} {'ok':>4} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}  answers"]
    for name, lat in (("idle", r.idle), ("under attack", r.attack)):
        s = lat.summary()
        answers = " ".join(f"{k}×{v}" for k, v in sorted(lat.statuses.items()))
        lines.append(f"{name:<14} {len(lat.seconds):>4} {_ms(s['p50']):>7} {_ms(s['p95']):>7} "
                     f"{_ms(s['max']):>7}  {answers}")
    total = sum(r.attack_statuses.values())
    lines.append(f"attack: {total} requests in {r.attack_seconds:.1f} s, answered "
                 f"{_answered(r.attack_statuses) or 'nothing'}")
    lines.append(f"server RSS: {r.rss_before_mib:.0f} MiB before the attack, peak "
                 f"{r.rss_peak_mib:.0f}, {r.rss_after_mib:.0f} after")
    return lines


def run(args: argparse.Namespace) -> int:
    """Start the server, measure, print the table and the headline."""
    if (args.idle_logins < 1 or args.guesses < 1 or args.tables < 1
            or args.honest_accounts < 1
            or min(args.attackers, args.login_guessers, args.device_logins,
                   args.device_guessers) < 0):
        print("kva bench auth: --idle-logins, --guesses, --tables and --honest-accounts must "
              "be at least 1, the attacker counts at least 0", file=sys.stderr)
        return 2
    with started_servers(1, "sqlite", "", "", 0.6, None, args.server_log_level,
                         limits=BENCH_ENV) as started:
        url, pid = started.urls[0], started.pids[0]
        print(f"kva bench auth: 1 SQLite kva serve at {url}, production rate limits, "
              f"KVA_TRUSTED_PROXIES=127.0.0.1 and one X-Forwarded-For address per attacker "
              f"and per honest login; {args.attackers} attackers × {args.guesses} wrong table "
              f"passwords over {args.tables} table(s) in {args.attack_seconds:g} s"
              + (f", {args.login_guessers} login guessers × {args.guesses}"
                 if args.login_guessers else "")
              + (f", {args.device_logins} addresses × {args.guesses} right logins to one "
                 "account with its device cookie" if args.device_logins else "")
              + (f", {args.device_guessers} addresses × {args.guesses} wrong logins to it "
                 "with its device cookie" if args.device_guessers else ""), flush=True)
        result = asyncio.run(AuthBench(url, pid).run(args))
    for line in report(result):
        print(line)
    print(headline(result), flush=True)
    return 0


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments of this benchmark, for ``prog`` (``kva bench auth`` or the module)."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Start one kva serve with production rate limits, time honest logins "
                    "idle and while guests guess a closed table's password (each from its "
                    "own X-Forwarded-For address), and print p50/p95/max, their p95 ratio, "
                    "the attack's answers by status and the server's RSS "
                    "(docs/performance.md).")
    p.add_argument("--idle-logins", type=int, default=30, help="honest logins idle (30)")
    p.add_argument("--attackers", type=int, default=10, help="guessing guests (10)")
    p.add_argument("--guesses", type=int, default=30, help="wrong passwords each (30)")
    p.add_argument("--tables", type=int, default=1,
                   help="password tables the guesses go to, round robin (1)")
    p.add_argument("--attack-seconds", type=float, default=10.0,
                   help="each attacker spreads its guesses over this long (10; 0: no pause)")
    p.add_argument("--grace", type=float, default=10.0,
                   help="seconds after --attack-seconds before whatever the attackers have "
                        "not sent or had answered is cut off (10)")
    p.add_argument("--login-guessers", type=int, default=0,
                   help="also this many addresses sending wrong-password logins for other "
                        "nicknames, --guesses each, same pace (0)")
    p.add_argument("--device-logins", type=int, default=0,
                   help="also this many addresses logging in to one account with its right "
                        "password and its known-device cookie, --guesses each, same pace (0)")
    p.add_argument("--device-guessers", type=int, default=0,
                   help="also this many addresses sending that account wrong passwords with "
                        "its known-device cookie, --guesses each, same pace (0)")
    p.add_argument("--honest-accounts", type=int, default=24,
                   help="honest players the honest logins go round (24): each account may "
                        "log in only KVA_LOGIN_RATE_ACCOUNT times a minute")
    p.add_argument("--server-log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"])
    return p


def main(argv: Sequence[str] | None = None, prog: str = "python -m tools.bench.auth") -> int:
    """Run the benchmark with ``argv`` (the process's arguments when None); the exit status."""
    return run_command(build_parser(prog), run, argv)


if __name__ == "__main__":
    sys.exit(main())
