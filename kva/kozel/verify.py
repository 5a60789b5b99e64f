"""Reading and verifying ``kozel/1`` records: a replay through the engine that checks every rule.

:func:`read_record` replays a document and returns the :class:`Match`; :func:`verify_record` is
the same check on a finished match. A record that is malformed or breaks a rule raises
:class:`kva.rules.RecordError` naming the place (``hands[1].moves[14]``) and the rule
(``kozel.md §3.1``), as kozel-record.md's "What a verifier checks" lists.
"""

from __future__ import annotations

from typing import Any

from kva.kozel.codes import DRAW, KNOCK, open_code, play_code
from kva.kozel.deal import Deal, Dealer, RandomSource, Voided, redeal_reason, shuffled_deal
from kva.kozel.fair import check_fair
from kva.kozel.hand import HandState
from kva.kozel.match import FORFEIT_REASONS, Match
from kva.kozel.options import BadOptions, Options
from kva.kozel.record import FORMAT
from kva.kozel.view import result_to_json
from kva.rules import RecordError, parse_halves
from kva.rules.engine import NUMBER_MASK, TILE_BIT, TILE_COUNT, TILE_ID, TILE_NAME

_WHY = {"doubles": "five or more doubles", "suit": "six or more tiles of one number"}


class _RecordEnds(Exception):
    """The match asked for a hand the record does not hold."""


def _field(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict):
        raise RecordError(where, f"expected an object, found {type(obj).__name__}")
    if key not in obj:
        raise RecordError(where, f"missing field '{key}'")
    return obj[key]


