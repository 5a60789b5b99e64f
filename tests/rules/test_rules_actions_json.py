"""An action as a client writes it in JSON: whatever JSON value arrives, it is either a legal
action or an :class:`IllegalAction` with a short, clear reason; never another exception."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kva.rules import DRAW, PASS, IllegalAction, Match, action_from_json, action_to_json

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**300), max_value=10**300)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["6-4", "4-6", "6-6", "L", "R", "U", "D", "play", "draw", "pass"])
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
ACTIONS = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass"]) | JSON_VALUES},
    optional={"tile": JSON_VALUES, "end": JSON_VALUES, "extra": JSON_VALUES},
)


def _positions() -> list[list[int]]:
    """Legal-code lists of real positions: an opening, plays, a draw and a pass."""
    out: list[list[int]] = [[]]
    for seed in range(6):
        match = Match(75, "pass-only" if seed % 2 else "draw", rng=random.Random(seed))
        chooser = random.Random(seed)
        while not match.over and len(out) < 40 * (seed + 1):
            out.append(match.legal_codes())
            match.apply(chooser.choice(match.legal_codes()))
    return out


POSITIONS = _positions()
assert any(DRAW in legal for legal in POSITIONS) and any(PASS in legal for legal in POSITIONS)


def _refused_or_legal(message: Any, legal: list[int]) -> None:
    try:
        code = action_from_json(message, legal)
    except IllegalAction as exc:
        reason = str(exc)
        assert reason and len(reason) <= 200 and "\n" not in reason
    else:
        assert code in legal


@settings(max_examples=400, deadline=None)
@given(message=JSON_VALUES | ACTIONS, position=st.integers(0, len(POSITIONS) - 1))
def test_any_json_value_is_a_legal_action_or_illegal_action(message: Any, position: int) -> None:
    _refused_or_legal(message, POSITIONS[position])


@pytest.mark.parametrize(
    "message",
    [
        {"type": "play", "tile": "6-4", "end": ["L"]},
        {"type": "play", "tile": "6-4", "end": {"L": 1}},
        {"type": "play", "tile": ["6-4"]},
        {"type": "play", "tile": {"a": 6, "b": 4}},
        {"type": "play", "tile": 64},
        {"type": "play", "tile": 10**4000},
        {"type": "play", "tile": "6-4", "end": 0},
        {"type": "play", "tile": "6-4", "end": True},
        {"type": ["play"]},
        {"type": {"play": True}},
        {"type": 10**4000},
        {"type": "play", "tile": "6-4" * 10_000},
        {"type": "x" * 10_000},
        json.loads("[" * 500 + "]" * 500),
        {"type": "play", "tile": json.loads("[" * 500 + "]" * 500)},
        "play",
        None,
        3.5,
    ],
)
def test_a_malformed_action_is_an_illegal_action_with_a_short_reason(message: Any) -> None:
    legal = POSITIONS[3]
    with pytest.raises(IllegalAction) as caught:
        action_from_json(message, legal)
    assert len(str(caught.value)) <= 200


def test_a_list_for_the_end_says_what_an_end_is() -> None:
    with pytest.raises(IllegalAction, match="end must be L, R, U or D"):
        action_from_json({"type": "play", "tile": "6-4", "end": ["L"]}, POSITIONS[3])


def test_every_legal_action_reads_back_from_its_json() -> None:
    for legal in POSITIONS:
        for code in legal:
            assert action_from_json(json.loads(json.dumps(action_to_json(code))), legal) == code
