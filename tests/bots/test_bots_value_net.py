"""The learned hand-value network: its features read a state from one side, its weights file
loads and refuses a missing or corrupt one by name, its labels are what the hand went on to
score, and training is reproducible from a seed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from kva.bots.base import Bot, RandomBot
from kva.bots.hard import HardBot
from kva.bots.simple import GreedyBot
from kva.bots.value_net import (
    DEFAULT_PATH,
    FEATURE_COUNT,
    FEATURES,
    POINT_SCALE,
    default_model,
    load_model,
    save_model,
    state_features,
)
from kva.bots.value_train import Dataset, generate, lambda_targets, train
from kva.bots.weights import ModelError
from kva.cli import main
from kva.rules import Match
from kva.rules.engine import HandState
from tests.bots.botshelp import positions


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


def test_state_features_swap_with_the_side_they_are_read_from() -> None:
    checked = 0
    for match, _view in positions(seed=5, choices=60):
        state = match.hand
        mine = state_features(state, 0)
        theirs = state_features(state, 1)
        col = {name: i for i, name in enumerate(FEATURES)}
        for t in range(28):
            assert mine[t] == theirs[28 + t] and mine[28 + t] == theirs[t]
        assert mine[col["my_turn"]] + theirs[col["my_turn"]] == 1.0
        assert mine[col["my_pips"]] == theirs[col["their_pips"]]
        checked += 1
    assert checked >= 60


def test_kva_train_value_writes_a_model_that_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "value.json"
    data = tmp_path / "rows.npz"
    status = main(["train", "value", "--games", "2", "--seed", "3", "--epochs", "1",
                   "--players", "greedy;easy", "--out", str(out), "--save-data", str(data)])
    assert status == 0
    model = load_model(out)
    assert model.settings["games"] == 2 and model.settings["seed"] == 3
    assert model.settings["players"] == ["greedy", "easy"]
    assert model.digest in capsys.readouterr().out
    assert np.load(data)["rows"].shape[1] == FEATURE_COUNT


def test_kva_train_value_gives_the_same_data_with_any_number_of_jobs(tmp_path: Path) -> None:
    digests = []
    for jobs in ("1", "2"):
        out = tmp_path / f"value{jobs}.json"
        args = ["train", "value", "--games", "12", "--seed", "4", "--epochs", "1",
                "--players", "greedy;random", "--out", str(out), "--jobs", jobs]
        assert main(args) == 0
        digests.append(load_model(out).arrays["w1"].tobytes())
    assert digests[0] == digests[1]


def test_kva_train_value_refuses_bad_arguments_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "value.json"
    assert main(["train", "value", "--players", "nobody;greedy", "--out", str(out)]) == 2
    assert main(["train", "value", "--players", "greedy", "--out", str(out)]) == 2
    assert main(["train", "value", "--games", "0", "--out", str(out)]) == 2
    assert main(["train", "value", "--jobs", "0", "--out", str(out)]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    assert not out.exists()


def test_the_shipped_model_loads_and_beats_the_mean_on_held_out_matches() -> None:
    model = default_model()
    assert model.arrays["w1"].shape[0] == FEATURE_COUNT
    errors = model.settings["holdout_rmse_points"]
    assert errors["model"] < errors["mean"]
    assert DEFAULT_PATH.stat().st_size < 3_000_000


def test_predictions_are_points_in_a_hand_s_range() -> None:
    model = default_model()
    rows = np.array([state_features(m.hand, 0) for m, _v in positions(seed=6, choices=40)])
    predicted = model.predict(rows)
    assert predicted.shape == (len(rows), 2)
    assert np.all(predicted > -10.0) and np.all(predicted < 150.0)
    assert POINT_SCALE == 10.0


def test_a_missing_weights_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="nowhere.json.*missing.*kva train value"):
        load_model(tmp_path / "nowhere.json")


def test_a_corrupt_or_foreign_weights_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "value.json"
    save_model(path, default_model().arrays, {"note": "copy"})
    load_model(path)
    doc = json.loads(path.read_text())
    data = doc["arrays"]["w2"]["data"]
    doc["arrays"]["w2"]["data"] = ("A" if data[0] != "A" else "B") + data[1:]
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="value.json.*digest mismatch"):
        load_model(path)
    path.write_text("{not json")
    with pytest.raises(ModelError, match="value.json.*unreadable"):
        load_model(path)
    from kva.bots.opponent_model import DEFAULT_PATH as OPPONENT_PATH

    path.write_text(OPPONENT_PATH.read_text())
    with pytest.raises(ModelError, match="value.json.*not a kva-value-model/1 file"):
        load_model(path)


def test_hard_with_the_network_values_moves_by_it() -> None:
    plain = HardBot.with_settings(playouts=40, exact_nodes=0)
    learned = HardBot.with_settings(playouts=40, exact_nodes=0, value_net=1.0, value_net_near=1.0)
    differ = 0
    for _match, view in positions(seed=8, choices=80):
        if len(view.legal) > 1:
            a = plain.choose(view, random.Random(1))
            b = learned.choose(view, random.Random(1))
            assert b in view.legal
            differ += a != b
    assert differ > 0


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
    base = ["train", "value", "--games", "3", "--seed", "2", "--epochs", "1",
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
    assert main(["train", "value", "--data", str(bad), "--out", str(out)]) == 2
    assert "not a saved self-play file" in capsys.readouterr().err
    assert not out.exists()
