"""The learned hand-value network: its features read a state from one side, its weights file
loads and refuses a missing or corrupt one by name, and ``hard`` values moves by it (its
training: tests/training)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from kva.bots.hard import HardBot
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
from kva.bots.weights import ModelError
from tests.bots.botshelp import positions


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
    with pytest.raises(ModelError, match="nowhere.json.*missing.*python -m tools.training value"):
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
