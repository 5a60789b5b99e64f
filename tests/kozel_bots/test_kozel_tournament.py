"""``kva tournament --game kozel``: duplicate deal sequences with A in every seat, reproducible
tables, honest intervals; the Georgian tournament is untouched."""

from __future__ import annotations

import re

import pytest

from kva.cli import main
from kva.commands.intervals import mean_interval, wilson
from kva.commands.tournament_kozel import (
    KozelGame,
    KozelSetup,
    build_kozel_bot,
    play_kozel_game,
    render_kozel,
    run_kozel_tournament,
    seatings,
    summarize_kozel,
)

FAST_HARD = "hard:playouts=8,min_guesses=2,max_seconds=60"


def test_bot_a_takes_every_seat_of_the_table_once_per_deal_sequence() -> None:
    assert seatings(2) == [0, 1]
    assert seatings(3) == [0, 1, 2]
    assert seatings(4) == [0, 1, 2, 3]


def test_every_seating_of_a_deal_sequence_is_dealt_the_same_tiles() -> None:
    setup = KozelSetup("normal", "easy", 3, "all", False, 4)
    games = [play_kozel_game(setup, 0, seat) for seat in seatings(3)]
    assert [g.a_seat for g in games] == [0, 1, 2]
    assert games[0].first_deal == games[1].first_deal == games[2].first_deal
    other = play_kozel_game(setup, 1, 0)
    assert other.first_deal != games[0].first_deal


def test_a_tournament_plays_matches_over_seats_deal_sequences_in_every_seating() -> None:
    setup = KozelSetup("easy", "easy", 4, "one", False, 2)
    summary = run_kozel_tournament(setup, matches=8)
    assert summary.matches == 8
    assert summary.b_sides == 8 * 3


def test_a_bot_against_copies_of_itself_is_the_goat_as_often_as_the_others_per_side() -> None:
    # Each seat's random stream is the seat's, whoever sits there, so every seating of one deal
    # sequence replays the same match: A's goats over all seatings equal the goats per B side.
    setup = KozelSetup("hard:playouts=8,min_guesses=2,max_seconds=60", "hard:playouts=8,"
                       "min_guesses=2,max_seconds=60", 3, "all", False, 7)
    summary = run_kozel_tournament(setup, matches=12)
    assert summary.a_goats * (3 - 1) == summary.b_goats


def test_the_same_seed_gives_the_same_table_with_one_or_two_workers() -> None:
    setup = KozelSetup(FAST_HARD, "normal", 4, "all", True, 3)
    one = run_kozel_tournament(setup, matches=4, jobs=1)
    two = run_kozel_tournament(setup, matches=4, jobs=2)
    assert (one.a_goats, one.a_scores, one.b_goats) == (two.a_goats, two.a_scores, two.b_goats)


def test_the_summary_counts_goats_and_gives_intervals_of_the_goat_rate_and_final_score() -> None:
    setup = KozelSetup("easy", "easy", 2, "all", False, 1)
    deal = play_kozel_game(setup, 0, 0).first_deal
    games = [
        KozelGame(0, deal, True, 104, 0, 1, ([1.0, 3.0], [2.0]), (5, 4)),
        KozelGame(1, deal, False, 40, 1, 1, ([2.0], []), (3, 4)),
        KozelGame(0, deal, False, 61, 1, 1, ([], [5.0]), (2, 2)),
        KozelGame(1, deal, False, 0, 1, 1, ([4.0], []), (1, 1)),
    ]
    summary = summarize_kozel(setup, games)
    assert (summary.matches, summary.a_goats, summary.b_goats, summary.b_sides) == (4, 1, 3, 4)
    assert summary.a_scores == mean_interval([104.0, 40.0, 61.0, 0.0])
    assert summary.decisions == (11, 11)
    lo, hi = wilson(1, 4)
    verdict = render_kozel(summary).splitlines()[-1]
    assert verdict.startswith(
        f"tournament: easy vs 1 x easy: A goat 25.0% of 4 matches [{100 * lo:.1f}-{100 * hi:.1f}]"
    )
    assert "mean score 51.2 [" in verdict


