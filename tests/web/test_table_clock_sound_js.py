"""The table's clock face and sounds (kva/web/static/clockface.js, tablesound.js) under Node:
a flagged clock reads 0:00, a match that ends on time sounds like any other ending, and at
the Kozel table a knock, a hand's end and the goat are heard."""

from __future__ import annotations

import json
from typing import Any

from tests.web.node_modules_run import evaluate, needs_node

pytestmark = needs_node

BLITZ: dict[str, Any] = {"preset": "blitz", "per_move": 10, "left": [60_000, 60_000],
                         "seat": 0, "running_ms": 70_000, "flagged": None}


def _face(clock: dict[str, Any], seat: int, elapsed: int = 0) -> dict[str, Any]:
    face: dict[str, Any] = evaluate(
        "clockface.js", [f"m.clockFace({json.dumps(clock)}, {seat}, {elapsed})"])[0]
    return face


def test_a_flagged_clock_reads_zero_in_both_parts() -> None:
    flagged = {**BLITZ, "seat": None, "running_ms": 0, "left": [0, 60_000], "flagged": 0}
    face = _face(flagged, 0)
    assert (face["move"], face["reserve"], face["flagged"]) == ("0:00", "0:00", True)


def test_the_winners_idle_clock_still_shows_a_full_move() -> None:
    flagged = {**BLITZ, "seat": None, "running_ms": 0, "left": [0, 45_000], "flagged": 0}
    face = _face(flagged, 1)
    assert (face["move"], face["reserve"], face["flagged"]) == ("0:10", "0:45", False)


def test_a_running_clock_spends_the_move_time_before_the_reserve() -> None:
    face = _face(BLITZ, 0, elapsed=4_000)
    assert (face["move"], face["reserve"], face["running"]) == ("0:06", "1:00", True)
    face = _face(BLITZ, 0, elapsed=15_000)
    assert (face["move"], face["reserve"]) == ("0:00", "0:55")


def _sound(event: dict[str, Any], you: int | None, winner: int | None) -> str | None:
    args = ", ".join(json.dumps(v) for v in (event, you, winner))
    sound: str | None = evaluate("tablesound.js", [f"m.soundOf({args})"])[0]
    return sound


def test_a_win_on_time_plays_the_win_sound() -> None:
    event = {"kind": "forfeit", "p": 1, "reason": "time", "winner": 0}
    assert _sound(event, 0, 0) == "win"


def test_a_loss_on_time_plays_the_loss_sound() -> None:
    event = {"kind": "forfeit", "p": 1, "reason": "time", "winner": 0}
    assert _sound(event, 1, 0) == "lose"


def test_a_resignation_plays_the_win_and_loss_sounds() -> None:
    event = {"kind": "resign", "p": 0, "winner": 1}
    assert (_sound(event, 1, 1), _sound(event, 0, 1)) == ("win", "lose")


def test_a_match_won_on_the_board_plays_the_win_sound() -> None:
    event = {"kind": "match_end", "p": 0, "move": {"kind": "play", "points": 10}}
    assert _sound(event, 0, 0) == "win"


def test_a_spectator_hears_no_ending() -> None:
    assert _sound({"kind": "forfeit", "p": 1, "reason": "time", "winner": 0}, None, 0) is None


def test_a_tile_placed_with_points_scores() -> None:
    assert _sound({"kind": "play", "p": 0, "points": 15}, 1, None) == "score"
    assert _sound({"kind": "play", "p": 0, "points": 0}, 1, None) == "place"


def _runs(clock: dict[str, Any], seat: int, elapsed: int) -> bool:
    call = f"m.timeRuns({json.dumps(clock)}, {seat}, {elapsed})"
    runs: bool = evaluate("clockface.js", [call])[0]
    return runs


# A new hand: the first player's time starts 10 s late (70 s + the 10 s pause).
NEW_HAND: dict[str, Any] = {**BLITZ, "running_ms": 80_000}


def test_the_time_does_not_run_during_a_new_hands_pause() -> None:
    assert not _runs(NEW_HAND, 0, 9_000)


def test_the_time_runs_once_a_new_hands_pause_is_over() -> None:
    assert _runs(NEW_HAND, 0, 10_000)


