"""The ``kva`` command line: record verify/show, selfplay and bench, as a user runs them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from kva.cli import main


def selfplay(tmp_path: Path, seed: int, *extra: str) -> Path:
    out = tmp_path / f"match-{seed}.json"
    assert main(["selfplay", "--seed", str(seed), "--target", "75", "--out", str(out), *extra]) == 0
    return out


def test_selfplay_writes_a_record_that_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = selfplay(tmp_path, 3)
    capsys.readouterr()
    assert main(["record", "verify", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"ok {path}"


def test_selfplay_same_seed_same_record(tmp_path: Path) -> None:
    first = selfplay(tmp_path, 11).read_text()
    second_dir = tmp_path / "again"
    second_dir.mkdir()
    assert selfplay(second_dir, 11).read_text() == first
    assert selfplay(second_dir, 12).read_text() != first


def test_selfplay_pass_only_record_says_pass_only_and_has_no_draws(tmp_path: Path) -> None:
    doc = json.loads(selfplay(tmp_path, 5, "--pass-only").read_text())
    assert doc["bazaar"] == "pass-only"
    assert all("draw" not in move for hand in doc["hands"] for move in hand["moves"])


def test_selfplay_rejects_unknown_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.json"
    assert main(["selfplay", "--seed", "1", "--players", "random,nobody", "--out", str(out)]) == 2
    assert "unknown player 'nobody'" in capsys.readouterr().err
    assert not out.exists()


def test_verify_one_ok_line_per_good_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [selfplay(tmp_path, seed) for seed in (1, 2, 3)]
    capsys.readouterr()
    assert main(["record", "verify", *map(str, paths)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"ok {p}" for p in paths]


def test_verify_bad_file_names_hand_move_and_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = selfplay(tmp_path, 4)
    doc = json.loads(good.read_text())
    moves = doc["hands"][0]["moves"]
    index = next(i for i, m in enumerate(moves) if "ends_sum" in m)
    moves[index]["points"] = moves[index]["points"] + 5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["record", "verify", str(good), str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"ok {good}"
    assert lines[1].startswith(f"{bad}: hand 1, move {index} (hands[0].moves[{index}].points)")
    assert "but the rules give" in lines[1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "a record must be a JSON object"),
        ('{"format": "georgian-domino/1"}', "missing field 'target'"),
        ('{"format": "chess/1"}', "must be 'georgian-domino/1'"),
    ],
)
def test_verify_malformed_file_is_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    assert main(["record", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert message in out
    assert "Traceback" not in out


def test_verify_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "verify", str(tmp_path / "nope.json")]) == 1
    assert "no such file" in capsys.readouterr().out


def test_show_replays_every_move_with_sums_points_and_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = selfplay(tmp_path, 6)
    doc = json.loads(path.read_text())
    capsys.readouterr()
    assert main(["record", "show", str(path)]) == 0
    out = capsys.readouterr().out
    moves = sum(len(hand["moves"]) for hand in doc["hands"])
    assert out.count(" sum ") + out.count(" draws ") + out.count(" passes") == moves
    assert out.count("Hand ") == len(doc["hands"])
    assert "wins the match" in out
    assert f"{doc['score'][0]}-{doc['score'][1]}" in out


def test_show_rejects_a_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "georgian-domino/1", "target": 80}')
    assert main(["record", "show", str(path)]) == 1
    assert "target" in capsys.readouterr().err


def test_bench_engine_prints_table_and_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dominoes")
    assert main(["bench", "engine", "--seconds", "0.3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("engine: ")
    assert "hands/s" in lines[-1] and "dominoes)" in lines[-1]


def test_bench_engine_without_dominoes_prints_its_own_figure_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plain install has no ``dominoes`` (a dev extra): kva's figure, comparison skipped."""
    from kva.commands import bench_engine

    monkeypatch.setitem(sys.modules, "dominoes", None)  # ``import dominoes`` -> ImportError

    def must_not_run(hands: int, seed: int) -> int:
        raise AssertionError("the dominoes comparison ran without the package")

    monkeypatch.setattr(bench_engine, "dominoes_random_games", must_not_run)
    assert main(["bench", "engine", "--seconds", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("comparison skipped: the 'dominoes' package is not installed")
               for line in lines)
    assert [line.split()[0] for line in lines[1:-1]] == ["engine", "kva"]
    assert re.fullmatch(r"engine: [\d,]+ hands/s \(no comparison: dominoes not installed\)",
                        lines[-1])
    assert int(lines[-1].split()[1].replace(",", "")) > 0
