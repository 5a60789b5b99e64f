"""record-format.md, "What a verifier checks": every kind of broken record is a RecordError that
names the place, and nothing else ever escapes the verifier."""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kva.rules import (
    DRAW,
    PASS,
    Match,
    RecordError,
    load_record_text,
    read_record,
    shuffled_deal,
    verify_record,
    write_record,
)
from kva.rules.codes import END_NAMES
from kva.rules.engine import HandState
from kva.rules.tiles import NUMBER_MASK, TILE_NAME, mask_of, tiles_of
from tests.rules.ruleshelp import random_match, row

Doc = dict[str, Any]


# ------------------------------------------------------------------ base records
@functools.cache
def _base(bazaar: str) -> tuple[Match, str]:
    """A finished self-played match of at least three hands, with draws, a fish and (under
    pass only) passes; returned with its record as JSON text."""
    for seed in range(1000):
        match = random_match(seed, 75, bazaar)
        logs = [played.state.log for played in match.hands]
        codes = {code for log in logs for _, code, *_ in log}
        ends = {played.result.end for played in match.hands if played.result is not None}
        wanted = DRAW in codes if bazaar == "draw" else PASS in codes
        if len(match.hands) >= 3 and wanted and "fish" in ends and "domino" in ends:
            return match, json.dumps(write_record(match))
    raise AssertionError("no suitable seed")


def base(bazaar: str = "draw") -> tuple[Match, Doc]:
    match, text = _base(bazaar)
    doc = json.loads(text)
    verify_record(doc)
    return match, doc


def state_before(match: Match, i: int, j: int) -> HandState:
    """Hand ``i`` of ``match`` replayed up to (not including) its action ``j``."""
    played = match.hands[i]
    state = HandState.from_deal(
        played.deal,
        played.opener,
        pass_only=played.state.pass_only,
        forced_opening=played.state.forced_opening,
    )
    for _, code, *_ in played.state.log[:j]:
        state.apply_unchecked(code)
    return state


def find(doc: Doc, test: Callable[[int, int, dict[str, Any]], bool]) -> tuple[int, int]:
    """The first (hand, move) whose move passes ``test``."""
    for i, hand in enumerate(doc["hands"]):
        for j, move in enumerate(hand["moves"]):
            if test(i, j, move):
                return i, j
    raise AssertionError("no such move in the base record")


def rejects(doc: Any, where: str, *words: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        verify_record(doc)
    err = info.value
    assert err.where == where, str(err)
    assert str(err).startswith(f"{where}: ") if where else True
    for word in words:
        assert word in str(err), str(err)
    return err


def _is_play(move: dict[str, Any]) -> bool:
    return "play" in move and "end" in move


def _after_draw(doc: Doc, i: int, j: int) -> bool:
    return j > 0 and "draw" in doc["hands"][i]["moves"][j - 1]


# ------------------------------------------------------------------ move values
def test_wrong_points_on_a_placement() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: _is_play(m) and m["points"] > 0)
    doc["hands"][i]["moves"][j]["points"] = 0
    rejects(doc, f"hands[{i}].moves[{j}].points", "rules give")


def test_points_claimed_for_a_sum_that_scores_nothing() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: _is_play(m) and m["points"] == 0)
    doc["hands"][i]["moves"][j]["points"] = 5
    rejects(doc, f"hands[{i}].moves[{j}].points")


def test_points_claimed_for_an_opening_other_than_5_5() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: j == 0 and m["play"] != "5-5")
    doc["hands"][i]["moves"][0]["points"] = 10
    rejects(doc, f"hands[{i}].moves[0].points")


def test_wrong_ends_sum() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: _is_play(m))
    doc["hands"][i]["moves"][j]["ends_sum"] += 1
    rejects(doc, f"hands[{i}].moves[{j}].ends_sum")


def test_points_as_true_instead_of_a_number() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: j > 0 and _is_play(m) and m["points"] == 0)
    doc["hands"][i]["moves"][j]["points"] = False
    rejects(doc, f"hands[{i}].moves[{j}].points")


