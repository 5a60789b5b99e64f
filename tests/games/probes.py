"""What the conformance suite must know of each game beyond the interface: the games it runs
(every registered one, and the tests' race), and per game a :class:`Probe` that reads the full
state the way only a test may.

The interface gives views; whether a view leaks is only decided against the full state, which
each game keeps in its own shape. A probe says which names a seat holds that nobody else may
see, which part of a view describes the hand in play (a finished hand's tiles are revealed by
the rules, and may name tiles that are hidden again in the next deal), how to break a rule in
a finished match's record, and the ``meta.fair`` of a match dealt from given seeds. A game
registered without a probe fails the suite, saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kva import games, kozel, rules
from kva.games import AnyGame, DealSeeds
from kva.rules.engine import TILE_HIGH, TILE_LOW, tiles_of
from tests.helpers.race_game import RACE, RaceMatch


def _tile_names(tiles: list[int]) -> frozenset[str]:
    """Every way a view may write the tiles: low half first, or either half first (a placed
    tile is written touching half first)."""
    names: set[str] = set()
    for t in tiles:
        names.add(f"{TILE_LOW[t]}-{TILE_HIGH[t]}")
        names.add(f"{TILE_HIGH[t]}-{TILE_LOW[t]}")
    return frozenset(names)


@dataclass(frozen=True)
class Probe:
    """The test's look into one game's full state."""

    #: ``hidden(state, seat)``: the names of what ``seat`` holds that no other seat and no
    #: spectator may see now (``seat`` None: what nobody may see, such as the bazaar's order).
    hidden: Callable[[Any, int | None], frozenset[str]]
    #: The part of a view JSON about the hand in play (what a leak could be in).
    current: Callable[[dict[str, Any]], Any]
    #: Break one rule in a finished match's record, in place.
    tamper: Callable[[dict[str, Any]], None]
    #: The ``meta`` a record of a match dealt from the seeds carries (None: the game has no
    #: fair deals to check).
    fair_meta: Callable[[DealSeeds], dict[str, Any]] | None
    #: Options small enough to keep a random playout short.
    quick_options: dict[str, Any]
    #: Actions to try beyond the legal ones: the illegal ones among them must be refused.
    universe: tuple[int, ...]


def _georgian_hidden(match: rules.Match, seat: int | None) -> frozenset[str]:
    state = match.hand
    if seat is None:
        tiles = list(state.bazaar[state.draw_pos:])
    else:
        tiles = tiles_of(state.hands[seat])
        if state.placed == 0 and state.forced_opening >= 0:
            # The first hand's opening double is announced: the rules make it public.
            tiles = [t for t in tiles if t != state.forced_opening]
    return _tile_names(tiles)


def _kozel_hidden(match: kozel.Match, seat: int | None) -> frozenset[str]:
    state = match.state
    if seat is None:
        return _tile_names(list(state.bazaar[state.drawn:]))
    return _tile_names(tiles_of(state.hands[seat]))


def _race_hidden(state: RaceMatch, seat: int | None) -> frozenset[str]:
    return frozenset() if seat is None else frozenset({state.secrets[seat]})


def _without(*keys: str) -> Callable[[dict[str, Any]], Any]:
    return lambda view: {k: v for k, v in view.items() if k not in keys}


def _drop_last_move(doc: dict[str, Any]) -> None:
    doc["hands"][-1]["moves"].pop()


def _drop_last_race_move(doc: dict[str, Any]) -> None:
    doc["moves"].pop()


def _georgian_fair(seeds: DealSeeds) -> dict[str, Any]:
    return {"fair": rules.FairDealer(seeds.server_seed, seeds.client_seeds).meta(reveal=True)}


def _kozel_fair(seeds: DealSeeds) -> dict[str, Any]:
    dealer = kozel.KozelFairDealer(seeds.server_seed, seeds.client_seeds)
    return {"fair": dealer.meta(reveal=True)}


PROBES: dict[str, Probe] = {
    "georgian": Probe(
        hidden=_georgian_hidden,
        # ``previous`` and ``last_board`` show finished hands, whose tiles are revealed.
        current=_without("previous", "last_board"),
        tamper=_drop_last_move,
        fair_meta=_georgian_fair,
        quick_options={"target": 75},
        universe=(-1, *range(0, 202), 999),
    ),
    "kozel": Probe(
        hidden=_kozel_hidden,
        current=lambda view: view,
        tamper=_drop_last_move,
        fair_meta=_kozel_fair,
        quick_options={"limit": 30},
        universe=(-1, *range(0, 86), 999),
    ),
    "race": Probe(
        hidden=_race_hidden,
        current=lambda view: view,
        tamper=_drop_last_race_move,
        fair_meta=None,
        quick_options={"target": 12},
        universe=(-1, 0, 1, 2, 3),
    ),
}


def games_under_test() -> list[AnyGame]:
    """Every registered game, and the tests' race."""
    return [*(games.get(name) for name in games.names()), RACE]


def probe(game: AnyGame) -> Probe:
    """``game``'s probe; a game registered without one fails here, naming what to add."""
    found = PROBES.get(game.name)
    assert found is not None, f"add a Probe for the game {game.name!r} to tests/games/probes.py"
    return found
