"""Every package that kva's code imports is a dependency pyproject.toml declares itself.

A plain ``pip install .`` gets only ``[project] dependencies``; a module that arrives through a
development extra or by chance through another package (greenlet once did, for SQLAlchemy's
asyncio) works in the development venv and breaks a real install. scripts/check-install.sh
proves the install end to end; this test names the missing declaration at once.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Imports allowed to come from a development extra, each guarded where it is imported.
OPTIONAL = {"dominoes": "kva bench engine's comparison, skipped without it"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(requirements: list[str]) -> set[str]:
    return {canonical(re.match(r"[A-Za-z0-9_.-]+", r).group(0)) for r in requirements}  # type: ignore[union-attr]


def imported_top_levels() -> dict[str, str]:
    """Top-level modules imported anywhere in kva/ (absolute imports), with one file each."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "kva").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_a_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = requirement_names(project["dependencies"])
    dev = requirement_names(project["optional-dependencies"]["dev"])
    providers = packages_distributions()
    third_party = {
        module: where for module, where in imported_top_levels().items()
        if module not in sys.stdlib_module_names and module not in ("kva", "__future__")
    }
    assert "sqlalchemy" in third_party and "fastapi" in third_party  # the scan sees imports
    missing = []
    for module, where in sorted(third_party.items()):
        dists = {canonical(d) for d in providers.get(module, [module])}
        if module in OPTIONAL:
            assert dists & dev, f"{module} ({OPTIONAL[module]}) must be in the dev extra"
        elif not dists & declared:
            missing.append(f"{module} (imported in {where}; from {sorted(dists)})")
    assert not missing, "imported but not in [project] dependencies: " + ", ".join(missing)


def test_sqlalchemy_is_declared_with_asyncio() -> None:
    """kva uses sqlalchemy.ext.asyncio, which needs greenlet: the [asyncio] extra brings it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    sqlalchemy = [r for r in project["dependencies"] if canonical(r).startswith("sqlalchemy")]
    assert sqlalchemy and all("[asyncio]" in r for r in sqlalchemy), sqlalchemy
