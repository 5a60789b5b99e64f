"""Training the opponent-hand model: the same seed gives the same weights, and
``python -m tools.training opponent`` writes a model that loads or refuses bad players plainly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kva.bots.base import Bot
from kva.bots.opponent_model import load_model
from kva.bots.simple import GreedyBot
from tools.training.cli import main
from tools.training.opponent_train import generate, train


def _tiny(seed: int) -> str:
    def bots() -> list[Bot]:
        return [GreedyBot(), GreedyBot()]

    data = generate(3, seed, bots)
    model, report = train(data, seed, hidden=4, epochs=2)
    del report["train_cpu_s"]  # a timing, not a result
    return json.dumps({k: v.tolist() for k, v in model.arrays.items()}) + json.dumps(report)


def test_training_is_reproducible_from_a_seed() -> None:
    assert _tiny(5) == _tiny(5)
    assert _tiny(5) != _tiny(6)


def test_training_opponent_writes_a_model_that_loads(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "opp.json"
    status = main(["opponent", "--games", "2", "--seed", "3", "--epochs", "1",
                   "--hidden", "3", "--players", "greedy;easy", "--out", str(out)])
    assert status == 0
    model = load_model(out)
    assert model.settings["games"] == 2 and model.settings["seed"] == 3
    assert model.settings["players"] == ["greedy", "easy"]
    assert model.digest in capsys.readouterr().out


def test_training_opponent_refuses_bad_players_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "opp.json"
    assert main(["opponent", "--players", "nobody;greedy", "--out", str(out)]) == 2
    assert main(["opponent", "--players", "greedy", "--out", str(out)]) == 2
    assert main(["opponent", "--games", "0", "--out", str(out)]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    assert not out.exists()
