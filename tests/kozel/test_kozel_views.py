"""What a seat and a spectator see (kozel.md §3.4), and actions in JSON."""

from __future__ import annotations

import json
import re

import pytest

from kva.kozel import (
    DRAW,
    KNOCK,
    Deal,
    Match,
    Options,
    action_from_json,
    action_to_json,
    open_code,
    play_code,
    seat_view,
    spectator_view,
    view_to_json,
)
from kva.rules import IllegalAction, parse_tile


def tiles(text: str) -> tuple[int, ...]:
    return tuple(parse_tile(t) for t in text.split())


#: Seat 0 opens 1-1; seat 1 holds no 1 and draws 0-0, 2-3, then 1-4 fits; 2-2 stays last.
DEAL = Deal((tiles("1-1 0-2 0-3 0-4 0-5 0-6 2-4"), tiles("3-3 4-4 5-5 6-6 2-5 2-6 3-4")),
            tiles("0-0 2-3 1-4 3-5 3-6 4-5 4-6 5-6 1-2 1-3 1-5 1-6 0-1 2-2"))


def match_after_draws() -> Match:
    match = Match(2, Options(), dealer=lambda hand, redeal: DEAL)
    match.apply(open_code(parse_tile("1-1")), 0)
    for _ in range(3):
        match.apply(DRAW, 1)
    return match


def test_a_seat_sees_its_tiles_the_others_counts_and_the_bazaars_size() -> None:
    view = seat_view(match_after_draws(), 1)
    assert set(view.tiles) == set(DEAL.hands[1]) | set(tiles("0-0 2-3 1-4"))
    assert view.held == (6, 10)
    assert view.bazaar == 11 and view.drawable == 10
    assert view.line == ((1, 1),) and view.ends == (1, 1)


def test_everyone_sees_who_drew_how_many_but_not_what() -> None:
    view = seat_view(match_after_draws(), 0)
    assert view.drawn == (0, 3)
    assert [m.kind for m in view.moves] == ["open", "draw", "draw", "draw"]
    assert all(m.tile is None for m in view.moves[1:])
    assert "0-0" not in json.dumps(view_to_json(view))


def test_the_seat_on_turn_sees_its_legal_actions_and_the_others_none() -> None:
    match = match_after_draws()
    assert seat_view(match, 1).legal == (play_code(parse_tile("1-4"), 0),
                                         play_code(parse_tile("1-4"), 1))
    assert seat_view(match, 0).legal == ()


def test_a_knock_is_shown_with_the_ends_it_was_made_on() -> None:
    deal = Deal((tiles("1-1 0-0 0-2 0-3 4-5 4-6 5-6"), tiles("2-2 2-3 2-4 2-5 2-6 3-3 3-4"),
                 tiles("1-2 1-3 1-4 0-4 0-5 3-5 3-6"), tiles("0-1 0-6 1-5 1-6 4-4 5-5 6-6")), ())
    match = Match(4, dealer=lambda hand, redeal: deal)
    match.apply(open_code(parse_tile("1-1")), 0)
    assert seat_view(match, 1).forced == KNOCK
    match.apply(KNOCK, 1)
    view = seat_view(match, 3)
    assert view_to_json(view)["moves"] == [{"p": 0, "play": "1-1"},
                                           {"p": 1, "knock": True, "ends": [1, 1]}]
    assert view_to_json(view)["ends"] == {"L": 1, "R": 1}
    assert view.turn == 2


def test_a_forced_draw_is_named_in_the_view() -> None:
    match = Match(2, Options(), dealer=lambda hand, redeal: DEAL)
    match.apply(open_code(parse_tile("1-1")), 0)
    assert seat_view(match, 1).forced == DRAW
    assert view_to_json(seat_view(match, 1))["forced"] == {"type": "draw"}
    assert match.forced_action(1) == DRAW and match.forced_action(0) is None


def test_a_spectator_sees_no_hand_tile_at_all() -> None:
    match = match_after_draws()
    view = spectator_view(match)
    assert view.seat is None and view.tiles == () and view.legal == ()
    text = json.dumps(view_to_json(view))
    assert set(re.findall(r"\d-\d", text)) == {"1-1"}


def test_the_view_json_names_options_scores_and_remembered_points() -> None:
    order = [*range(0, 28, 2), *range(1, 28, 2)]
    match = Match(4, Options(fish="one", pairs=True),
                  dealer=lambda hand, redeal: Deal.from_order(order, 4))
    data = view_to_json(seat_view(match, 2))
    assert data["options"] == {"fish": "one", "limit": 101, "pairs": True}
    assert data["score"] == [0, 0] and data["remembered"] == [0, 0] and data["carry"] == 0
    assert data["sides"] == [[0, 2], [1, 3]]


def test_actions_read_and_write_as_json() -> None:
    code = play_code(parse_tile("1-4"), 1)
    assert action_to_json(code) == {"type": "play", "tile": "1-4", "end": "R"}
    assert action_to_json(KNOCK) == {"type": "knock"}
    assert action_from_json({"type": "play", "tile": "4-1", "end": "R"}, [code]) == code


@pytest.mark.parametrize("message, words", [
    ("draw", "an action must be an object"),
    ({"type": "pass"}, "unknown action type"),
    ({"type": "knock"}, "you cannot knock now"),
    ({"type": "play", "tile": 14}, "a tile must be a string"),
    ({"type": "play", "tile": "1-4", "end": "U"}, "end must be L or R"),
    ({"type": "play", "tile": "1-4"}, "fits both ends: say which"),
    ({"type": "play", "tile": "5-5"}, "5-5 cannot be placed now"),
])
def test_a_bad_action_message_is_a_clear_error(message: object, words: str) -> None:
    legal = [play_code(parse_tile("1-4"), 0), play_code(parse_tile("1-4"), 1)]
    with pytest.raises(IllegalAction, match=words):
        action_from_json(message, legal)
