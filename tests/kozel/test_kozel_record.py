"""kozel/1 records: every match writes one that verifies, and a record that breaks a rule is
rejected naming the hand, the move and the rule (kozel-record.md, "What a verifier checks")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kva.kozel import FORMAT, Options, read_record, verify_record, write_record
from kva.rules import RecordError
from tests.kozel.kozelhelp import find_move, first_record_with, random_match, record


def rejected(doc: Any) -> RecordError:
    with pytest.raises(RecordError) as caught:
        verify_record(doc)
    return caught.value


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("fish", ["all", "one"])
def test_a_self_played_record_verifies_to_the_same_match(seats: int, fish: str) -> None:
    match = random_match(seats, 11, fish)
    replayed = verify_record(json.loads(json.dumps(write_record(match))))
    assert replayed.score == match.score
    assert replayed.losers == match.losers
    assert len(replayed.hands) == len(match.hands)


def test_the_record_names_its_format_sides_and_options() -> None:
    doc = record(4, 3, "one", pairs=True)
    assert doc["format"] == FORMAT == "kozel/1"
    assert doc["sides"] == [[0, 2], [1, 3]]
    assert doc["options"] == {"fish": "one", "limit": 101}


def test_a_placed_tile_is_written_with_its_touching_half_first() -> None:
    doc = record(3, 5)
    for hand in doc["hands"]:
        left = right = None
        for move in hand["moves"]:
            if "play" not in move:
                continue
            a, b = (int(x) for x in move["play"].split("-"))
            if "end" not in move:
                left, right = a, b
            elif move["end"] == "L":
                assert a == left
                left = b
            else:
                assert a == right
                right = b


def test_an_opening_written_high_half_first_mirrors_the_line() -> None:
    """The opening's first written number is end L: a record that writes it the other way
    round, and every end after it mirrored, is the same hand."""
    doc = record(2, 7)
    hand = doc["hands"][0]
    a, b = hand["moves"][0]["play"].split("-")
    if a == b:
        hand = doc["hands"][1]
        a, b = hand["moves"][0]["play"].split("-")
    assert a != b
    hand["moves"][0]["play"] = f"{b}-{a}"
    for move in hand["moves"][1:]:
        if "end" in move:
            move["end"] = "L" if move["end"] == "R" else "R"
    verify_record(doc)


def test_a_move_by_the_seat_not_on_turn_is_rejected() -> None:
    doc = record(3, 1)
    doc["hands"][0]["moves"][1]["p"] = (doc["hands"][0]["moves"][1]["p"] + 1) % 3
    error = rejected(doc)
    assert error.where == "hands[0].moves[1]"
    assert "turn" in error.problem


def test_a_draw_while_holding_a_tile_that_fits_is_rejected() -> None:
    doc = first_record_with(2, lambda d: any("draw" in m for h in d["hands"] for m in h["moves"]))
    k, i = find_move(doc, lambda h, m, i: "end" in m and i > 0)
    hand = doc["hands"][k]
    p = hand["moves"][i]["p"]
    hand["moves"][i] = {"p": p, "draw": hand["deal"]["bazaar"][0]}
    error = rejected(doc)
    assert error.where == f"hands[{k}].moves[{i}]"
    assert "holding a tile that fits (kozel.md §3.1)" in error.problem


def test_a_knock_while_a_tile_can_be_drawn_is_rejected() -> None:
    doc = first_record_with(2, lambda d: any("draw" in m for h in d["hands"] for m in h["moves"]))
    k, i = find_move(doc, lambda h, m, i: "draw" in m)
    doc["hands"][k]["moves"][i] = {"p": doc["hands"][k]["moves"][i]["p"], "knock": True}
    error = rejected(doc)
    assert error.where == f"hands[{k}].moves[{i}]"
    assert error.problem == "knocks while a tile can be drawn (kozel.md §3.2)"


def test_a_drawn_tile_must_be_the_next_bazaar_tile() -> None:
    doc = first_record_with(2, lambda d: any("draw" in m for h in d["hands"] for m in h["moves"]))
    k, i = find_move(doc, lambda h, m, i: "draw" in m)
    doc["hands"][k]["moves"][i]["draw"] = doc["hands"][k]["deal"]["bazaar"][-1]
    error = rejected(doc)
    assert error.where == f"hands[{k}].moves[{i}].draw"
    assert "the next bazaar tile is" in error.problem


def test_the_last_bazaar_tile_is_never_drawn() -> None:
    doc = first_record_with(2, lambda d: any("knock" in m for h in d["hands"] for m in h["moves"]
                                              if h["moves"].index(m) > 0 and "draw" in
                                              h["moves"][h["moves"].index(m) - 1]))
    k, i = find_move(doc, lambda h, m, i: "knock" in m and "draw" in h["moves"][i - 1])
    hand = doc["hands"][k]
    hand["moves"][i] = {"p": hand["moves"][i]["p"], "draw": hand["deal"]["bazaar"][-1]}
    error = rejected(doc)
    assert error.where == f"hands[{k}].moves[{i}]"
    assert "its last tile is never drawn" in error.problem


def test_a_tile_that_does_not_fit_is_rejected() -> None:
    doc = record(4, 2)
    hand = doc["hands"][0]
    ends = [int(x) for x in hand["moves"][0]["play"].split("-")]
    changed = None
    for i, move in enumerate(hand["moves"]):
        if "end" not in move:
            continue
        side = 0 if move["end"] == "L" else 1
        a, b = (int(x) for x in move["play"].split("-"))
        if a != ends[1 - side] and b != ends[1 - side]:
            move["end"] = "R" if side == 0 else "L"
            changed = i
            break
        ends[side] = b
    error = rejected(doc)
    assert error.where == f"hands[0].moves[{changed}]"
    assert error.problem.endswith("which does not fit that end (kozel.md §3.1)")


def test_the_first_hand_opens_with_the_lowest_double_from_one_one() -> None:
    doc = record(3, 4)
    first = doc["hands"][0]
    assert first["moves"][0]["play"] in ("1-1", "2-2", "3-3", "4-4", "5-5", "6-6", "0-0")
    first["opener"] = (first["opener"] + 1) % 3
    error = rejected(doc)
    assert error.where == "hands[0].opener"


def test_a_later_hand_is_opened_by_who_ended_the_last() -> None:
    doc = record(3, 4)
    assert doc["hands"][1]["opener"] == doc["hands"][0]["result"]["by"]
    doc["hands"][1]["opener"] = (doc["hands"][1]["opener"] + 1) % 3
    assert rejected(doc).where == "hands[1].opener"


def test_a_voided_deal_must_break_the_redeal_rule() -> None:
    doc = record(2, 9)
    doc["hands"][0]["voided"] = [{**doc["hands"][0]["deal"], "why": "doubles", "seat": 0}]
    error = rejected(doc)
    assert error.where == "hands[0].voided[0]"
    assert "breaks no redeal rule" in error.problem


def test_a_played_deal_that_breaks_the_redeal_rule_is_rejected() -> None:
    doc = first_record_with(3, lambda d: bool(d["hands"][0]["voided"]))
    voided = doc["hands"][0]["voided"][0]
    doc["hands"][0]["deal"] = {"hands": voided["hands"], "bazaar": voided["bazaar"]}
    doc["hands"][0]["voided"] = []
    error = rejected(doc)
    assert error.where == "hands[0].deal"
    assert "must be redealt (kozel.md §1)" in error.problem


def test_a_voided_deal_names_the_right_reason_and_seat() -> None:
    doc = first_record_with(3, lambda d: bool(d["hands"][0]["voided"]))
    voided = doc["hands"][0]["voided"][0]
    voided["why"] = "suit" if voided["why"] == "doubles" else "doubles"
    assert rejected(doc).where == "hands[0].voided[0]"


@pytest.mark.parametrize("field", ["counts", "scored", "carry", "by", "end"])
def test_a_wrong_hand_result_is_rejected(field: str) -> None:
    doc = record(4, 6, "one")
    result = doc["hands"][0]["result"]
    value = result[field]
    result[field] = ("fish" if value != "fish" else "out") if field == "end" else (
        [v + 1 for v in value] if isinstance(value, list) else value + 1)
    error = rejected(doc)
    assert error.where == f"hands[0].result.{field}"
    assert "the rules give" in error.problem


@pytest.mark.parametrize("field", ["score", "remembered"])
def test_a_wrong_running_score_is_rejected(field: str) -> None:
    doc = record(3, 6)
    doc["hands"][0][field][1] += 1
    assert rejected(doc).where == f"hands[0].{field}"


def test_a_wrong_loser_or_final_score_is_rejected() -> None:
    doc = record(2, 6)
    doc["loser"] = [1 - doc["loser"][0]] if len(doc["loser"]) == 1 else []
    assert rejected(doc).where == "loser"
    doc = record(2, 6)
    doc["score"][0] += 1
    assert rejected(doc).where == "score"


def test_the_match_ends_at_the_first_hand_that_reaches_the_limit() -> None:
    doc = record(2, 8)
    doc["hands"].append(doc["hands"][-1])
    error = rejected(doc)
    assert error.where == f"hands[{len(doc['hands']) - 1}]"
    assert "the match ended" in error.problem


def test_a_record_that_stops_before_the_limit_is_rejected() -> None:
    doc = record(2, 8)
    del doc["hands"][-1]
    error = rejected(doc)
    assert "the record ends here" in error.problem


def test_a_move_after_the_hand_ended_is_rejected() -> None:
    doc = record(4, 8)
    hand = doc["hands"][0]
    hand["moves"].append({"p": 0, "knock": True})
    error = rejected(doc)
    assert error.where == f"hands[0].moves[{len(hand['moves']) - 1}]"
    assert "the hand already ended" in error.problem


def test_a_hand_cut_short_does_not_end() -> None:
    doc = record(4, 8)
    doc["hands"][0]["moves"].pop()
    error = rejected(doc)
    assert error.where == "hands[0].moves"


def test_a_forfeit_ends_the_match_and_scores_nothing() -> None:
    match = random_match(3, 2)
    match = type(match)(3, Options(), rng=__import__("random").Random(2))
    match.apply(match.legal(match.turn)[0])
    match.forfeit(2, "time")
    doc = json.loads(json.dumps(write_record(match)))
    assert doc["hands"][-1]["result"] == {"end": "forfeit", "by": 2, "counts": [0, 0, 0],
                                          "scored": [0, 0, 0], "carry": 0, "reason": "time"}
    assert doc["loser"] == [2]
    assert verify_record(doc).losers == (2,)
    doc["hands"][-1]["result"]["reason"] = "bored"
    assert rejected(doc).where == "hands[0].result.reason"


def test_a_match_in_progress_reads_with_complete_false() -> None:
    match = random_match(4, 2)
    doc = write_record(match)
    doc["hands"][-1].pop("result")
    doc["hands"][-1]["moves"] = doc["hands"][-1]["moves"][:3]
    with pytest.raises(RecordError):
        verify_record(doc)
    replayed = read_record(doc, complete=False)
    assert not replayed.over and len(replayed.state.log) == 3


@pytest.mark.parametrize("doc, where", [
    ([], ""), ({"format": "georgian-domino/1"}, "format"),
    ({"format": "kozel/1", "sides": [[0]], "options": {"fish": "all", "limit": 101}}, "sides"),
    ({"format": "kozel/1", "sides": [[0], [1]], "options": {"fish": "two", "limit": 101}},
     "options"),
])
def test_a_malformed_record_is_a_clear_error(doc: Any, where: str) -> None:
    assert rejected(doc).where == where
