"""``kva record verify`` and ``kva record show`` read Kozel records, told apart by ``format``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kva.cli import main
from tests.kozel.kozelhelp import fair_record, record


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_verify_tells_the_two_formats_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kozel = write(tmp_path / "kozel.json", record(3, 1))
    georgian = tmp_path / "georgian.json"
    assert main(["selfplay", "--seed", "3", "--out", str(georgian)]) == 0
    capsys.readouterr()
    assert main(["record", "verify", str(kozel), str(georgian)]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == [f"ok {kozel}", f"ok {georgian}"]


def test_verify_names_the_hand_the_move_and_the_rule_of_a_bad_kozel_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = record(3, 1)
    doc["hands"][1]["moves"][2]["p"] = (doc["hands"][1]["moves"][2]["p"] + 1) % 3
    bad = write(tmp_path / "bad.json", doc)
    assert main(["record", "verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{bad}: hand 2, move 2 (hands[1].moves[2]): seat ")
    assert "(kozel.md §3)" in out


def test_show_replays_a_kozel_match_with_its_goat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = record(4, 2, "one", pairs=True)
    path = write(tmp_path / "k.json", doc)
    assert main(["record", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Kozel to 101, fish for one, pairs: seat 0 (0)")
    assert "Hand 1: " in out and "  => " in out
    assert "козёл: " in out
    placed = next(m for m in doc["hands"][0]["moves"] if "end" in m)
    assert f"plays {placed['play']} on {placed['end']}" in out  # touching half first


def test_verify_rederives_the_fair_deals_of_a_kozel_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = fair_record(4, 3)
    good = write(tmp_path / "fair.json", doc)
    doc["meta"]["fair"]["client_seeds"][3] = "cd" * 16
    bad = write(tmp_path / "unfair.json", doc)
    assert main(["record", "verify", str(good), str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"ok {good}"
    assert lines[1].startswith(f"{bad}: hand 1 (hands[0].")
    assert "not the deal kva-fair/1 derives (redeal 0)" in lines[1]
