"""One move encoder (kva.rules.moves): the WebSocket event, the record and the view write a move
the way they always did, from one place. The hashes were taken before the encoders were merged."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from kva.rules import (
    DRAW,
    PASS,
    Match,
    dumps_record,
    open_code,
    play_code,
    player_view,
    write_record,
)
from kva.rules.actions import action_to_json, describe_action
from kva.rules.moves import code_parts, move_to_json, move_to_record
from kva.rules.tiles import TILE_ID
from kva.rules.view_json import view_to_json


def _played(seed: int, target: int, bazaar: str) -> tuple[Match, list[str]]:
    match = Match(target, bazaar, rng=random.Random(seed))  # type: ignore[arg-type]
    pick = random.Random(seed + 1)
    views: list[str] = []
    while not match.over:
        for viewer in (0, 1, None):
            views.append(json.dumps(view_to_json(player_view(match, viewer))))
        match.apply(pick.choice(match.legal_codes()))
    return match, views


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    ("seed", "target", "bazaar", "digest"),
    [
        (1, 355, "draw", "2b18ecd5744fb3f9073bc9ac6344c6809149b9fd1c7e790cf8ca58e0f33b5fce"),
        (2, 175, "pass-only", "3271e69742a76826bbd06274ee194ac05c25e4356b0d410859946a84d418ce1c"),
    ],
)
def test_a_seeded_record_is_byte_identical_to_the_one_written_before(
    seed: int, target: int, bazaar: str, digest: str
) -> None:
    match, _ = _played(seed, target, bazaar)
    assert _sha(dumps_record(write_record(match, meta={"seed": seed}))) == digest


@pytest.mark.parametrize(
    ("seed", "bazaar", "digest"),
    [
        (3, "draw", "083e9b73fc0e7424258909c33132de1200212c1e5d491ad68923773050cabfaa"),
        (4, "pass-only", "685209a5ce0c5fddcca985dc03b316b6905894b4084b396d2f5ce2e430ea481e"),
    ],
)
def test_the_move_events_of_a_seeded_match_are_unchanged(
    seed: int, bazaar: str, digest: str
) -> None:
    match, _ = _played(seed, 355, bazaar)
    events = [move_to_json(entry) for played in match.hands for entry in played.state.log]
    assert _sha(json.dumps(events)) == digest


def test_the_views_of_a_seeded_match_are_unchanged() -> None:
    _, views = _played(3, 175, "draw")
    digest = hashlib.sha256()
    for view in views:
        digest.update(view.encode())
    assert digest.hexdigest() == "f92d80aead83f564f148ef3c1592234138d13e6d1f906c076973b446b697d287"


def test_the_event_of_each_kind_of_move() -> None:
    six_four = TILE_ID[4][6]
    assert move_to_json((0, open_code(six_four, flipped=True), 6, 0, 10)) == {
        "kind": "open", "p": 0, "tile": "6-4", "points": 0,
    }  # fmt: skip
    assert move_to_json((1, play_code(six_four, 1), 4, 5, 15)) == {
        "kind": "play", "p": 1, "tile": "4-6", "end": "R", "points": 5, "ends_sum": 15,
    }  # fmt: skip
    assert move_to_json((1, DRAW, six_four, 0, -1)) == {"kind": "draw", "p": 1, "tile": "4-6"}
    assert move_to_json((0, PASS, -1, 0, -1)) == {"kind": "pass", "p": 0}


def test_the_record_form_is_the_event_renamed() -> None:
    six_four = TILE_ID[4][6]
    assert move_to_record((0, open_code(six_four), 4, 0, 10)) == {
        "p": 0, "play": "4-6", "points": 0,
    }  # fmt: skip
    assert move_to_record((1, play_code(six_four, 2), 6, 0, 4)) == {
        "p": 1, "play": "6-4", "end": "U", "points": 0, "ends_sum": 4,
    }  # fmt: skip
    assert move_to_record((1, DRAW, six_four, 0, -1)) == {"p": 1, "draw": "4-6"}
    assert move_to_record((0, PASS, -1, 0, -1)) == {"p": 0, "pass": True}


@pytest.mark.parametrize("code", [-1, 168, 199, 202, 10**6])
def test_a_code_that_is_no_action_is_refused_by_the_decoder(code: int) -> None:
    with pytest.raises(ValueError, match="no action"):
        code_parts(code)


def test_every_action_code_decodes_and_reads_back() -> None:
    codes = [*range(112), *(open_code(t, f) for t in range(28) for f in (False, True))]
    for code in [*codes, DRAW, PASS]:
        kind, tile, end = code_parts(code)
        assert describe_action(code).startswith({"open": "open", "draw": "draw"}.get(kind, ""))
        assert action_to_json(code)["type"] == ("play" if tile is not None else kind)
        assert (end is not None) == ("end" in action_to_json(code))
