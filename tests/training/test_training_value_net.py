"""Training the hand-value network: its labels are what the hand went on to score, its TD(λ)
targets, the same seed (and any number of jobs) gives the same weights, and
``python -m tools.training value`` writes a model that loads or refuses bad input plainly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from kva.bots.base import Bot, RandomBot
from kva.bots.simple import GreedyBot
from kva.bots.value_net import (
    FEATURE_COUNT,
    FEATURES,
    POINT_SCALE,
    load_model,
)
from kva.rules import Match
from kva.rules.engine import HandState
from tools.training.cli import main
from tools.training.value_train import Dataset, generate, lambda_targets, train


def _greedy_pair() -> list[Bot]:
    return [GreedyBot(), RandomBot()]


def _tiny(seed: int) -> str:
    data = generate(3, seed, _greedy_pair)
    model, report = train(data, seed, hidden=(5, 3), epochs=2)
    del report["train_cpu_s"]  # a timing, not a result
    return json.dumps({k: v.tolist() for k, v in model.arrays.items()}) + json.dumps(report)


def test_training_is_reproducible_from_a_seed() -> None:
    assert _tiny(5) == _tiny(5)
    assert _tiny(5) != _tiny(6)


def test_labels_are_what_each_side_still_scores_in_the_hand() -> None:
    data = generate(1, 2, _greedy_pair)
    match = Match(75, "draw", random.Random(0))  # only for the type of a hand's state
    assert isinstance(match.hand, HandState)
    assert data.rows.shape == (len(data.labels), FEATURE_COUNT)
    assert np.all(data.labels >= 0.0)
    col = {name: i for i, name in enumerate(FEATURES)}
    # A hand's first position (nothing placed, no points) is labelled with the hand's total.
    firsts = np.flatnonzero(
        (data.rows[:, col["my_points"]] == 0.0)
        & (data.rows[:, col["their_points"]] == 0.0)
        & (data.rows[:, col["ends_sum"]] == 0.0)
        & (data.rows[:, col["my_count"]] == 1.0)
        & (data.rows[:, col["their_count"]] == 1.0)
    )
    assert len(firsts) >= 2
    # Seen from the other side, the same position has its labels swapped.
    a, b = firsts[0], firsts[1]
    assert data.labels[a][0] == data.labels[b][1] and data.labels[a][1] == data.labels[b][0]
    assert data.labels.sum() > 0.0


def test_training_value_writes_a_model_that_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "value.json"
    data = tmp_path / "rows.npz"
    status = main(["value", "--games", "2", "--seed", "3", "--epochs", "1",
                   "--players", "greedy;easy", "--out", str(out), "--save-data", str(data)])
    assert status == 0
    model = load_model(out)
    assert model.settings["games"] == 2 and model.settings["seed"] == 3
    assert model.settings["players"] == ["greedy", "easy"]
    assert model.digest in capsys.readouterr().out
    assert np.load(data)["rows"].shape[1] == FEATURE_COUNT


def test_training_value_gives_the_same_data_with_any_number_of_jobs(tmp_path: Path) -> None:
    digests = []
    for jobs in ("1", "2"):
        out = tmp_path / f"value{jobs}.json"
        args = ["value", "--games", "12", "--seed", "4", "--epochs", "1",
                "--players", "greedy;random", "--out", str(out), "--jobs", jobs]
        assert main(args) == 0
        digests.append(load_model(out).arrays["w1"].tobytes())
    assert digests[0] == digests[1]


def test_training_value_refuses_bad_arguments_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "value.json"
    assert main(["value", "--players", "nobody;greedy", "--out", str(out)]) == 2
    assert main(["value", "--players", "greedy", "--out", str(out)]) == 2
    assert main(["value", "--games", "0", "--out", str(out)]) == 2
    assert main(["value", "--jobs", "0", "--out", str(out)]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    assert not out.exists()


def _first_positions(data: Dataset) -> np.ndarray:
    asks = [FEATURES.index(f"ends_asking_{n}") for n in range(7)]
    return np.flatnonzero(data.rows[:, asks].sum(axis=1) == 0.0)


def test_td_targets_at_lambda_one_are_the_outcomes() -> None:
    data = generate(2, 7, _greedy_pair)
    model, _report = train(data, 7, hidden=(4, 3), epochs=1)
    assert np.allclose(lambda_targets(data, model, 1.0), data.labels)


def test_td_targets_keep_each_hand_s_last_position_and_read_the_model_before_it() -> None:
    data = generate(2, 8, _greedy_pair)
    model, _report = train(data, 8, hidden=(4, 3), epochs=1)
    targets = lambda_targets(data, model, 0.0)
    predicted = model.predict(data.rows) / POINT_SCALE
    starts = set(_first_positions(data).tolist())
    assert len(starts) >= 4  # two rows (one per side) for each hand's first position
    for i in range(len(data.labels)):
        nxt = i + 2
        last = nxt >= len(data.labels) or nxt in starts or data.groups[nxt] != data.groups[i]
        if last:
            assert np.array_equal(targets[i], data.labels[i])
        else:
            # TD(0): what the side scored on the way to the next position, plus its value.
            expected = data.labels[i] - data.labels[nxt] + predicted[nxt]
            assert np.allclose(targets[i], expected)


def test_training_from_saved_rows_gives_the_weights_playing_them_gives(tmp_path: Path) -> None:
    rows = tmp_path / "rows.npz"
    played = tmp_path / "played.json"
    saved = tmp_path / "saved.json"
    base = ["value", "--games", "3", "--seed", "2", "--epochs", "1",
            "--players", "greedy;random"]
    assert main([*base, "--out", str(played), "--save-data", str(rows)]) == 0
    assert main([*base, "--out", str(saved), "--data", str(rows)]) == 0
    a, b = load_model(played), load_model(saved)
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)
    assert b.settings["games"] == 3 and b.settings["players"] == ["greedy", "random"]


def test_unreadable_saved_rows_are_refused_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "rows.npz"
    bad.write_bytes(b"not a numpy file")
    out = tmp_path / "value.json"
    assert main(["value", "--data", str(bad), "--out", str(out)]) == 2
    assert "not a saved self-play file" in capsys.readouterr().err
    assert not out.exists()