def test_the_command_prints_a_table_and_a_one_line_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tournament", "--game", "kozel", "--seats", "3", "--a", "normal", "--b", "easy",
                 "--matches", "6", "--seed", "2", "--fish", "one"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert any(line.startswith("| A normal |") for line in out)
    assert re.fullmatch(
        r"tournament: normal vs 2 x easy: A goat \d+\.\d% of 6 matches \[\d+\.\d-\d+\.\d\], "
        r"mean score \d+\.\d \[-?\d+\.\d-\d+\.\d\], p95 normal \d+ ms, easy \d+ ms",
        out[-1],
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--seats", "4", "--matches", "6", "--a", "easy"],  # not a multiple of the seats
        ["--seats", "5", "--matches", "10", "--a", "easy"],
        ["--seats", "3", "--matches", "6", "--a", "easy", "--pairs"],
        ["--seats", "2", "--matches", "4", "--a", "wizard"],
        ["--seats", "2", "--matches", "4", "--a", "normal:depth=3"],
        ["--seats", "2", "--matches", "4", "--a", "hard:depth=3"],
        ["--seats", "2", "--matches", "4", "--a", "hard:playouts=many"],
        ["--seats", "2", "--matches", "4", "--a", "easy", "--target", "75"],  # Georgian only
        ["--seats", "2", "--matches", "4", "--a", "easy", "--pass-only"],
    ],
)
def test_the_command_refuses_bad_options_with_a_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", "--game", "kozel", "--b", "easy", *argv]) == 2
    assert capsys.readouterr().err.strip()


@pytest.mark.parametrize("option", [["--seats", "3"], ["--fish", "one"], ["--pairs"]])
def test_the_georgian_tournament_refuses_kozel_options(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", "--a", "easy", "--b", "random", "--matches", "2", *option]) == 2
    assert "--game kozel" in capsys.readouterr().err


def test_a_hard_setting_is_read_from_the_bot_name() -> None:
    bot = build_kozel_bot("hard:playouts=50,noise=1.5")
    assert bot.settings.playouts == 50 and bot.settings.noise == 1.5  # type: ignore[attr-defined]


#: ``kva tournament --a greedy --b random --matches 2 --target 75 --seed 2`` as the Georgian
#: tournament printed it before it had a ``--game`` option (times written as T).
GEORGIAN_TABLE = """\
tournament greedy vs random: 2 matches to 75 (1 duplicate deals), seed 2

| side | matches won | win rate [95% CI] | hands won | points/hand [95% CI] | \
ms/choice p50 / p95 / max | choices / decisions |
|---|---|---|---|---|---|---|
| greedy | 1 | 50.0% [9.5-90.5] | 2 of 6 | 20.8 [8.1-33.6] | T | 29 / 64 |
| random | 1 | 50.0% [9.5-90.5] | 4 of 6 | 23.3 [12.4-34.3] | T | 27 / 58 |

drawn hands: 0; points/hand difference (greedy - random): -2.5 [-22.1 to +17.1]
tournament: greedy vs random: 50.0% of 2 matches [9.5-90.5], greedy p95 T
"""


def test_the_georgian_tournament_is_the_default_game_and_prints_what_it_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tournament", "--a", "greedy", "--b", "random", "--matches", "2",
                 "--target", "75", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    timed = re.sub(r"\d+\.\d / \d+\.\d / \d+\.\d|\d+ ms", "T", out)
    assert timed == GEORGIAN_TABLE


def test_kozel_decisions_can_be_timed_in_cpu_time_of_one_core(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tournament", "--game", "kozel", "--seats", "2", "--a", "normal", "--b", "easy",
                 "--matches", "2", "--clock", "cpu"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "decision times below are CPU time of one core"
    assert out[-1].startswith("tournament: normal vs 1 x easy: ")
