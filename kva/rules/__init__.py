"""The rules of Georgian domino for two players: pure, typed, standard library only.

One obvious API, in the spirit of python-chess::

    match = Match(target=175, bazaar="draw", rng=random.Random(7))
    while not match.over:
        view = player_view(match, match.turn)     # what that player may know
        match.apply(view.legal[0], player=match.turn)
    doc = write_record(match)                       # georgian-domino/1 JSON
    verify_record(doc)                              # replays and checks every rule

Everything a player, a server or a record checker needs is here, at the top level: code
outside the package imports from ``kva.rules`` only. Actions are small int codes;
:func:`action_from_json` and :func:`action_to_json` read and write them as JSON,
:func:`move_to_json` writes a played move. Search code that plays thousands of hands per
decision uses the bitmask layer beneath, :mod:`kva.rules.engine` (:class:`HandState` and its
tables).

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
from kva.rules.codes import DRAW, PASS, code_tile, open_code, play_code
from kva.rules.fair import (
    SCHEME,
    FairDealer,
    FairProblem,
    FairSeeds,
    check_client_seed,
    commitment,
    derive_deal,
    first_hand_deal,
    new_client_seed,
    new_server_seed,
    read_fair_meta,
    shuffled_order,
    verify_fair,
)
from kva.rules.hand import Deal, IllegalAction
from kva.rules.match import (
    FORFEIT_REASONS,
    HandResult,
    Match,
    MatchOver,
    PlayedHand,
    highest_double,
    shuffled_deal,
)
from kva.rules.moves import move_to_json, move_to_record
from kva.rules.numbers import parse_ascii_int
from kva.rules.record import (
    FORMAT,
    RecordError,
    dumps_record,
    hand_head_record,
    hand_result_record,
    load_record_text,
    read_record,
    verify_record,
    write_record,
)
from kva.rules.settings import BAZAAR_RULES, TARGETS, BadSettings, BazaarRule, MatchSettings
from kva.rules.tiles import parse_halves, parse_tile, tile_name
from kva.rules.view import (
    LAST_BOARD_MOVES,
    BoardView,
    HandSummary,
    PlayerView,
    PublicMove,
    hand_moves,
    player_view,
)
from kva.rules.view_json import (
    board_to_json,
    opening_to_json,
    placed_to_json,
    public_move_to_json,
    summary_to_json,
    view_to_json,
)

__all__ = [
    "BAZAAR_RULES",
    "DRAW",
    "FORFEIT_REASONS",
    "FORMAT",
    "LAST_BOARD_MOVES",
    "PASS",
    "SCHEME",
    "TARGETS",
    "BadSettings",
    "BazaarRule",
    "BoardView",
    "Deal",
    "FairDealer",
    "FairProblem",
    "FairSeeds",
    "HandResult",
    "HandSummary",
    "IllegalAction",
    "Match",
    "MatchOver",
    "MatchSettings",
    "PlayedHand",
    "PlayerView",
    "PublicMove",
    "RecordError",
    "action_from_json",
    "action_to_json",
    "board_to_json",
    "check_client_seed",
    "code_tile",
    "commitment",
    "derive_deal",
    "describe_action",
    "dumps_record",
    "first_hand_deal",
    "hand_head_record",
    "hand_moves",
    "hand_result_record",
    "highest_double",
    "load_record_text",
    "move_to_json",
    "move_to_record",
    "new_client_seed",
    "new_server_seed",
    "open_code",
    "opening_to_json",
    "parse_ascii_int",
    "parse_halves",
    "parse_tile",
    "placed_to_json",
    "play_code",
    "player_view",
    "public_move_to_json",
    "read_fair_meta",
    "read_record",
    "shuffled_deal",
    "shuffled_order",
    "summary_to_json",
    "tile_name",
    "verify_fair",
    "verify_record",
    "view_to_json",
    "write_record",
]
