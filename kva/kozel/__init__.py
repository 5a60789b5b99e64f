"""The rules of Kozel (Козёл) for 2, 3 or 4 players: pure, typed, standard library only.

docs/kozel.md has the rules; ``Match`` plays them::

    match = Match(4, Options(fish="one", pairs=True), rng=random.Random(7))
    while not match.over:
        seat = match.turn
        view = seat_view(match, seat)            # what that seat may know
        match.apply(view.legal[0], seat)
    doc = write_record(match)                    # kozel/1 JSON
    verify_record(doc)                           # replays and checks every rule

A seeded match, step by step (nobody holds 1-1, so seat 0 opens with its 2-2):

>>> import random
>>> match = Match(2, Options(fish="one"), rng=random.Random(5))
>>> match
<Match seats=2 fish=one hand=1 score=0:0 remembered=0:0 turn=0>
>>> view = seat_view(match, 0)
>>> [describe_action(code) for code in view.legal]
['open 2-2']
>>> match.apply(view.legal[0], 1)
Traceback (most recent call last):
...
kva.rules.hand.IllegalAction: it is seat 0's turn, not seat 1's
>>> chooser = random.Random(1)
>>> while not match.over:
...     match.apply(chooser.choice(match.legal(match.turn)))
>>> match
<Match seats=2 fish=one hand=... over losers=...>
>>> verify_record(write_record(match)).score == match.score
True
"""

from kva.kozel.codes import (
    DRAW,
    ENDS,
    KNOCK,
    OPEN_BASE,
    action_from_json,
    action_to_json,
    code_tile,
    describe_action,
    open_code,
    play_code,
)
from kva.kozel.deal import Deal, Dealer, Voided, first_opening, redeal_reason, shuffled_deal
from kva.kozel.fair import KozelFairDealer, check_fair
from kva.kozel.hand import HandState, seat_count
from kva.kozel.match import FORFEIT_REASONS, HandResult, Match, MatchOver, PlayedHand
from kva.kozel.options import FISH_RULES, LIMIT, SEAT_COUNTS, BadOptions, Options
from kva.kozel.record import FORMAT, dumps_record, moves_to_record, write_record
from kva.kozel.scoring import Scored, rating_changes, score_hand, side_counts
from kva.kozel.verify import read_record, verify_record
from kva.kozel.view import (
    PublicMove,
    SeatView,
    move_to_json,
    public_moves,
    result_to_json,
    seat_view,
    spectator_view,
    view_to_json,
)

__all__ = [
    "DRAW",
    "ENDS",
    "FISH_RULES",
    "FORMAT",
    "FORFEIT_REASONS",
    "KNOCK",
    "LIMIT",
    "OPEN_BASE",
    "SEAT_COUNTS",
    "BadOptions",
    "Deal",
    "Dealer",
    "HandResult",
    "HandState",
    "KozelFairDealer",
    "Match",
    "MatchOver",
    "Options",
    "PlayedHand",
    "PublicMove",
    "Scored",
    "SeatView",
    "Voided",
    "action_from_json",
    "action_to_json",
    "check_fair",
    "code_tile",
    "describe_action",
    "dumps_record",
    "first_opening",
    "move_to_json",
    "moves_to_record",
    "open_code",
    "play_code",
    "public_moves",
    "rating_changes",
    "read_record",
    "redeal_reason",
    "result_to_json",
    "score_hand",
    "seat_count",
    "seat_view",
    "shuffled_deal",
    "side_counts",
    "spectator_view",
    "verify_record",
    "view_to_json",
    "write_record",
]
