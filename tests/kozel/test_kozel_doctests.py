"""The examples in the Kozel modules' docstrings run, and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kva.kozel

MODULES = ["kva.kozel"] + [
    f"kva.kozel.{info.name}" for info in pkgutil.iter_modules(kva.kozel.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_module_docstrings_hold(name: str) -> None:
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed"


def test_the_match_the_scoring_and_the_views_show_examples() -> None:
    for name in ("kva.kozel.match", "kva.kozel.scoring", "kva.kozel.view"):
        assert doctest.testmod(importlib.import_module(name)).attempted >= 2
