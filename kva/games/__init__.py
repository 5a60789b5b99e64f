"""Games behind one interface: what the core of kva holds instead of a rules engine.

:class:`Game` (:mod:`kva.games.base`) is the interface; :mod:`kva.games.registry` finds a game
by its name; :mod:`kva.games.georgian` and :mod:`kva.games.kozel` are the two built-in games,
thin adapters over :mod:`kva.rules` and :mod:`kva.kozel`. Like the engines, this package is
pure: it imports nothing of storage, the services or the web tier.

>>> import random
>>> game = get("kozel")
>>> match = game.new_match(game.parse_options({"fish": "one"}), 3,
...                        DealSeeds.from_rng(random.Random(4), 3))
>>> chooser = random.Random(1)
>>> while game.to_act(match):
...     seat = game.to_act(match)[0]
...     game.apply(match, seat, chooser.choice(game.legal_actions(match, seat)))
>>> result = game.match_result(match)
>>> result is not None and set(result.losers) <= {0, 1, 2}
True
>>> game.verify_record(game.write_record(match)).score == match.score
True
"""

from kva.games.base import (
    SCHEME,
    BadOptions,
    DealSeeds,
    ForfeitReason,
    Game,
    HandOutcome,
    IllegalAction,
    MatchOutcome,
    RatingKind,
    RecordError,
    check_client_seed,
    commitment,
    new_client_seed,
    new_server_seed,
)
from kva.games.live import LivePlay, PlainPlay, live_play_of, winner_of
from kva.games.registry import GAMES, AnyGame, GameRegistry, UnknownGame, get, names, register

__all__ = [
    "GAMES",
    "SCHEME",
    "AnyGame",
    "BadOptions",
    "DealSeeds",
    "ForfeitReason",
    "Game",
    "GameRegistry",
    "HandOutcome",
    "IllegalAction",
    "LivePlay",
    "MatchOutcome",
    "PlainPlay",
    "RatingKind",
    "RecordError",
    "UnknownGame",
    "check_client_seed",
    "commitment",
    "get",
    "live_play_of",
    "names",
    "new_client_seed",
    "new_server_seed",
    "register",
    "winner_of",
]
