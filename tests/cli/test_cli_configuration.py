"""The ``kva`` commands that read the platform's settings refuse, at start, an unknown
``KVA_*`` variable (naming the closest known one) or a bad value: one clear line and exit 2,
no traceback, nothing created."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kva.config import RANGES

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = [["serve", "--port", "1"], ["coins", "audit"]]


def _kva(args: list[str], data_dir: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "KVA_DATA_DIR": str(data_dir), **variables}
    return subprocess.run([sys.executable, "-m", "kva", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", COMMANDS, ids=["serve", "coins"])
def test_an_unknown_variable_is_refused_with_a_suggestion(args: list[str],
                                                          tmp_path: Path) -> None:
    done = _kva(args, tmp_path / "var", KVA_WS_RATES="5")
    assert done.returncode == 2, done.stderr
    assert "unknown setting KVA_WS_RATES (did you mean KVA_WS_RATE?)" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "var").exists()  # refused before anything was made


@pytest.mark.parametrize("args", COMMANDS, ids=["serve", "coins"])
def test_a_bad_value_is_refused_by_name(args: list[str], tmp_path: Path) -> None:
    done = _kva(args, tmp_path / "var", KVA_SECRET_KEY="k", KVA_WS_BURST="many")
    assert done.returncode == 2, done.stderr
    assert "KVA_WS_BURST must be a whole number of at least 1, not 'many'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("name", "value"), [("KVA_FIRST_MOVE_TIMEOUT", "nan"),
                                             ("KVA_FORCED_DELAY", "inf"),
                                             ("KVA_DISCONNECT_GRACE", "1e308")])
def test_serve_refuses_a_number_out_of_range_in_one_line(name: str, value: str,
                                                         tmp_path: Path) -> None:
    done = _kva(["serve", "--port", "1"], tmp_path / "var", KVA_SECRET_KEY="k", **{name: value})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"kva serve: {name}={value} is out of range: it must be from {RANGES[name].text()}"]
