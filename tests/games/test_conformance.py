"""Every game behind the interface keeps its promises: the same suite runs against each
registered game and the tests' race game, through :class:`kva.games.Game` only.

Random playouts reach a finished match; every legal action applies; an illegal one raises
:class:`kva.games.IllegalAction` and changes nothing; no view shows another seat's hidden
tiles; actions survive their JSON form; the record verifies and a tampered one does not; the
same seeds give the same match.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kva.games import AnyGame, BadOptions, DealSeeds, IllegalAction, RecordError
from tests.games.probes import games_under_test, probe

#: Every game at every seat count it plays.
TABLES = [
    pytest.param(game, seats, id=f"{game.name}-{seats}")
    for game in games_under_test()
    for seats in game.seats
]
GAMES = [pytest.param(game, id=game.name) for game in games_under_test()]
#: A playout longer than this is a game that never ends.
MAX_STEPS = 5000
#: JSON values a client might send that name no action of any game.
JUNK: tuple[object, ...] = (None, True, 3, "draw", [], {}, {"type": "fly"},
                            {"type": "play", "tile": 5}, {"type": "add", "amount": "1"})

Check = Callable[[Any, int], None]


def new_match(game: AnyGame, seats: int, seed: int) -> Any:
    """A match of ``game`` at ``seats`` seats on its quick options, dealt from ``seed``."""
    options = game.parse_options(probe(game).quick_options)
    return game.new_match(options, seats, DealSeeds.from_rng(random.Random(seed), seats))


def play_out(game: AnyGame, state: Any, seed: int, check: Check | None = None) -> Any:
    """Play ``state`` to its end with random legal actions (``check`` sees each position
    first, with the seat to act)."""
    chooser = random.Random(seed)
    for _ in range(MAX_STEPS):
        acting = game.to_act(state)
        if not acting:
            return state
        seat = chooser.choice(acting)
        if check is not None:
            check(state, seat)
        game.apply(state, seat, chooser.choice(game.legal_actions(state, seat)))
    raise AssertionError(f"{game.name}: no end after {MAX_STEPS} actions")


def strings_in(value: Any) -> set[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(strings_in(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(strings_in(v) for v in value))
    return set()


def snapshot(game: AnyGame, state: Any, seats: int) -> str:
    """Everything the interface shows of ``state``: each view and the record."""
    views = [game.seat_view(state, seat) for seat in range(seats)]
    return json.dumps([views, game.spectator_view(state), game.write_record(state)],
                      sort_keys=True)


# --------------------------------------------------------------------------- playouts
@pytest.mark.parametrize(("game", "seats"), TABLES)
@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_random_playout_reaches_a_finished_match_keeping_every_promise(
    game: AnyGame, seats: int, seed: int
) -> None:
    seen = probe(game)

    def check(state: Any, seat: int) -> None:
        acting = game.to_act(state)
        legal = game.legal_actions(state, seat)
        assert legal, "a seat to act has an action"
        forced = game.forced_action(state, seat)
        assert forced is None or (forced in legal and len(legal) == 1)
        assert not game.is_over(state) and game.match_result(state) is None
        for other in range(seats):
            if other not in acting:
                assert game.legal_actions(state, other) == ()
                assert game.forced_action(state, other) is None
        for action in legal:
            message = json.loads(json.dumps(game.action_to_json(action)))
            assert game.action_from_json(state, seat, message) == action
        nobody = seen.hidden(state, None)
        for viewer in range(seats):
            shown = strings_in(seen.current(game.seat_view(state, viewer)))
            others = set(nobody).union(*(seen.hidden(state, p) for p in range(seats)
                                         if p != viewer))
            leaked = shown & others
            assert not leaked, f"seat {viewer} sees {sorted(leaked)}"
            # The probe and the scan look at the right names: a seat sees its own.
            mine = seen.hidden(state, viewer) - others
            assert not mine or shown & mine, f"seat {viewer} sees nothing of its own"
        everyone = set(nobody).union(*(seen.hidden(state, p) for p in range(seats)))
        leaked = strings_in(seen.current(game.spectator_view(state))) & everyone
        assert not leaked, f"a spectator sees {sorted(leaked)}"

    state = play_out(game, new_match(game, seats, seed), seed, check)

    assert game.to_act(state) == ()
    assert all(game.legal_actions(state, seat) == () for seat in range(seats))
    assert game.is_over(state)
    result = game.match_result(state)
    assert result is not None and result.forfeit is None
    places = [seat for group in result.ranking for seat in group]
    assert sorted(places) == list(range(seats))
    assert result.losers and set(result.losers) == set(result.ranking[-1]) | set(result.losers)
    everyone_lost = set(result.losers) == set(places)
    assert result.winners == (() if everyone_lost else result.ranking[0])
    assert not set(result.winners) & set(result.losers)
    hands = game.hand_results(state)
    assert hands and [h.number for h in hands] == list(range(1, len(hands) + 1))
    assert hands[-1].scores == result.scores


@pytest.mark.parametrize(("game", "seats"), TABLES)
def test_every_legal_action_applies(game: AnyGame, seats: int) -> None:
    def check(state: Any, seat: int) -> None:
        for action in game.legal_actions(state, seat):
            game.apply(copy.deepcopy(state), seat, action)

    play_out(game, new_match(game, seats, 11), 12, check)


@pytest.mark.parametrize(("game", "seats"), TABLES)
def test_an_illegal_action_raises_the_typed_error_and_changes_nothing(
    game: AnyGame, seats: int
) -> None:
    universe = probe(game).universe
    positions = 0

    def check(state: Any, seat: int) -> None:
        nonlocal positions
        positions += 1
        if positions % 3:  # every third position keeps the suite fast; seeds vary the rest
            return
        before = snapshot(game, state, seats)
        legal = game.legal_actions(state, seat)
        for action in universe:
            if action not in legal:
                with pytest.raises(IllegalAction):
                    game.apply(state, seat, action)
        for other in range(seats):
            if other != seat:
                with pytest.raises(IllegalAction):
                    game.apply(state, other, legal[0])
        for message in JUNK:
            with pytest.raises(IllegalAction):
                game.action_from_json(state, seat, message)
        assert snapshot(game, state, seats) == before

    state = play_out(game, new_match(game, seats, 21), 22, check)
    assert positions >= 3
    finished = snapshot(game, state, seats)
    for seat in range(seats):
        for action in universe:
            with pytest.raises(IllegalAction):
                game.apply(state, seat, action)
    with pytest.raises(IllegalAction):
        game.forfeit(state, 0, "resign")
    assert snapshot(game, state, seats) == finished


# --------------------------------------------------------------------------- records
@pytest.mark.parametrize(("game", "seats"), TABLES)
def test_the_record_of_a_finished_match_verifies_and_a_tampered_one_does_not(
    game: AnyGame, seats: int
) -> None:
    state = play_out(game, new_match(game, seats, 31), 32)
    doc = game.write_record(state)
    assert doc["format"] == game.record_format
    text = json.dumps(doc)
    replayed = game.verify_record(text)
    assert json.dumps(game.write_record(replayed)) == text
    assert game.verify_record(json.loads(text)) is not None

    tampered = json.loads(text)
    probe(game).tamper(tampered)
    with pytest.raises(RecordError):
        game.verify_record(tampered)
    with pytest.raises(RecordError):
        game.verify_record({**json.loads(text), "format": "chess/1"})
    with pytest.raises(RecordError):
        game.verify_record(text[:-2])


@pytest.mark.parametrize(("game", "seats"), TABLES)
def test_a_match_is_dealt_fairly_from_its_seeds(game: AnyGame, seats: int) -> None:
    fair_meta = probe(game).fair_meta
    if fair_meta is None:
        pytest.skip(f"{game.name} deals no tiles")
    seeds = DealSeeds.from_rng(random.Random(41), seats)
    state = game.new_match(game.parse_options(probe(game).quick_options), seats, seeds)
    play_out(game, state, 42)
    assert game.verify_record(game.write_record(state, meta=fair_meta(seeds))) is not None
    other = DealSeeds(bytes(32), seeds.client_seeds)
    with pytest.raises(RecordError):
        game.verify_record(game.write_record(state, meta=fair_meta(other)))


@pytest.mark.parametrize(("game", "seats"), TABLES)
def test_a_forfeit_ends_the_match_and_its_record_verifies(game: AnyGame, seats: int) -> None:
    state = new_match(game, seats, 51)
    chooser = random.Random(52)
    for _ in range(5):
        seat = game.to_act(state)[0]
        game.apply(state, seat, chooser.choice(game.legal_actions(state, seat)))
    game.forfeit(state, 1, "timeout")
    result = game.match_result(state)
    assert result is not None and result.forfeit == "timeout"
    assert 1 in result.losers and 1 not in result.winners
    assert game.to_act(state) == ()
    replayed = game.verify_record(json.dumps(game.write_record(state)))
    assert game.match_result(replayed) == result


@pytest.mark.parametrize(("game", "seats"), TABLES)
def test_the_same_seeds_give_the_same_match(game: AnyGame, seats: int) -> None:
    def record(seed: int) -> str:
        return json.dumps(game.write_record(play_out(game, new_match(game, seats, seed), 62)))

    assert record(61) == record(61)
    assert record(61) != record(63)


# --------------------------------------------------------------------------- options
@pytest.mark.parametrize("game", GAMES)
def test_options_have_defaults_and_round_trip_through_a_plain_dict(game: AnyGame) -> None:
    defaults = game.parse_options({})
    assert game.parse_options(game.options_to_dict(defaults)) == defaults
    quick = game.parse_options(probe(game).quick_options)
    plain = game.options_to_dict(quick)
    assert json.loads(json.dumps(plain)) == plain
    assert game.parse_options(plain) == quick


@pytest.mark.parametrize("game", GAMES)
def test_bad_options_and_seat_counts_are_refused_with_a_clear_error(game: AnyGame) -> None:
    with pytest.raises(BadOptions, match="colour"):
        game.parse_options({"colour": "red"})
    options = game.parse_options({})
    for seats in (0, 1, 5):
        with pytest.raises(BadOptions) as refused:
            game.new_match(options, seats, DealSeeds.from_rng(random.Random(1), 2))
        assert refused.value.field == "seats"
    with pytest.raises(ValueError, match="client seed"):
        game.new_match(options, game.seats[0], DealSeeds.from_rng(random.Random(1), 5))


@pytest.mark.parametrize("game", GAMES)
def test_a_game_names_itself_its_record_format_and_its_ratings(game: AnyGame) -> None:
    assert game.name and game.name.isascii() and game.name == game.name.lower()
    assert game.record_format.endswith("/1")
    assert game.seats == tuple(sorted(game.seats)) and min(game.seats) >= 2
    assert game.rating_kind in ("glicko2", "kozel", "unrated")
