"""The examples in the rules modules' docstrings run, and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kva.rules

MODULES = ["kva.rules"] + [
    f"kva.rules.{info.name}" for info in pkgutil.iter_modules(kva.rules.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_module_docstrings_hold(name: str) -> None:
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed"


def test_the_package_the_settings_and_the_move_encoder_show_examples() -> None:
    for name in ("kva.rules", "kva.rules.settings", "kva.rules.moves"):
        assert doctest.testmod(importlib.import_module(name)).attempted >= 2