def test_wrong_end_a_tile_put_where_it_does_not_fit() -> None:
    match, doc = base()

    def misplaced(i: int, j: int, m: dict[str, Any]) -> bool:
        return _is_play(m) and any(_wrong_end(match, i, j, m))

    i, j = find(doc, misplaced)
    move = doc["hands"][i]["moves"][j]
    move["end"] = next(_wrong_end(match, i, j, move))
    rejects(doc, f"hands[{i}].moves[{j}]", "end")


def _wrong_end(match: Match, i: int, j: int, move: dict[str, Any]) -> Any:
    state = state_before(match, i, j)
    a, b = (int(x) for x in move["play"].split("-"))
    for e, name in enumerate(END_NAMES):
        if state.ask[e] >= 0 and state.ask[e] not in (a, b):
            yield name


def test_an_end_that_is_not_open_yet() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: j == 1)
    doc["hands"][i]["moves"][1]["end"] = "U"
    rejects(doc, f"hands[{i}].moves[1]", "not open")


def test_an_end_that_does_not_exist() -> None:
    _, doc = base()
    doc["hands"][0]["moves"][1]["end"] = "X"
    rejects(doc, "hands[0].moves[1].end", "L, R, U or D")


def test_a_tile_the_player_does_not_hold() -> None:
    match, doc = base()

    def stranger(i: int, j: int) -> int | None:
        state = state_before(match, i, j)
        end = "LRUD".index(doc["hands"][i]["moves"][j]["end"])
        others = (
            NUMBER_MASK[state.ask[end]]
            & ~state.hands[state.turn]
            & (state.hands[1 - state.turn] | mask_of(state.bazaar[state.draw_pos :]))
        )
        return tiles_of(others)[0] if others else None

    i, j = find(
        doc,
        lambda i, j, m: _is_play(m) and not _after_draw(doc, i, j) and stranger(i, j) is not None,
    )
    tile = stranger(i, j)
    assert tile is not None
    doc["hands"][i]["moves"][j]["play"] = TILE_NAME[tile]
    rejects(doc, f"hands[{i}].moves[{j}]", "does not hold", TILE_NAME[tile])


def test_a_held_tile_that_does_not_fit_its_end() -> None:
    match, doc = base()

    def misfit(i: int, j: int) -> int | None:
        state = state_before(match, i, j)
        end = "LRUD".index(doc["hands"][i]["moves"][j]["end"])
        held = state.hands[state.turn] & ~NUMBER_MASK[state.ask[end]]
        return tiles_of(held)[0] if held else None

    i, j = find(
        doc, lambda i, j, m: _is_play(m) and not _after_draw(doc, i, j) and misfit(i, j) is not None
    )
    tile = misfit(i, j)
    assert tile is not None
    doc["hands"][i]["moves"][j]["play"] = TILE_NAME[tile]
    rejects(doc, f"hands[{i}].moves[{j}]", "does not fit")


def test_a_malformed_tile_in_a_move() -> None:
    _, doc = base()
    doc["hands"][0]["moves"][1]["play"] = "7-1"
    rejects(doc, "hands[0].moves[1].play", "not a tile")


def test_the_opening_tile_with_an_end() -> None:
    _, doc = base()
    doc["hands"][0]["moves"][0]["end"] = "L"
    rejects(doc, "hands[0].moves[0]", "opening")


def test_a_move_with_both_play_and_draw() -> None:
    _, doc = base()
    doc["hands"][0]["moves"][1]["draw"] = "0-0"
    rejects(doc, "hands[0].moves[1]", "exactly one")


# ------------------------------------------------------------------ drawing and passing
def test_an_illegal_draw_while_holding_a_playable_tile() -> None:
    match, doc = base()
    i, j = find(doc, lambda i, j, m: _is_play(m) and not _after_draw(doc, i, j))
    state = state_before(match, i, j)
    doc["hands"][i]["moves"].insert(
        j, {"p": state.turn, "draw": TILE_NAME[state.bazaar[state.draw_pos]]}
    )
    rejects(doc, f"hands[{i}].moves[{j}]", "cannot draw while holding")