def test_the_other_players_time_is_not_mine() -> None:
    assert not _runs(NEW_HAND, 1, 30_000)


def test_a_tile_name_in_text_never_breaks_between_its_halves() -> None:
    assert evaluate("tilename.js", ['m.tileText("6-6")', 'm.tileText("2-0")']) == [
        "6\u20116", "2\u20110"]


#: A Kozel view of hand 2 at four seats in pairs, seat 0 with seat 2.
KOZEL: dict[str, Any] = {"hand": 2, "sides": [[0, 2], [1, 3]], "over": False, "losers": [],
                         "last": None}


def _kozel(event: dict[str, Any] | None, before: dict[str, Any] | None, view: dict[str, Any],
           you: int | None) -> str | None:
    args = ", ".join(json.dumps(v) for v in (event, before, view, you))
    sound: str | None = evaluate("tablesound.js", [f"m.kozelSoundOf({args})"])[0]
    return sound


def test_a_kozel_tile_placed_sounds_placed() -> None:
    event = {"kind": "action", "p": 1, "action": {"type": "play", "tile": "3-5", "end": "L"}}
    assert _kozel(event, KOZEL, KOZEL, 0) == "place"


def test_a_kozel_knock_knocks_and_a_draw_is_silent() -> None:
    knock = {"kind": "action", "p": 1, "action": {"type": "knock"}}
    draw = {"kind": "action", "p": 1, "action": {"type": "draw"}}
    assert (_kozel(knock, KOZEL, KOZEL, 0), _kozel(draw, KOZEL, KOZEL, 0)) == ("knock", None)


def test_a_kozel_hand_end_is_won_by_the_side_that_scored_nothing() -> None:
    event = {"kind": "action", "p": 3, "action": {"type": "play", "tile": "0-0", "end": "R"}}
    after = {**KOZEL, "hand": 3, "last": {"end": "out", "by": 3, "scored": [12, 0]}}
    assert (_kozel(event, KOZEL, after, 0), _kozel(event, KOZEL, after, 1)) == ("lose", "win")
    assert _kozel(event, KOZEL, after, None) == "place"  # a spectator hears the tile


def test_a_kozel_match_end_is_lost_by_the_goat_only() -> None:
    event = {"kind": "match_end", "p": 1, "action": {"type": "play", "tile": "6-6", "end": "L"}}
    over = {**KOZEL, "over": True, "losers": [0, 2]}
    assert (_kozel(event, KOZEL, over, 2), _kozel(event, KOZEL, over, 3)) == ("lose", "win")
    assert _kozel(event, KOZEL, over, None) is None


def test_a_kozel_match_already_over_is_not_heard_again() -> None:
    over = {**KOZEL, "over": True, "losers": [1, 3]}
    assert _kozel({"kind": "resign", "p": 1}, None, over, 0) is None  # the page opened after it
    assert _kozel({"kind": "resign", "p": 1}, over, over, 0) is None


def _warning(running_ms: int, last_warned: int | None, seat: int = 0) -> Any:
    clock = {**BLITZ, "left": [0, 60_000], "running_ms": running_ms}
    face = f"m.clockFace({json.dumps(clock)}, {seat}, 0)"
    return evaluate("clockface.js", [f"[m.isLow({face}), m.warningDue({face}, "
                                     f"{json.dumps(last_warned)})]"])[0]


def test_a_clock_in_its_last_ten_seconds_is_low_and_warns_at_its_second() -> None:
    assert _warning(9_200, None) == [True, 10]
    assert _warning(2_500, 4) == [True, 3]


def test_a_second_already_warned_at_warns_no_more() -> None:
    assert _warning(9_200, 10) == [True, None]


def test_a_clock_with_more_than_ten_seconds_neither_is_low_nor_warns() -> None:
    assert _warning(10_001, None) == [False, None]


def test_a_clock_that_does_not_run_never_warns() -> None:
    assert _warning(5_000, None, seat=1) == [False, None]


def test_a_clock_at_zero_is_low_but_warns_no_more() -> None:
    assert _warning(0, None) == [True, None]
