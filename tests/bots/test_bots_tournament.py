"""``kva tournament``: duplicate deals, reproducible tables, honest intervals."""

from __future__ import annotations

import re

import pytest

from kva.cli import main
from kva.commands.intervals import wilson
from kva.commands.tournament import play_game, run_tournament


def test_a_deterministic_bot_against_itself_wins_exactly_half_on_duplicate_deals() -> None:
    summary = run_tournament("greedy", "greedy", matches=20, target=75, seed=3)
    assert summary.a_wins == 10


def test_both_games_of_a_deal_are_dealt_the_same_tiles() -> None:
    # greedy and normal never let their RNG change a decision, so seating A=greedy first must
    # replay exactly the game where A=normal sits second: same deals, same moves.
    first = play_game(("greedy", "normal"), 0, 75, False, 9, 0)
    second = play_game(("normal", "greedy"), 1, 75, False, 9, 0)
    assert first.hands == [(b, a) for a, b in second.hands]
    assert first.a_won != second.a_won


def test_the_same_seed_gives_the_same_results() -> None:
    one = run_tournament("hard:playouts=20", "normal", matches=4, target=75, seed=5, jobs=2)
    two = run_tournament("hard:playouts=20", "normal", matches=4, target=75, seed=5)
    assert (one.a_wins, one.hands_won, one.points) == (two.a_wins, two.hands_won, two.points)


def test_wilson_interval_matches_known_values() -> None:
    lo, hi = wilson(81, 100)
    assert round(lo, 3) == 0.722 and round(hi, 3) == 0.875
    assert wilson(0, 10)[0] == 0.0


def test_the_command_prints_a_table_and_a_one_line_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tournament", "--a", "easy", "--b", "random", "--matches", "6",
                 "--target", "75", "--seed", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert any(line.startswith("| easy |") for line in out)
    assert re.fullmatch(
        r"tournament: easy vs random: \d+\.\d% of 6 matches \[\d+\.\d-\d+\.\d\], easy p95 \d+ ms",
        out[-1],
    )


def test_the_command_rejects_odd_match_counts_and_unknown_bots() -> None:
    assert main(["tournament", "--a", "easy", "--b", "random", "--matches", "5"]) == 2
    assert main(["tournament", "--a", "wizard", "--b", "random", "--matches", "4"]) == 2


def test_decisions_can_be_timed_in_cpu_time_of_one_core(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tournament", "--a", "normal", "--b", "greedy", "--matches", "2",
                 "--target", "75", "--clock", "cpu"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "decision times below are CPU time of one core"
    assert out[-1].startswith("tournament: normal vs greedy: ")
