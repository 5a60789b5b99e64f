"""``kva bench auth`` runs end to end: it starts one SQLite ``kva serve`` with production rate
limits, times a few honest logins idle and while two guests guess a closed table's password, and
prints the table and a headline with the p95 ratio (a smoke test: nothing here is timed or
judged; the figures are for people, see docs/performance.md)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from collections import Counter

import pytest

from kva.cli import main
from kva.service.accounts import passwords
from tools.bench.auth import AuthResult, Latencies, headline


def test_bench_auth_measures_logins_under_attack_and_prints_a_headline(
    capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "auth", "--idle-logins", "3", "--attackers", "2", "--guesses", "3",
                   "--attack-seconds", "1", "--grace", "10", "--honest-accounts", "10"])
    out = capsys.readouterr().out
    assert status == 0, out
    last = out.strip().splitlines()[-1]
    found = re.fullmatch(r"headline: login p95 idle (\d+) ms, under attack (\d+) ms "
                         r"\((\d+\.\d)×\), attack answered (.+), RSS (\d+)→(\d+) MiB "
                         r"\(peak (\d+)\)", last)
    assert found, out
    assert float(found.group(3)) > 0, out  # the ratio is a number, whatever its value
    assert "idle" in out and "under attack" in out and "303×3" in out, out
    answered = dict(part.split("×") for part in found.group(4).split())
    assert sum(int(v) for v in answered.values()) == 6, out  # every guess is accounted for
    assert int(found.group(5)) > 0 and int(found.group(7)) >= int(found.group(5)), out


def test_bench_auth_floods_one_account_with_its_device_cookie(
    capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "auth", "--idle-logins", "2", "--attackers", "0",
                   "--device-logins", "3", "--device-guessers", "2", "--guesses", "2",
                   "--attack-seconds", "1", "--grace", "10", "--honest-accounts", "10"])
    out = capsys.readouterr().out
    assert status == 0, out
    last = out.strip().splitlines()[-1]
    found = re.fullmatch(r"headline: .*, attack answered (.+), RSS .*", last)
    assert found, out
    answered = re.findall(r"(device|device-guess) (\d+|timeout|failed)×(\d+)", found.group(1))
    counts: Counter[str] = Counter()
    for label, _, n in answered:
        counts[label] += int(n)
    # every login of both floods is accounted for: 3 × 2 right ones, 2 × 2 wrong ones
    assert counts == {"device": 6, "device-guess": 4}, out
    assert "device 303×" in found.group(1), out  # the flooder's own logins do get in


def test_headline_computes_the_ratio_of_the_p95s() -> None:
    idle = Latencies([0.1] * 19 + [0.2])
    attack = Latencies([0.2] * 19 + [0.3])
    result = AuthResult(idle, attack, Counter({"503": 20, "429": 250, "403": 30}), 10.0,
                        160.0, 230.0, 170.0)
    assert result.ratio() == pytest.approx(2.0)
    assert headline(result) == ("headline: login p95 idle 100 ms, under attack 200 ms (2.0×), "
                                "attack answered 429×250 503×20 403×30, RSS 160→170 MiB "
                                "(peak 230)")


@pytest.mark.skipif(sys.platform != "linux", reason="a nice value per thread is Linux's")
def test_the_table_lane_yields_the_cpu_to_logins() -> None:
    """The fix the bench measured: table-password checks run niced, account ones do not."""

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    async def both() -> tuple[int, int]:
        return (await passwords._POOLS["account"].run(nice),
                await passwords._POOLS["table"].run(nice))

    account, table = asyncio.run(both())
    assert table == min(19, account + passwords.TABLE_NICE)
