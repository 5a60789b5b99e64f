"""The benchmarks live in the repository's ``tools/bench``, outside the installed package:
``kva bench <name>`` hands its arguments on to them from a checkout, says where to get them
elsewhere, and nothing in ``kva`` imports them."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from kva.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_kva_bench_hands_every_argument_on_to_the_tool(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "fair", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kva bench fair") and "--deals" in out


def test_without_the_tools_kva_bench_says_where_to_get_them_and_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What an installed kva without a checkout sees: no ``tools`` to import.
    for name in ("tools", "tools.bench", "tools.bench.server"):
        monkeypatch.setitem(sys.modules, name, None)
    assert main(["bench", "server", "--start", "1", "--matches", "1"]) == 2
    err = capsys.readouterr().err
    assert "not part of the installed package" in err
    assert "-m tools.bench.server" in err


def test_other_commands_still_refuse_arguments_they_do_not_know(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "engine", "--bogus"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_a_tool_runs_as_a_module_from_the_checkout_root() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tools.bench.fair", "--deals", "500", "--seed", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "kva-fair/1: 500 deals" in done.stdout


def test_the_wheel_holds_kva_alone() -> None:
    """pyproject's package discovery (setuptools matches package names against ``include``)
    leaves ``tools`` out of the wheel; scripts/check-install.sh builds and installs it."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    assert any(fnmatchcase("kva.commands", pattern) for pattern in include)
    for package in ("tools", "tools.bench", "tools.research"):
        assert not any(fnmatchcase(package, pattern) for pattern in include), package


def test_the_package_never_imports_the_tools() -> None:
    """A plain install has no ``tools``: kva reaches them only through ``importlib`` in
    ``kva bench``, which handles their absence."""
    importing: list[str] = []
    for path in sorted((ROOT / "kva").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            if any(name.split(".")[0] == "tools" for name in names):
                importing.append(str(path.relative_to(ROOT)))
    assert not importing