def test_a_drawn_tile_that_is_not_the_next_bazaar_tile() -> None:
    match, doc = base()
    i, j = find(doc, lambda i, j, m: "draw" in m)
    state = state_before(match, i, j)
    wrong = state.bazaar[state.draw_pos + 1]
    doc["hands"][i]["moves"][j]["draw"] = TILE_NAME[wrong]
    rejects(doc, f"hands[{i}].moves[{j}].draw", "next bazaar tile")


def test_an_illegal_pass_while_a_drawable_tile_is_left() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: "draw" in m)
    doc["hands"][i]["moves"][j] = {"p": doc["hands"][i]["moves"][j]["p"], "pass": True}
    rejects(doc, f"hands[{i}].moves[{j}]", "cannot pass while a drawable tile is left")


def test_a_pass_while_holding_a_playable_tile() -> None:
    _, doc = base("pass-only")
    i, j = find(doc, lambda i, j, m: j > 0 and _is_play(m))
    doc["hands"][i]["moves"][j] = {"p": doc["hands"][i]["moves"][j]["p"], "pass": True}
    rejects(doc, f"hands[{i}].moves[{j}]", "cannot pass while holding")


def test_a_draw_under_the_pass_only_rule() -> None:
    _, doc = base("pass-only")
    i, j = find(doc, lambda i, j, m: "pass" in m)
    doc["hands"][i]["moves"][j] = {"p": doc["hands"][i]["moves"][j]["p"], "draw": "0-0"}
    rejects(doc, f"hands[{i}].moves[{j}]", "pass only")


def test_a_pass_true_that_is_not_true() -> None:
    _, doc = base("pass-only")
    i, j = find(doc, lambda i, j, m: "pass" in m)
    doc["hands"][i]["moves"][j]["pass"] = 1
    rejects(doc, f"hands[{i}].moves[{j}]", "'pass' must be true")


def test_a_play_of_a_drawn_tile_that_does_not_fit() -> None:
    match, doc = base()

    def misfit_draw(i: int, j: int, m: dict[str, Any]) -> bool:
        if "draw" not in m:
            return False
        state = state_before(match, i, j + 1)
        return state.pending < 0

    i, j = find(doc, misfit_draw)
    move = doc["hands"][i]["moves"][j]
    doc["hands"][i]["moves"].insert(
        j + 1, {"p": move["p"], "play": move["draw"], "end": "L", "points": 0, "ends_sum": 0}
    )
    rejects(doc, f"hands[{i}].moves[{j + 1}]", "does not fit")


def test_a_drawn_tile_that_fits_must_be_placed_not_followed_by_another_draw() -> None:
    match, doc = base()

    def fitting_draw(i: int, j: int, m: dict[str, Any]) -> bool:
        return "draw" in m and state_before(match, i, j + 1).pending >= 0

    i, j = find(doc, fitting_draw)
    state = state_before(match, i, j + 1)
    doc["hands"][i]["moves"].insert(
        j + 1, {"p": state.turn, "draw": TILE_NAME[state.bazaar[state.draw_pos]]}
    )
    rejects(doc, f"hands[{i}].moves[{j + 1}]", "must be placed at once")


def test_the_bazaar_rule_not_matching_the_moves() -> None:
    _, doc = base()
    doc["bazaar"] = "pass-only"
    i, j = find(doc, lambda i, j, m: "draw" in m)
    err = rejects(doc, f"hands[{i}].moves[{j}]")
    assert "draw" in err.problem


# ------------------------------------------------------------------ turns and openers
def test_a_move_by_the_wrong_player() -> None:
    _, doc = base()
    doc["hands"][1]["moves"][3]["p"] ^= 1
    rejects(doc, "hands[1].moves[3]", "turn")


def test_a_player_index_that_does_not_exist() -> None:
    _, doc = base()
    doc["hands"][0]["moves"][2]["p"] = 2
    rejects(doc, "hands[0].moves[2].p")


def test_first_hand_opened_by_the_wrong_player() -> None:
    _, doc = base()
    doc["hands"][0]["opener"] ^= 1
    rejects(doc, "hands[0].opener", "rules give")


