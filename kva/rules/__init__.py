"""The rules of Georgian domino for two players: pure, typed, standard library only.

One obvious API, in the spirit of python-chess::

    match = Match(target=175, bazaar="draw", rng=random.Random(7))
    while not match.over:
        view = player_view(match, match.turn)     # what that player may know
        match.apply(view.legal[0], player=match.turn)
    doc = write_record(match)                       # georgian-domino/1 JSON
    verify_record(doc)                              # replays and checks every rule

Actions are small int codes (:mod:`kva.rules.codes`); :mod:`kva.rules.actions` reads and writes
them as text and JSON, :mod:`kva.rules.moves` writes a played move as JSON. The hot path
(:class:`HandState`) works on bitmasks.

A seeded match, step by step (the first hand opens with the highest double dealt):

>>> import random
>>> match = Match(target=75, rng=random.Random(7))
>>> match
<Match target=75 draw hand=1 score=0:0 turn=1>
>>> view = player_view(match, 1)
>>> view
<PlayerView player=1 hand=1 turn=1 score=0:0 holds=2-2 2-4 3-4 3-6 4-6 5-5 6-6 counts=7:7 \
drawable=12 ends_sum=0 legal=1>
>>> [describe_action(code) for code in view.legal]
['open 6-6']
>>> match.apply(action_from_json({"type": "play", "tile": "6-6"}, view.legal), player=1)
>>> player_view(match, 0).moves[-1]
<PublicMove p=1 open 6-6 points=0 ends_sum=12>
>>> match.apply(view.legal[0], player=1)
Traceback (most recent call last):
...
kva.rules.hand.IllegalAction: it is player 0's turn, not player 1's
>>> chooser = random.Random(1)
>>> while not match.over:
...     match.apply(chooser.choice(match.legal_codes()))
>>> match
<Match target=75 draw hand=3 score=80:50 over winner=0>
>>> verify_record(write_record(match)).scores
[80, 50]
"""

from kva.rules.actions import action_from_json, action_to_json, describe_action
from kva.rules.codes import (
    DRAW,
    PASS,
    D,
    L,
    R,
    U,
    code_tile,
    open_code,
    play_code,
)
from kva.rules.hand import HandState, IllegalAction, LogEntry
from kva.rules.match import Deal, HandResult, Match, MatchOver, PlayedHand, shuffled_deal
from kva.rules.record import (
    FORMAT,
    RecordError,
    dumps_record,
    load_record_text,
    read_record,
    verify_record,
    write_record,
)
from kva.rules.settings import BAZAAR_RULES, TARGETS, BadSettings, BazaarRule, MatchSettings
from kva.rules.tiles import parse_tile, tile_name
from kva.rules.view import BoardView, HandSummary, PlayerView, PublicMove, determinize, player_view

__all__ = [
    "BAZAAR_RULES",
    "BadSettings",
    "BazaarRule",
    "MatchSettings",
    "DRAW",
    "FORMAT",
    "PASS",
    "TARGETS",
    "BoardView",
    "D",
    "Deal",
    "HandResult",
    "HandState",
    "HandSummary",
    "IllegalAction",
    "L",
    "LogEntry",
    "Match",
    "MatchOver",
    "PlayedHand",
    "PlayerView",
    "PublicMove",
    "R",
    "RecordError",
    "U",
    "action_from_json",
    "action_to_json",
    "code_tile",
    "describe_action",
    "determinize",
    "dumps_record",
    "load_record_text",
    "open_code",
    "parse_tile",
    "play_code",
    "player_view",
    "read_record",
    "shuffled_deal",
    "tile_name",
    "verify_record",
    "write_record",
]
