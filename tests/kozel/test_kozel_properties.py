"""Properties over random matches of 2, 3 and 4 seats, both fish rules and pairs: tiles are
conserved, every count and score is what a simple scorer written here from kozel.md gives, no
view shows a hidden tile, and verify accepts every record and rejects single-field changes."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kva.kozel import Match, Options, seat_view, verify_record, view_to_json, write_record
from kva.rules import RecordError
from kva.rules.engine import TILE_NAME

TABLES = st.one_of(
    st.tuples(st.sampled_from([2, 3, 4]), st.sampled_from(["all", "one"]), st.just(False)),
    st.tuples(st.just(4), st.sampled_from(["all", "one"]), st.just(True)),
)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def play_out(seats: int, fish: str, pairs: bool, seed: int, check: Any = None) -> Match:
    match = Match(seats, Options(fish=fish, pairs=pairs), rng=random.Random(seed))
    chooser = random.Random(seed + 1)
    while not match.over:
        if check is not None:
            check(match)
        match.apply(chooser.choice(match.legal(match.turn)), match.turn)
    return match


# ------------------------------------------------------------- an independent scorer
def pips(name: str) -> int:
    return int(name[0]) + int(name[2])


def hand_count(names: list[str]) -> int:
    """kozel.md §5.1: the pips in the hand; the single tile 0-0 alone counts 10."""
    if names == ["0-0"]:
        return 10
    return sum(pips(n) for n in names)


def left_in_hands(hand: dict[str, Any], seats: int) -> list[list[str]]:
    held = [{"-".join(sorted(t.split("-"))) for t in h} for h in hand["deal"]["hands"]]
    for move in hand["moves"]:
        if "draw" in move:
            held[move["p"]].add("-".join(sorted(move["draw"].split("-"))))
        elif "play" in move:
            held[move["p"]].discard("-".join(sorted(move["play"].split("-"))))
    return [sorted(h) for h in held]


def expected_scores(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Each hand's counts, scored, carry, score and remembered, worked out from the deal and
    the moves by kozel.md §5-§6 alone."""
    sides = doc["sides"]
    fish_rule = doc["options"]["fish"]
    score = [0] * len(sides)
    kept = [0] * len(sides)
    carry = 0
    out: list[dict[str, Any]] = []
    for hand in doc["hands"]:
        result = hand["result"]
        if result["end"] == "forfeit":
            zero = [0] * len(sides)
            out.append({"counts": zero, "scored": zero, "carry": carry, "score": list(score),
                        "remembered": list(kept)})
            continue
        left = left_in_hands(hand, sum(len(s) for s in sides))
        went_out = result["end"] == "out"
        counts = []
        for side in sides:
            if went_out and result["by"] in side:
                counts.append(0)
            else:
                counts.append(sum(hand_count(left[p]) for p in side))
        before = list(score)
        add = [0] * len(sides)
        scored_sides: list[int] = []
        if not went_out and fish_rule == "one":
            top = max(counts)
            if counts.count(top) > 1:
                carry += sum(counts)
                out.append({"counts": counts, "scored": [0] * len(sides), "carry": carry,
                            "score": list(score), "remembered": list(kept)})
                continue
            taker = counts.index(top)
            add[taker] = sum(counts) + carry
            carry = 0
            for s in range(len(sides)):
                if s != taker:
                    kept[s] = 0
            scored_sides = [taker]
        else:
            scored_sides = [s for s in range(len(sides))
                            if not (went_out and result["by"] in sides[s])]
            add = list(counts)
            top = max(counts[s] for s in scored_sides)
            if carry and [counts[s] for s in scored_sides].count(top) == 1:
                add[next(s for s in scored_sides if counts[s] == top)] += carry
                carry = 0
        for s in scored_sides:
            if score[s] > 0:
                score[s] += add[s]
            elif add[s] >= 13:
                score[s] = add[s] + kept[s]
                kept[s] = 0
            else:
                kept[s] += add[s]
        if went_out:
            kept[next(i for i, side in enumerate(sides) if result["by"] in side)] = 0
        out.append({"counts": counts, "scored": [a - b for a, b in zip(score, before,
                                                                          strict=True)],
                    "carry": carry, "score": list(score), "remembered": list(kept)})
    return out