def test_first_hand_opened_with_a_tile_other_than_the_highest_double() -> None:
    _, doc = base()
    first = doc["hands"][0]
    opener = first["opener"]
    other = next(x for x in first["deal"]["hands"][opener] if x != first["moves"][0]["play"])
    first["moves"][0]["play"] = other
    rejects(doc, "hands[0].moves[0]", "highest double")


def test_first_hand_opened_with_a_lower_double_than_the_highest() -> None:
    # The record example's deal: player 0 holds 6-6 and 1-1 and 0-0.
    deal = {
        "hands": [
            ["6-6", "1-1", "0-2", "3-5", "2-5", "0-0", "1-2"],
            ["4-6", "2-3", "5-6", "0-1", "3-3", "2-2", "4-4"],
        ],
        "bazaar": row("3-4 0-3 0-4 0-5 0-6 1-3 1-4 1-5 1-6 2-4 2-6 3-6 4-5 5-5"),
    }
    doc = {
        "format": "georgian-domino/1",
        "target": 75,
        "bazaar": "draw",
        "hands": [{"opener": 0, "deal": deal, "moves": [{"p": 0, "play": "1-1", "points": 0}]}],
        "winner": None,
        "score": [0, 0],
    }
    rejects(doc, "hands[0].moves[0]", "highest double 6-6")


def test_a_first_deal_where_nobody_holds_a_double() -> None:
    _, doc = base()
    deal = doc["hands"][0]["deal"]
    everything = deal["hands"][0] + deal["hands"][1] + deal["bazaar"]
    doubles = [x for x in everything if x[0] == x[2]]
    others = [x for x in everything if x[0] != x[2]]
    deal["hands"] = [others[:7], others[7:14]]
    deal["bazaar"] = others[14:] + doubles
    rejects(doc, "hands[0].deal", "redealt")


def test_wrong_opener_of_a_later_hand() -> None:
    _, doc = base()
    doc["hands"][1]["opener"] ^= 1
    rejects(doc, "hands[1].opener", "rules give")


# ------------------------------------------------------------------ deals
def test_a_duplicated_tile_in_the_deal() -> None:
    _, doc = base()
    deal = doc["hands"][1]["deal"]
    deal["bazaar"][3] = deal["hands"][0][0]
    rejects(doc, "hands[1].deal", "dealt twice", deal["hands"][0][0])


def test_a_hand_of_the_wrong_size() -> None:
    _, doc = base()
    doc["hands"][0]["deal"]["hands"][1].pop()
    rejects(doc, "hands[0].deal.hands[1]", "7 tiles")


def test_a_bazaar_of_the_wrong_size() -> None:
    _, doc = base()
    doc["hands"][2]["deal"]["bazaar"].append("0-0")
    rejects(doc, "hands[2].deal.bazaar", "14 tiles")


def test_a_malformed_tile_in_the_deal() -> None:
    _, doc = base()
    doc["hands"][0]["deal"]["hands"][0][3] = "6:4"
    rejects(doc, "hands[0].deal.hands[0][3]", "not a tile")


# ------------------------------------------------------------------ hand ends and scores
def test_wrong_winner_of_a_hand() -> None:
    _, doc = base()
    i = next(i for i, h in enumerate(doc["hands"]) if h["result"]["winner"] is not None)
    doc["hands"][i]["result"]["winner"] ^= 1
    rejects(doc, f"hands[{i}].result.winner", "rules give")


def test_a_won_hand_recorded_as_a_draw() -> None:
    _, doc = base()
    i = next(i for i, h in enumerate(doc["hands"]) if h["result"]["winner"] is not None)
    doc["hands"][i]["result"]["winner"] = None
    rejects(doc, f"hands[{i}].result.winner")


def test_wrong_hand_result_points() -> None:
    _, doc = base()
    doc["hands"][0]["result"]["points"] += 5
    rejects(doc, "hands[0].result.points", "rules give")


def test_wrong_hand_end_kind() -> None:
    _, doc = base()
    i = next(i for i, h in enumerate(doc["hands"]) if h["result"]["end"] == "fish")
    doc["hands"][i]["result"]["end"] = "domino"
    rejects(doc, f"hands[{i}].result.end", "rules give 'fish'")


