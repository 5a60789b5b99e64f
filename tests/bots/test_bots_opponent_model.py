"""The learned opponent-hand model: it loads, refuses a missing or corrupt weights file by name,
reads the view alone, and weights ``hard``'s guesses (its training: tests/training)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kva.bots.hard import HardBot
from kva.bots.knowledge import Knowledge
from kva.bots.opponent_model import (
    DEFAULT_PATH,
    FEATURES,
    HARD_OPPONENT_MODEL,
    ModelError,
    default_model,
    guess_shares,
    load_model,
    save_model,
    tile_features,
)
from kva.rules import PlayerView, player_view
from tests.bots.botshelp import positions, reshuffled


def test_the_shipped_model_loads_and_beats_the_base_rate_on_held_out_matches() -> None:
    model = default_model()
    assert model.arrays["w1"].shape[0] == len(FEATURES)
    losses = model.settings["holdout_log_loss"]
    assert losses["model"] < losses["base_rate"]
    assert DEFAULT_PATH.stat().st_size < 1_000_000


def test_a_missing_weights_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(ModelError, match="nowhere.json.*missing"):
        load_model(path)


def test_a_corrupt_weights_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "opp.json"
    save_model(path, default_model().arrays, {"note": "copy"})
    load_model(path)
    doc = json.loads(path.read_text())
    data = doc["arrays"]["w1"]["data"]
    doc["arrays"]["w1"]["data"] = ("A" if data[0] != "A" else "B") + data[1:]
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="opp.json.*digest mismatch"):
        load_model(path)
    path.write_text("{not json")
    with pytest.raises(ModelError, match="opp.json.*unreadable"):
        load_model(path)


def _features(view: PlayerView) -> tuple[list[int], np.ndarray]:
    knowledge = Knowledge(view)
    pool, logs = HardBot()._pool(knowledge, random.Random(9), 60)
    return tile_features(view, knowledge, guess_shares(pool, logs))


def test_features_read_the_view_alone() -> None:
    rng = random.Random(4)
    checked = 0
    for match, view in positions(seed=21, choices=400):
        if len(view.legal) < 2 or rng.random() > 0.3:
            continue
        seat = view.player
        assert seat is not None
        alt = reshuffled(match, seat, rng)
        if alt is None:
            continue
        alt_view = player_view(alt, seat)
        tiles, rows = _features(view)
        alt_tiles, alt_rows = _features(alt_view)
        assert tiles == alt_tiles
        assert np.array_equal(rows, alt_rows)
        checked += 1
    assert checked >= 50


def test_hard_with_the_model_weights_guesses_by_it() -> None:
    # The same search with and without the model's odds differs somewhere over many positions.
    plain = HardBot.with_settings(playouts=40, exact_nodes=0)
    learned = HardBot(config=replace(HARD_OPPONENT_MODEL, playouts=40, exact_nodes=0))
    differ = 0
    for _match, view in positions(seed=8, choices=80):
        if len(view.legal) > 1:
            a = plain.choose(view, random.Random(1))
            b = learned.choose(view, random.Random(1))
            differ += a != b
    assert differ > 0
