"""``kva bench botapi`` runs end to end: it starts one SQLite ``kva serve``, makes bots through
the settings page, plays a friend match and a bot-API match, and prints the three latency lines
and the ratio with no errors (a smoke test: the ratio is not judged here; the figures are for
people, see docs/performance.md)."""

from __future__ import annotations

import re

import pytest

from kva.cli import main


def test_bench_botapi_plays_both_kinds_and_prints_the_ratio(
    capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "botapi", "--db", "sqlite", "--matches", "2", "--slots", "2",
                   "--think", "0", "--timeout", "240"])
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    for kind in ("ws→ws", "api→ws", "ws→api"):
        line = next(x for x in lines if x.startswith(kind))
        # how many moves each kind saw depends on the deals (two matches to 75 gave the API
        # side 5 once): some of each is what a smoke run can ask for
        assert int(re.search(r"n=\s*(\d+)", line).group(1)) > 0, out  # type: ignore[union-attr]
    assert re.match(r"botapi: p95 api→ws is [\d.]+× p95 ws→ws \((within|OVER) the 2× target\); "
                    r"errors 0$", lines[-1]), out
    assert status in (0, 1), out