def test_wrong_hand_score() -> None:
    _, doc = base()
    doc["hands"][1]["score"][0] += 5
    rejects(doc, "hands[1].score", "rules give")


def test_wrong_final_score() -> None:
    _, doc = base()
    doc["score"][1] += 5
    rejects(doc, "score", "rules give")


def test_wrong_match_winner() -> None:
    _, doc = base()
    doc["winner"] ^= 1
    rejects(doc, "winner", "rules give")


def test_match_winner_as_true_instead_of_1() -> None:
    match, doc = base()
    doc["winner"] = bool(match.winner)
    rejects(doc, "winner")


def test_final_score_with_false_instead_of_0() -> None:
    doc2 = write_record(_short_match())
    assert 0 in doc2["score"]
    doc2["score"] = [False if s == 0 else s for s in doc2["score"]]
    rejects(doc2, "score")


def _short_match() -> Match:
    """A finished match where the loser scored nothing."""
    for seed in range(5000):
        match = random_match(seed, 75)
        if 0 in match.scores:
            return match
    raise AssertionError("no shut-out match")


# ------------------------------------------------------------------ missing and extra
def test_an_extra_action_after_the_hand_ended() -> None:
    _, doc = base()
    moves = doc["hands"][0]["moves"]
    extra = len(moves)
    moves.append({"p": 0, "pass": True})
    rejects(doc, f"hands[0].moves[{extra}]", "extra action")


def test_a_missing_action() -> None:
    _, doc = base()
    doc["hands"][1]["moves"].pop()
    rejects(doc, "hands[1].moves", "missing actions")


def test_a_missing_action_in_the_middle_shifts_the_turn() -> None:
    _, doc = base()
    i, j = find(doc, lambda i, j, m: j > 2 and _is_play(m) and not _after_draw(doc, i, j))
    del doc["hands"][i]["moves"][j]
    with pytest.raises(RecordError) as info:
        verify_record(doc)
    assert info.value.where.startswith(f"hands[{i}].moves")


def test_an_extra_hand_after_the_match_ended() -> None:
    _, doc = base()
    n = len(doc["hands"])
    doc["hands"].append(copy.deepcopy(doc["hands"][-1]))
    rejects(doc, f"hands[{n}]", "extra hand")


def test_missing_hands_the_match_not_over() -> None:
    _, doc = base()
    doc["hands"].pop()
    doc["score"] = doc["hands"][-1]["score"]
    rejects(doc, "hands", "missing hands")


def test_no_hands_at_all() -> None:
    _, doc = base()
    doc["hands"] = []
    rejects(doc, "hands", "non-empty")


# ------------------------------------------------------------------ forfeits
def test_a_forfeit_in_a_hand_that_is_not_the_last() -> None:
    _, doc = base()
    doc["hands"][0]["moves"] = doc["hands"][0]["moves"][:3]
    doc["hands"][0]["result"] = {"end": "forfeit", "winner": 1, "points": 0, "reason": "resign"}
    doc["hands"][0]["score"] = [0, 0]
    rejects(doc, "hands[0].result", "forfeit ends the match")


def _forfeited() -> Doc:
    chooser = random.Random(8)
    match = Match(75, rng=random.Random(8))
    for _ in range(12):
        match.apply(chooser.choice(match.legal_codes()))
    match.forfeit(0, "abandon")
    doc = write_record(match)
    verify_record(doc)
    return doc


def test_a_forfeit_that_scores_points() -> None:
    doc = _forfeited()
    doc["hands"][-1]["result"]["points"] = 10
    rejects(doc, "hands[0].result.points", "forfeit scores 0")


def test_a_forfeit_with_an_unknown_reason() -> None:
    doc = _forfeited()
    doc["hands"][-1]["result"]["reason"] = "bored"
    rejects(doc, "hands[0].result.reason")


def test_a_forfeit_credited_to_the_wrong_winner() -> None:
    doc = _forfeited()
    doc["winner"] = 0
    rejects(doc, "winner")


