"""``kva bench fair`` runs and prints its figures (a smoke test: nothing here is timed or judged
statistically; the figures are for people, see docs/fairness.md)."""

from __future__ import annotations

import math

import pytest

from kva.cli import main
from tools.bench.fair import chi_square_p


def test_bench_fair_prints_chi_square_and_cost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "fair", "--deals", "2000", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "kva-fair/1: 2,000 deals" in out
    assert "df 27" in out and "df 729" in out and "random.shuffle" in out
    assert "µs per deal" in out


def test_chi_square_p_values_match_tables() -> None:
    assert chi_square_p(2.0, 2) == pytest.approx(math.exp(-1))  # df 2: exp(-x/2)
    assert chi_square_p(40.113, 27) == pytest.approx(0.05, abs=1e-4)  # the 5% critical value
    assert chi_square_p(55.476, 27) == pytest.approx(0.001, abs=1e-4)
    assert chi_square_p(0.0, 729) == 1.0
