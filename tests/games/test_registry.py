"""Games are found by name in one registry; tests may register their own."""

from __future__ import annotations

import pytest

from kva import games
from kva.games import GameRegistry, UnknownGame
from kva.games.georgian import GEORGIAN
from kva.games.kozel import KOZEL
from tests.helpers.race_game import RACE


def test_the_built_in_games_are_registered_under_their_names() -> None:
    assert games.names() == ["georgian", "kozel"]
    assert games.get("georgian") is GEORGIAN
    assert games.get("kozel") is KOZEL
    assert (GEORGIAN.record_format, KOZEL.record_format) == ("georgian-domino/1", "kozel/1")
    assert (GEORGIAN.rating_kind, KOZEL.rating_kind) == ("glicko2", "kozel")
    assert (GEORGIAN.seats, KOZEL.seats) == ((2,), (2, 3, 4))


def test_an_unknown_name_is_a_clear_error() -> None:
    with pytest.raises(UnknownGame, match="no game 'chess': the games are georgian, kozel"):
        games.get("chess")
    with pytest.raises(LookupError):
        GameRegistry().get("georgian")


def test_a_test_registers_a_game_of_its_own() -> None:
    registry = GameRegistry()
    registry.register(RACE)
    registry.register(GEORGIAN)
    assert registry.names() == ["race", "georgian"]
    assert registry.get("race") is RACE
    with pytest.raises(ValueError, match="already registered"):
        registry.register(RACE)
    registry.unregister("race")
    assert registry.names() == ["georgian"]


def test_the_default_registry_takes_a_game_and_gives_it_back() -> None:
    games.register(RACE)
    try:
        assert games.get("race") is RACE
        assert games.names() == ["georgian", "kozel", "race"]
    finally:
        games.GAMES.unregister("race")
    assert games.names() == ["georgian", "kozel"]
