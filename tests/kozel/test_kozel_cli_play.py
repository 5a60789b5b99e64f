"""``kva selfplay --game kozel`` and ``kva bench engine --game kozel``, as a user runs them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kva.cli import main
from kva.commands.kozel_play import random_hands


def selfplay(out: Path, *extra: str) -> int:
    return main(["selfplay", "--game", "kozel", "--seed", "7", "--out", str(out), *extra])


def test_selfplay_writes_one_record_per_match_and_each_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert selfplay(tmp_path, "--seats", "3", "--matches", "4") == 0
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 4
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["format"] == "kozel/1" and doc["sides"] == [[0], [1], [2]]
    capsys.readouterr()
    assert main(["record", "verify", *map(str, files)]) == 0


def test_selfplay_same_seed_same_records(tmp_path: Path) -> None:
    assert selfplay(tmp_path / "a", "--seats", "2", "--matches", "2") == 0
    assert selfplay(tmp_path / "b", "--seats", "2", "--matches", "2") == 0
    for a in sorted((tmp_path / "a").glob("*.json")):
        assert a.read_bytes() == (tmp_path / "b" / a.name).read_bytes()


def test_selfplay_random_options_draws_both_fish_rules_and_pairs(tmp_path: Path) -> None:
    assert selfplay(tmp_path, "--seats", "4", "--matches", "12", "--random-options") == 0
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in tmp_path.glob("*.json")]
    assert {d["options"]["fish"] for d in docs} == {"all", "one"}
    assert {len(d["sides"]) for d in docs} == {2, 4}


def test_selfplay_fish_and_pairs_options_are_kept(tmp_path: Path) -> None:
    assert selfplay(tmp_path, "--fish", "one", "--pairs") == 0
    doc = json.loads(next(tmp_path.glob("*.json")).read_text(encoding="utf-8"))
    assert doc["options"]["fish"] == "one" and doc["sides"] == [[0, 2], [1, 3]]


@pytest.mark.parametrize("extra, words", [
    (("--seats", "5"), "--seats must be 2, 3 or 4"),
    (("--seats", "3", "--pairs"), "--pairs needs --seats 4"),
    (("--matches", "0"), "--matches must be at least 1"),
])
def test_selfplay_bad_arguments_are_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...], words: str
) -> None:
    assert selfplay(tmp_path, *extra) == 2
    assert words in capsys.readouterr().err


def test_bench_engine_kozel_prints_four_seat_hands_per_second(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "engine", "--game", "kozel", "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^kozel engine: [\d,]+ four-seat hands/s$", out, re.M)


def test_the_bench_plays_exactly_the_hands_it_times() -> None:
    assert random_hands(30, 1) > 30 * 4
    assert random_hands(30, 1) == random_hands(30, 1)
