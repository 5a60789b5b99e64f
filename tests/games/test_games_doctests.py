"""The examples in the game interface's docstrings run, and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kva.games

MODULES = ["kva.games"] + [
    f"kva.games.{info.name}" for info in pkgutil.iter_modules(kva.games.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_module_docstrings_hold(name: str) -> None:
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed"


def test_the_package_shows_a_whole_match_through_the_interface() -> None:
    assert doctest.testmod(importlib.import_module("kva.games")).attempted >= 5
