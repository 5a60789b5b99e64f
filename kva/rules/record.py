"""Match records in the ``georgian-domino/1`` format (docs/record-format.md).

:func:`write_record` turns a :class:`Match` into the JSON document; :func:`read_record` replays a
document through the engine, checking everything the rules decide, and returns the match;
:func:`verify_record` is the same check without keeping the result. A record that breaks a rule
raises :class:`RecordError` naming the place (``hands[1].moves[14]``) and what is wrong.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Final

from kva.rules.codes import DRAW, END_INDEX, OPEN_BASE, PASS, open_code, play_code
from kva.rules.fair import Dealer, verify_fair
from kva.rules.hand import Deal, IllegalAction
from kva.rules.match import (
    FORFEIT_REASONS,
    Match,
    PlayedHand,
    RandomSource,
    highest_double,
)
from kva.rules.moves import move_to_record
from kva.rules.settings import BadSettings, MatchSettings
from kva.rules.tiles import TILE_COUNT, TILE_ID, TILE_LOW, TILE_NAME, parse_halves

FORMAT: Final = "georgian-domino/1"


class RecordError(ValueError):
    """A record that is malformed or breaks the rules; ``where`` is a JSON path like
    ``hands[0].moves[3]`` (empty for the document itself)."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


# --------------------------------------------------------------------------- writing
def write_record(
    match: Match,
    players: list[dict[str, Any]] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``georgian-domino/1`` document of ``match`` (finished, forfeited, or in progress:
    a match in progress has ``winner`` null and its last hand no ``result``; such a record holds
    hidden information and is for storage only)."""
    hands_json: list[dict[str, Any]] = []
    for played in match.hands:
        entry = hand_head_record(played)
        entry["moves"] = [move_to_record(logged) for logged in played.state.log]
        result = hand_result_record(played)
        if result is not None and played.score_after is not None:
            entry["result"] = result
            entry["score"] = list(played.score_after)
        hands_json.append(entry)
    return {
        "format": FORMAT,
        "target": match.target,
        "bazaar": match.bazaar,
        "players": players if players is not None else [{"name": "player 0"}, {"name": "player 1"}],
        "meta": meta if meta is not None else {},
        "hands": hands_json,
        "winner": match.winner,
        "score": list(match.scores),
    }


def hand_head_record(played: PlayedHand) -> dict[str, Any]:
    """The start of one hand's entry in a record: its ``opener`` and ``deal`` (no moves yet)."""
    return {
        "opener": played.opener,
        "deal": {
            "hands": [[TILE_NAME[t] for t in played.deal.hands[p]] for p in (0, 1)],
            "bazaar": [TILE_NAME[t] for t in played.deal.bazaar],
        },
    }


def hand_result_record(played: PlayedHand) -> dict[str, Any] | None:
    """A finished hand's ``result`` as a record writes it (None while the hand goes on)."""
    if played.result is None:
        return None
    result: dict[str, Any] = {
        "end": played.result.end,
        "winner": played.result.winner,
        "points": played.result.points,
    }
    if played.result.reason is not None:
        result["reason"] = played.result.reason
    return result


def dumps_record(doc: dict[str, Any]) -> str:
    """Serialise a record the way kva stores and exports it."""
    return json.dumps(doc, ensure_ascii=False, indent=1)


# --------------------------------------------------------------------------- reading
def _field(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict):
        raise RecordError(where, f"expected an object, found {type(obj).__name__}")
    if key not in obj:
        raise RecordError(where, f"missing field '{key}'")
    return obj[key]


def _int(value: Any, where: str, allowed: tuple[int, ...] | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(where, f"expected an integer, found {value!r}")
    if allowed is not None and value not in allowed:
        raise RecordError(where, f"must be one of {list(allowed)}, found {value}")
    return value


def _tile(value: Any, where: str) -> int:
    try:
        a, b = parse_halves(value)
    except ValueError as exc:
        raise RecordError(where, str(exc)) from None
    return TILE_ID[a][b]


def _player(value: Any, where: str) -> int:
    return _int(value, where, (0, 1))


def _deal(hand: Any, where: str) -> Deal:
    deal = _field(hand, "deal", where)
    hands = _field(deal, "hands", f"{where}.deal")
    bazaar = _field(deal, "bazaar", f"{where}.deal")
    if not isinstance(hands, list) or len(hands) != 2:
        raise RecordError(f"{where}.deal.hands", "must list the two players' hands")
    lists: list[list[int]] = []
    for p, tiles in enumerate(hands):
        if not isinstance(tiles, list) or len(tiles) != 7:
            raise RecordError(f"{where}.deal.hands[{p}]", "must list exactly 7 tiles")
        lists.append([_tile(t, f"{where}.deal.hands[{p}][{i}]") for i, t in enumerate(tiles)])
    if not isinstance(bazaar, list) or len(bazaar) != 14:
        raise RecordError(f"{where}.deal.bazaar", "must list exactly 14 tiles")
    rest = [_tile(t, f"{where}.deal.bazaar[{i}]") for i, t in enumerate(bazaar)]
    everything = lists[0] + lists[1] + rest
    if len(set(everything)) != TILE_COUNT:
        counts = Counter(everything)
        names = ", ".join(TILE_NAME[t] for t in sorted(counts) if counts[t] > 1)
        raise RecordError(f"{where}.deal", f"is not the 28-tile set: {names} dealt twice")
    return Deal((tuple(lists[0]), tuple(lists[1])), tuple(rest))


def _action_code(move: Any, where: str, opening: bool) -> int:
    """The engine code of a move object, checking only its shape."""
    if not isinstance(move, dict):
        raise RecordError(where, "a move must be an object")
    kinds = [k for k in ("play", "draw", "pass") if k in move]
    if len(kinds) != 1:
        raise RecordError(where, "a move must have exactly one of 'play', 'draw', 'pass'")
    kind = kinds[0]
    if kind == "draw":
        _tile(move["draw"], f"{where}.draw")
        return DRAW
    if kind == "pass":
        if move["pass"] is not True:
            raise RecordError(where, "'pass' must be true")
        return PASS
    try:
        a, b = parse_halves(move["play"])
    except ValueError as exc:
        raise RecordError(f"{where}.play", str(exc)) from None
    tile = TILE_ID[a][b]
    if opening:
        if "end" in move:
            raise RecordError(where, "the opening tile takes no 'end'")
        return open_code(tile, flipped=a != TILE_LOW[tile])
    end = _field(move, "end", where)
    if not isinstance(end, str) or end not in END_INDEX:
        raise RecordError(f"{where}.end", f"must be L, R, U or D, found {end!r}")
    return play_code(tile, END_INDEX[end])


def read_record(
    doc: Any,
    *,
    complete: bool = True,
    rng: RandomSource | None = None,
    dealer: Dealer | None = None,
) -> Match:
    """Replay ``doc`` through the engine, checking every rule, and return the match.

    With ``complete=False`` a match in progress is accepted (its last hand without a result);
    later hands are then dealt from ``dealer`` (a kva-fair/1 ``FairDealer``) or else ``rng``.
    When ``meta.fair`` is present its commitment, seeds and every deal are checked too
    (:func:`kva.rules.fair.verify_fair`). Raises :class:`RecordError` at the first problem.
    """
    if not isinstance(doc, dict):
        raise RecordError("", "a record must be a JSON object")
    fmt = _field(doc, "format", "")
    if fmt != FORMAT:
        raise RecordError("format", f"must be '{FORMAT}', found {fmt!r}")
    settings = _settings(doc)
    target, bazaar = settings.target, settings.bazaar
    hands = _field(doc, "hands", "")
    if not isinstance(hands, list) or not hands:
        raise RecordError("hands", "must be a non-empty list")
    deals = [_deal(hand, f"hands[{i}]") for i, hand in enumerate(hands)]
    unfair = verify_fair(doc, deals, complete=complete)
    if unfair is not None:
        raise RecordError(unfair.where, unfair.problem)
    first = highest_double(deals[0])
    if first is None:
        raise RecordError("hands[0].deal", "nobody holds a double: the first deal must be redealt")
    try:
        match = Match(target, bazaar, rng, deals=deals, dealer=dealer)
    except ValueError as exc:  # pragma: no cover - checked above
        raise RecordError("hands[0]", str(exc)) from None
    for i, hand in enumerate(hands):
        where = f"hands[{i}]"
        if match.over:
            raise RecordError(where, "extra hand: the match was already over")
        _replay_hand(match, hand, where, last=i == len(hands) - 1, complete=complete)
    if complete:
        if not match.over:
            raise RecordError("hands", "missing hands: the match is not over")
        winner = _field(doc, "winner", "")
        if not _same(winner, match.winner):
            raise RecordError("winner", f"is {winner!r}, but the rules give {match.winner}")
    score = _field(doc, "score", "")
    if not _same(score, match.scores):
        raise RecordError("score", f"is {score!r}, but the rules give {match.scores}")
    return match


def _replay_hand(match: Match, hand: Any, where: str, *, last: bool, complete: bool) -> None:
    played = match.hands[-1]
    state = played.state
    opener = _player(_field(hand, "opener", where), f"{where}.opener")
    if opener != played.opener:
        raise RecordError(f"{where}.opener", f"is {opener}, but the rules give {played.opener}")
    moves = _field(hand, "moves", where)
    if not isinstance(moves, list):
        raise RecordError(f"{where}.moves", "must be a list")
    result = hand.get("result")
    forfeit = isinstance(result, dict) and result.get("end") == "forfeit"
    for j, move in enumerate(moves):
        at = f"{where}.moves[{j}]"
        if state.over:
            raise RecordError(at, "extra action: the hand was already over")
        p = _player(_field(move, "p", at), f"{at}.p")
        if p != state.turn:
            raise RecordError(at, f"acted by player {p}, but it is player {state.turn}'s turn")
        code = _action_code(move, at, opening=state.placed == 0)
        if code == DRAW and DRAW in state.legal_codes():
            expected = state.bazaar[state.draw_pos]
            drawn = _tile(move["draw"], f"{at}.draw")
            if drawn != expected:
                raise RecordError(
                    f"{at}.draw",
                    f"is {TILE_NAME[drawn]}, but the next bazaar tile is {TILE_NAME[expected]}",
                )
        try:
            match.apply(code)
        except IllegalAction as exc:
            raise RecordError(at, str(exc)) from None
        except IndexError:  # the hand ended, the match goes on, and the record deals no more
            raise RecordError(
                "hands", f"missing hands: the match is not over after {where}"
            ) from None
        _, _, _, points, ends_sum = state.log[-1]
        if code < DRAW:
            _check(move, "points", points, at)
            if code < OPEN_BASE:
                _check(move, "ends_sum", ends_sum, at)
            elif "ends_sum" in move:
                raise RecordError(at, "the opening tile carries no 'ends_sum'")
    if forfeit:
        assert isinstance(result, dict)
        if not last:
            raise RecordError(f"{where}.result", "a forfeit ends the match: no hand may follow")
        if state.over:
            raise RecordError(f"{where}.result", "forfeit after the hand was already over")
        winner = _player(_field(result, "winner", f"{where}.result"), f"{where}.result.winner")
        reason = _field(result, "reason", f"{where}.result")
        if reason not in FORFEIT_REASONS:
            raise RecordError(
                f"{where}.result.reason",
                f"must be one of {list(FORFEIT_REASONS)}, found {reason!r}",
            )
        if _int(_field(result, "points", f"{where}.result"), f"{where}.result.points") != 0:
            raise RecordError(f"{where}.result.points", "a forfeit scores 0")
        match.forfeit(1 - winner, reason)
    elif not state.over:
        if last and not complete and "result" not in hand:
            return
        raise RecordError(
            f"{where}.moves", f"missing actions: the hand is not over after {len(moves)} actions"
        )
    res = _field(hand, "result", where)
    if not forfeit:
        assert played.result is not None
        rules_result = {
            "end": played.result.end,
            "winner": played.result.winner,
            "points": played.result.points,
        }
        for key, value in rules_result.items():
            got = _field(res, key, f"{where}.result")
            if got != value or (isinstance(got, bool) and not isinstance(value, bool)):
                raise RecordError(
                    f"{where}.result.{key}", f"is {got!r}, but the rules give {value!r}"
                )
    score = _field(hand, "score", where)
    assert played.score_after is not None
    if not _same(score, list(played.score_after)):
        raise RecordError(
            f"{where}.score", f"is {score!r}, but the rules give {list(played.score_after)}"
        )


def _settings(doc: dict[str, Any]) -> MatchSettings:
    """The target and bazaar rule a record plays under, checked in that order."""
    target = _int(_field(doc, "target", ""), "target")
    try:
        MatchSettings(target)
    except BadSettings as exc:
        raise RecordError("target", f"{exc.message}, found {target!r}") from None
    bazaar = _field(doc, "bazaar", "")
    try:
        return MatchSettings(target, bazaar)
    except BadSettings as exc:
        raise RecordError("bazaar", f"{exc.message}, found {bazaar!r}") from None


def _same(got: Any, rules: Any) -> bool:
    """JSON equality: unlike ``==`` it tells ``true`` from 1 and ``false`` from 0."""
    if isinstance(rules, list):
        return (
            isinstance(got, list)
            and len(got) == len(rules)
            and all(_same(g, r) for g, r in zip(got, rules, strict=True))
        )
    return isinstance(got, bool) == isinstance(rules, bool) and got == rules


def _check(move: dict[str, Any], key: str, expected: int, at: str) -> None:
    got = _field(move, key, at)
    if isinstance(got, bool) or got != expected:
        raise RecordError(f"{at}.{key}", f"is {got!r}, but the rules give {expected}")


def verify_record(doc: Any) -> Match:
    """Check a complete record; return the replayed match or raise :class:`RecordError`."""
    return read_record(doc, complete=True)


def load_record_text(text: str) -> Any:
    """Parse JSON text, turning a syntax error into a :class:`RecordError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            "", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