# ------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(table=TABLES, seed=SEEDS)
def test_counts_and_scores_are_exactly_the_rules(table: tuple[int, str, bool], seed: int) -> None:
    doc = json.loads(json.dumps(write_record(play_out(*table, seed))))
    for hand, want in zip(doc["hands"], expected_scores(doc), strict=True):
        got = {key: hand["result"][key] for key in ("counts", "scored", "carry")}
        got.update(score=hand["score"], remembered=hand["remembered"])
        assert got == want
    assert doc["loser"] == [s for s, v in enumerate(doc["score"]) if v >= 101]


@settings(max_examples=40, deadline=None)
@given(table=TABLES, seed=SEEDS)
def test_tiles_are_conserved_and_views_hide_every_other_tile(
    table: tuple[int, str, bool], seed: int
) -> None:
    def check(match: Match) -> None:
        state = match.state
        placed = bin(state.played).count("1")
        assert sum(h.bit_count() for h in state.hands) + placed + (
            len(state.bazaar) - state.drawn) == 28
        line = {TILE_NAME[t] for t in range(28) if state.played >> t & 1}
        for seat in [*range(match.seats), None]:
            view = seat_view(match, seat)
            assert len(view.line) == placed
            own = set() if seat is None else {TILE_NAME[t] for t in view.tiles}
            shown = {"-".join(sorted(m.split("-"))) for m in
                     re.findall(r"\d-\d", json.dumps(view_to_json(view)))}
            assert shown <= own | line, f"seat {seat} sees {shown - own - line}"
            if seat is None:
                assert view.tiles == () and view.legal == ()

    play_out(*table, seed, check)


CORRUPTIONS = ["counts", "scored", "carry", "score", "remembered", "p", "draw", "drop-move",
               "loser", "final-score"]


def corrupt(doc: dict[str, Any], how: str, rng: random.Random) -> bool:
    """Change one field of ``doc`` as ``how`` says; False when the record has no such field."""
    k = rng.randrange(len(doc["hands"]))
    hand = doc["hands"][k]
    if how in ("counts", "scored"):
        hand["result"][how][rng.randrange(len(doc["sides"]))] += 1
    elif how == "carry":
        hand["result"]["carry"] += 5
    elif how in ("score", "remembered"):
        hand[how][rng.randrange(len(doc["sides"]))] += 1
    elif how == "loser":
        doc["loser"] = [s for s in range(len(doc["sides"])) if s not in doc["loser"]]
    elif how == "final-score":
        doc["score"][0] += 1
    elif how == "p":
        if not hand["moves"]:
            return False
        move = rng.choice(hand["moves"])
        move["p"] = (move["p"] + 1) % sum(len(s) for s in doc["sides"])
    elif how == "draw":
        draws = [m for h in doc["hands"] for m in h["moves"] if "draw" in m]
        if not draws:
            return False
        move = rng.choice(draws)
        move["draw"] = next(n for n in ("0-0", "1-1") if n != move["draw"])
    elif how == "drop-move":
        if not hand["moves"]:
            return False
        del hand["moves"][rng.randrange(len(hand["moves"]))]
    return True


@settings(max_examples=60, deadline=None)
@given(table=TABLES, seed=SEEDS, how=st.sampled_from(CORRUPTIONS))
def test_verify_accepts_every_record_and_rejects_a_single_changed_field(
    table: tuple[int, str, bool], seed: int, how: str
) -> None:
    doc = json.loads(json.dumps(write_record(play_out(*table, seed))))
    verify_record(doc)
    bad = copy.deepcopy(doc)
    if corrupt(bad, how, random.Random(seed)):
        with pytest.raises(RecordError):
            verify_record(bad)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = [path] if path else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _leaves(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _leaves(value, (*path, i))
    return found


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 300), st.floats(allow_nan=False),
                 st.sampled_from(["", "9-9", "1-1", "L", "R", "one", "forfeit", "drawn-fish"]),
                 st.just([]), st.just({}))


@settings(max_examples=80, deadline=None)
@given(table=TABLES, seed=st.integers(0, 50), pick=st.integers(0, 10**6), junk=JUNK,
       delete=st.booleans())
def test_any_malformed_field_is_a_record_error_never_a_crash(
    table: tuple[int, str, bool], seed: int, pick: int, junk: Any, delete: bool
) -> None:
    doc = json.loads(json.dumps(write_record(play_out(*table, seed))))
    paths = _leaves(doc)
    path = paths[pick % len(paths)]
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = junk
    with contextlib.suppress(RecordError):  # a clear error is right; any other one is a bug
        verify_record(doc)