def _int(value: Any, where: str, below: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RecordError(where, f"expected a whole number, found {value!r}")
    if below is not None and value >= below:
        raise RecordError(where, f"must be below {below}, found {value}")
    return value


def _halves(value: Any, where: str) -> tuple[int, int]:
    try:
        return parse_halves(value)
    except ValueError as exc:
        raise RecordError(where, str(exc)) from None


def _sides(doc: Any) -> tuple[int, tuple[tuple[int, ...], ...], Options]:
    sides = _field(doc, "sides", "")
    options = _field(doc, "options", "")
    fish = _field(options, "fish", "options")
    limit = _field(options, "limit", "options")
    singles = isinstance(sides, list) and 2 <= len(sides) <= 4 and all(
        side == [p] for p, side in enumerate(sides))
    pairs = sides == [[0, 2], [1, 3]]
    if not (singles or pairs):
        raise RecordError("sides", "must be [[0],[1],…] (2 to 4 seats) or [[0,2],[1,3]]")
    try:
        opts = Options(fish=fish, pairs=pairs, limit=limit)
    except BadOptions as exc:
        raise RecordError("options", str(exc)) from None
    seats = 4 if pairs else len(sides)
    return seats, opts.sides(seats), opts


def _deal(value: Any, seats: int, where: str) -> Deal:
    hands = _field(value, "hands", where)
    bazaar = _field(value, "bazaar", where)
    if not isinstance(hands, list) or len(hands) != seats:
        raise RecordError(f"{where}.hands", f"must list the {seats} seats' hands")
    rows: list[tuple[int, ...]] = []
    for p, tiles in enumerate(hands):
        if not isinstance(tiles, list) or len(tiles) != 7:
            raise RecordError(f"{where}.hands[{p}]", "must list exactly 7 tiles (kozel.md §1)")
        rows.append(tuple(TILE_ID[a][b] for a, b in
                          (_halves(t, f"{where}.hands[{p}][{i}]") for i, t in enumerate(tiles))))
    size = TILE_COUNT - 7 * seats
    if not isinstance(bazaar, list) or len(bazaar) != size:
        raise RecordError(f"{where}.bazaar", f"must list the {size} tiles left (28 − 7 × {seats})")
    rest = tuple(TILE_ID[a][b] for a, b in
                 (_halves(t, f"{where}.bazaar[{i}]") for i, t in enumerate(bazaar)))
    every = [t for row in rows for t in row] + list(rest)
    if len(set(every)) != TILE_COUNT:
        twice = sorted({TILE_NAME[t] for t in every if every.count(t) > 1})
        raise RecordError(where, f"is not the 28-tile set: {' '.join(twice)} dealt twice")
    return Deal(tuple(rows), rest)


def _deals(hand: Any, seats: int, where: str) -> tuple[list[Voided], Deal]:
    """A hand's voided deals (each really void, for the reason given) and its played deal."""
    voided_json = hand.get("voided") or [] if isinstance(hand, dict) else []
    if not isinstance(voided_json, list):
        raise RecordError(f"{where}.voided", "must be a list")
    voided: list[Voided] = []
    for i, entry in enumerate(voided_json):
        place = f"{where}.voided[{i}]"
        deal = _deal(entry, seats, place)
        why = (_field(entry, "why", place), _field(entry, "seat", place))
        actual = redeal_reason(deal)
        if actual is None:
            raise RecordError(place, "breaks no redeal rule, so it must be played (kozel.md §1)")
        if actual != why:
            raise RecordError(place, f"is void for {_WHY[actual[0]]} in seat {actual[1]}'s hand, "
                                     f"not {why[0]!r} of seat {why[1]!r} (kozel.md §1)")
        voided.append(Voided(deal, *actual))
    deal = _deal(_field(hand, "deal", where), seats, f"{where}.deal")
    broken = redeal_reason(deal)
    if broken is not None:
        raise RecordError(f"{where}.deal", f"seat {broken[1]} holds {_WHY[broken[0]]}: "
                                           "the deal must be redealt (kozel.md §1)")
    return voided, deal


def _illegal(state: HandState, seat: int, code: int) -> str:
    """Why ``code`` is not legal for the seat on turn (it is not among the legal codes)."""
    legal = state.legal_codes()
    if code == DRAW:
        if legal == [KNOCK]:
            return "draws, but the bazaar has nothing drawable left: its last tile is never " \
                   "drawn (kozel.md §1)"
        return "draws while holding a tile that fits (kozel.md §3.1)"
    if code == KNOCK:
        if legal == [DRAW]:
            return "knocks while a tile can be drawn (kozel.md §3.2)"
        return "knocks while holding a tile that fits (kozel.md §3.1)"
    tile = code >> 1 if code < 56 else code - 56
    if not state.hands[seat] & TILE_BIT[tile]:
        return f"plays {TILE_NAME[tile]}, which seat {seat} does not hold"
    if code >= 56:
        return f"opens with {TILE_NAME[tile]}, but the line is already open"
    return f"plays {TILE_NAME[tile]}, which does not fit that end (kozel.md §3.1)"


def _move_code(move: Any, state: HandState, flip: bool, where: str) -> tuple[int, bool]:
    """A record move as an action code for ``state``; ``flip`` mirrors L and R (the opening was
    written high half first). Returns the code and the hand's flip."""
    seat = state.turn
    if not isinstance(move, dict):
        raise RecordError(where, "a move must be an object")
    p = _int(_field(move, "p", where), f"{where}.p")
    if p != seat:
        raise RecordError(where, f"seat {p} acts, but it is seat {seat}'s turn (kozel.md §3)")
    kinds = [k for k in ("play", "draw", "knock") if k in move]
    if len(kinds) != 1:
        raise RecordError(where, "a move holds exactly one of play, draw, knock")
    if kinds[0] == "knock":
        if move["knock"] is not True:
            raise RecordError(f"{where}.knock", "must be true")
        return KNOCK, flip
    if kinds[0] == "draw":
        a, b = _halves(move["draw"], f"{where}.draw")
        if DRAW in state.legal_codes():
            next_tile = state.bazaar[state.drawn]
            if TILE_ID[a][b] != next_tile:
                raise RecordError(f"{where}.draw", f"draws {a}-{b}, but the next bazaar tile "
                                                   f"is {TILE_NAME[next_tile]}")
        return DRAW, flip
    a, b = _halves(move["play"], f"{where}.play")
    tile = TILE_ID[a][b]
    if state.left < 0:
        if "end" in move:
            raise RecordError(f"{where}.end", "the opening tile has no end")
        if state.opening is not None and tile != state.opening:
            raise RecordError(where, f"the first hand opens with {TILE_NAME[state.opening]}, "
                                     f"not {a}-{b} (kozel.md §2)")
        return open_code(tile), a > b
    end = move.get("end")
    if end not in ("L", "R"):
        raise RecordError(f"{where}.end", f"must be L or R, found {end!r}")
    index = (end == "R") ^ flip
    touching = state.right if index else state.left
    if a != touching and NUMBER_MASK[touching] & TILE_BIT[tile]:
        raise RecordError(f"{where}.play", f"the touching half is written first: {b}-{a}")
    return play_code(tile, int(index)), flip


def _compare(where: str, what: str, found: Any, rules: Any) -> None:
    if found != rules:
        raise RecordError(where, f"{what} is {found!r}, the rules give {rules!r}")


def _replay_hand(match: Match, hand: Any, where: str, complete: bool) -> None:
    played = match.current
    _compare(f"{where}.opener", "the opener", _field(hand, "opener", where), played.opener)
    state = played.state
    moves = _field(hand, "moves", where)
    if not isinstance(moves, list):
        raise RecordError(f"{where}.moves", "must be a list")
    flip = False
    for i, move in enumerate(moves):
        place = f"{where}.moves[{i}]"
        if state.over:
            raise RecordError(place, f"the hand already ended ({state.end} by seat {state.by}; "
                                     "kozel.md §4)")
        code, flip = _move_code(move, state, flip, place)
        if code not in state.legal_codes():
            raise RecordError(place, _illegal(state, state.turn, code))
        try:
            match.apply(code, state.turn)
        except _RecordEnds:
            raise RecordError(where, "the match goes on (no score reached the limit), but the "
                                     "record ends here (kozel.md §5.7)") from None
    result = hand.get("result") if isinstance(hand, dict) else None
    if result is None:
        if complete or state.over:
            raise RecordError(f"{where}.result", "missing: " + (
                "the hand is over" if state.over else "a finished record ends every hand"))
        return
    end = _field(result, "end", f"{where}.result")
    if end == "forfeit":
        by = _int(_field(result, "by", f"{where}.result"), f"{where}.result.by", match.seats)
        reason = _field(result, "reason", f"{where}.result")
        if reason not in FORFEIT_REASONS:
            raise RecordError(f"{where}.result.reason", "must be time, resign or abandon")
        if state.over:
            raise RecordError(f"{where}.result", "a forfeit ends an unfinished hand, and this "
                                                 "one is over")
        match.forfeit(by, reason)
    elif not state.over:
        raise RecordError(f"{where}.moves", "the hand does not end after its last move "
                                            "(kozel.md §4)")
    assert played.result is not None
    for key, value in result_to_json(played.result).items():
        _compare(f"{where}.result.{key}", key, result.get(key), value)
    _compare(f"{where}.score", "the score", hand.get("score"), list(played.score))
    _compare(f"{where}.remembered", "remembered", hand.get("remembered"),
             list(played.remembered))


def read_record(doc: Any, *, complete: bool = True, rng: RandomSource | None = None,
                dealer: Dealer | None = None) -> Match:
    """Replay ``doc`` through the engine, checking every rule, and return the match.

    With ``complete=False`` a match in progress is accepted (its last hand without a result);
    hands after the record's are dealt from ``dealer`` or else ``rng``. Raises RecordError."""
    if not isinstance(doc, dict):
        raise RecordError("", "a record is a JSON object")
    if doc.get("format") != FORMAT:
        raise RecordError("format", f"must be {FORMAT!r}, found {doc.get('format')!r}")
    seats, sides, options = _sides(doc)
    hands = _field(doc, "hands", "")
    if not isinstance(hands, list) or not hands:
        raise RecordError("hands", "must list at least one hand")
    deals = [_deals(hand, seats, f"hands[{k}]") for k, hand in enumerate(hands)]
    check_fair(doc, seats, deals, complete=complete)

    def recorded(k: int, n: int) -> Deal:
        if k < len(deals):
            voided, deal = deals[k]
            return voided[n].deal if n < len(voided) else deal
        if dealer is not None:
            return dealer(k, n)
        if rng is not None and not complete:
            return shuffled_deal(rng, seats)
        raise _RecordEnds

    match = Match(seats, options, dealer=recorded)
    for k, hand in enumerate(hands):
        where = f"hands[{k}]"
        if match.over:
            raise RecordError(where, f"the match ended with hand {k} (kozel.md §5.7)")
        _replay_hand(match, hand, where, complete or k + 1 < len(hands))
    if match.over or complete:
        if not match.over:
            raise RecordError("hands", "the match is not over after the last hand")
        _compare("loser", "the loser", doc.get("loser"), list(match.losers))
        _compare("score", "the final score", doc.get("score"), list(match.score))
    return match


def verify_record(doc: Any) -> Match:
    """Check a finished match's record; return the replayed match or raise RecordError."""
    return read_record(doc, complete=True)