# ------------------------------------------------------------------ the document itself
def test_malformed_json_text() -> None:
    _, doc = base()
    text = json.dumps(doc)[:-5]
    with pytest.raises(RecordError, match="not valid JSON") as info:
        load_record_text(text)
    assert info.value.where == ""


def test_a_record_that_is_not_an_object() -> None:
    rejects([1, 2, 3], "", "JSON object")


@pytest.mark.parametrize("key", ["format", "target", "bazaar", "hands", "winner", "score"])
def test_a_missing_top_level_field(key: str) -> None:
    _, doc = base()
    del doc[key]
    rejects(doc, "", f"missing field '{key}'")


@pytest.mark.parametrize("key", ["points", "ends_sum", "end", "p"])
def test_a_missing_field_in_a_move(key: str) -> None:
    _, doc = base()
    del doc["hands"][0]["moves"][1][key]
    rejects(doc, "hands[0].moves[1]", f"missing field '{key}'")


@pytest.mark.parametrize("key", ["opener", "deal", "moves", "result", "score"])
def test_a_missing_field_in_a_hand(key: str) -> None:
    _, doc = base()
    del doc["hands"][1][key]
    rejects(doc, "hands[1]", f"missing field '{key}'")


def test_a_wrong_format_string() -> None:
    _, doc = base()
    doc["format"] = "georgian-domino/2"
    rejects(doc, "format", "georgian-domino/1")


@pytest.mark.parametrize("target", [100, 0, "75", None, 75.5, True])
def test_a_bad_target(target: Any) -> None:
    _, doc = base()
    doc["target"] = target
    rejects(doc, "target")


def test_a_target_that_does_not_match_the_play() -> None:
    _, doc = base()
    doc["target"] = 175
    rejects(doc, "hands", "missing hands")


def test_an_unknown_bazaar_rule() -> None:
    _, doc = base()
    doc["bazaar"] = "draw-two"
    rejects(doc, "bazaar")


def test_an_end_given_as_a_list_is_a_record_error_not_a_crash() -> None:
    _, doc = base()
    doc["hands"][0]["moves"][1]["end"] = [doc["hands"][0]["moves"][1]["end"]]
    rejects(doc, "hands[0].moves[1].end")


def test_a_record_of_a_match_in_progress_is_not_a_complete_record() -> None:
    chooser = random.Random(2)
    match = Match(75, rng=random.Random(2))
    for _ in range(10):
        match.apply(chooser.choice(match.legal_codes()))
    doc = write_record(match)
    rejects(doc, "hands[0].moves", "missing actions")
    assert write_record(read_record(doc, complete=False)) == doc


# ------------------------------------------------------------------ fuzz
JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=400),
    st.sampled_from([0.5, 1e308, -0.0]),
    st.sampled_from(TILE_NAME),
    st.sampled_from(
        [
            "L",
            "R",
            "U",
            "D",
            "X",
            "",
            "6-7",
            "domino",
            "fish",
            "forfeit",
            "resign",
            "draw",
            "pass-only",
            "georgian-domino/1",
            "6-6 ",
            "٦-٦",
            "1-2-3",
        ]
    ),
    st.text(max_size=4),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["p", "play", "end", "draw", "pass", "points", "ends_sum", "x"]),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=6,
)


def _slots(value: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key) in a JSON value."""
    if isinstance(value, dict):
        for key in value:
            out.append((value, key))
            _slots(value[key], out)
    elif isinstance(value, list):
        for index in range(len(value)):
            out.append((value, index))
            _slots(value[index], out)
    return out


def _mutate(doc: Doc, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        slots = _slots(doc, [])
        container, key = data.draw(st.sampled_from(slots))
        kind = data.draw(st.sampled_from(["replace", "delete", "duplicate", "swap", "nudge"]))
        if kind == "replace":
            container[key] = data.draw(JSON_VALUES)
        elif kind == "delete":
            del container[key]
        elif kind == "duplicate" and isinstance(container, list):
            container.insert(key, copy.deepcopy(container[key]))
        elif kind == "swap" and isinstance(container, list) and len(container) > 1:
            other = data.draw(st.integers(min_value=0, max_value=len(container) - 1))
            container[key], container[other] = container[other], container[key]
        elif kind == "nudge" and isinstance(container[key], int):
            container[key] += data.draw(st.sampled_from([-5, -1, 1, 5]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), bazaar=st.sampled_from(["draw", "pass-only"]))
def test_random_mutations_of_a_valid_record_raise_only_record_errors(
    data: st.DataObject, bazaar: str
) -> None:
    _, doc = base(bazaar)
    _mutate(doc, data)
    try:
        verify_record(doc)
    except RecordError as err:
        assert isinstance(err.where, str) and str(err)
    with pytest.raises(RecordError):  # any short prefix of the text is broken JSON
        load_record_text(json.dumps(doc)[: data.draw(st.integers(min_value=0, max_value=50))])


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_random_changes_to_move_numbers_are_always_caught(data: st.DataObject) -> None:
    _, doc = base()
    i = data.draw(st.integers(min_value=0, max_value=len(doc["hands"]) - 1))
    moves = doc["hands"][i]["moves"]
    j = data.draw(st.integers(min_value=0, max_value=len(moves) - 1))
    move = moves[j]
    keys = [k for k in ("points", "ends_sum", "p") if k in move]
    if not keys:
        return
    key = data.draw(st.sampled_from(keys))
    move[key] = move[key] + data.draw(st.sampled_from([-10, -5, -1, 1, 5, 10]))
    with pytest.raises(RecordError) as info:
        verify_record(doc)
    assert info.value.where.startswith(f"hands[{i}].moves[{j}]")


def test_the_base_records_have_what_the_corruptions_need() -> None:
    for bazaar in ("draw", "pass-only"):
        match, doc = base(bazaar)
        assert len(doc["hands"]) >= 3 and match.over
        assert {h["result"]["end"] for h in doc["hands"]} == {"fish", "domino"}
    match, _ = base()
    assert any(code == DRAW for h in match.hands for _, code, *_ in h.state.log)


def test_a_record_in_progress_without_the_next_deal_is_dealt_on_from_the_rng() -> None:
    match, doc = base()
    doc["hands"] = doc["hands"][:1]
    doc["winner"] = None
    doc["score"] = doc["hands"][0]["score"]
    with pytest.raises(RecordError, match="missing hands"):
        read_record(doc, complete=False)
    resumed = read_record(doc, complete=False, rng=random.Random(5))
    assert len(resumed.hands) == 2 and not resumed.over
    assert resumed.hands[1].opener == match.hands[1].opener
    assert resumed.hands[1].deal == shuffled_deal(random.Random(5))


def _resigned_after_scoring() -> tuple[Doc, list[int]]:
    """A real resignation in the middle of a later hand, after a placement of that hand scored;
    also the score as it stood before that hand."""
    chooser = random.Random(5)
    match = Match(355, rng=random.Random(5))
    while len(match.hands) < 2 or match.hand.points == [0, 0]:
        match.apply(chooser.choice(match.legal_codes()))
    before = list(match.scores)
    match.forfeit(0, "resign")
    assert match.scores != before
    return write_record(match), before


def test_a_forfeit_whose_score_drops_the_points_of_its_hand() -> None:
    doc, before = _resigned_after_scoring()
    verify_record(doc)
    last = len(doc["hands"]) - 1
    doc["hands"][-1]["score"] = list(before)
    doc["score"] = list(before)
    rejects(doc, f"hands[{last}].score", "the rules give")


def test_a_forfeit_whose_final_score_alone_drops_the_points_of_its_hand() -> None:
    doc, before = _resigned_after_scoring()
    doc["score"] = list(before)
    rejects(doc, "score", "the rules give")


@pytest.mark.parametrize("name", ["٣-1", "²-1", "６-4", "6 -4", "66-4", "6-"])
def test_a_tile_name_is_written_in_ascii_digits(name: str) -> None:
    from kva.rules.tiles import parse_halves

    with pytest.raises(ValueError, match="not a tile"):
        parse_halves(name)
