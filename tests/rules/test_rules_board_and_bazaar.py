"""rules.md, "Placing tiles: ends and the stavka" and "Drawing and passing"."""

from __future__ import annotations

import random

import pytest

from kva.rules import DRAW, PASS, IllegalAction, open_code
from kva.rules.codes import OPEN_BASE
from kva.rules.engine import D, HandState, L, R, U
from kva.rules.hand import DRAWABLE
from tests.rules.ruleshelp import endgame, full_deal, opening, play, state_of, t

# A later hand (any opening tile) where player 0 holds the tiles of the worked examples.
EXAMPLE_DEAL = full_deal(
    ["6-6", "6-5", "5-5", "1-2", "2-3", "0-2", "1-3"],
    ["6-4", "6-1", "6-0", "0-0", "1-1", "3-4", "2-4"],
)


def _opened(first: str, opener: int = 0) -> HandState:
    state = state_of(EXAMPLE_DEAL, opener)
    state.apply(opening(first))
    return state


# ------------------------------------------------------------------ placing
def test_a_tile_is_placed_on_an_end_when_one_half_equals_the_asked_number() -> None:
    state = _opened("6-6")
    # 6-4 fits a 6; 0-0 and 3-4 do not fit anything.
    assert play("6-4", "R") in state.legal_codes()
    for code in (play("3-4", "R"), play("0-0", "L")):
        with pytest.raises(IllegalAction, match="does not fit"):
            state.apply(code)


def test_the_new_end_asks_for_the_other_half_of_the_tile() -> None:
    state = _opened("6-6")
    state.apply(play("6-4", "R"))
    assert state.ask[R] == 4 and state.ask[L] == 6


def test_the_game_turns_the_tile_either_written_order_is_the_same_placement() -> None:
    assert play("6-4", "R") == play("4-6", "R")


def test_player_chooses_among_the_ends_a_tile_fits() -> None:
    state = _opened("6-6")
    legal = state.legal_codes()
    assert play("6-4", "L") in legal and play("6-4", "R") in legal
    left = state.copy()
    left.apply(play("6-4", "L"))
    assert left.ask[:2] == [4, 6]
    state.apply(play("6-4", "R"))
    assert state.ask[:2] == [6, 4]


def test_the_chosen_end_decides_the_points() -> None:
    # 6-6, 6-4 on R, 6-5 on L (closed: L asks 5, R asks 4). 5-4 fits L and R:
    # on L the ends are 4+4=8 (nothing), on R 5+5=10 (scores 10).
    state = endgame(["6-6", "6-5", "0-1"], ["6-4", "5-4", "0-2"], opener=0)
    state.apply(opening("6-6"))
    state.apply(play("6-4", "R"))
    state.apply(play("6-5", "L"))
    assert sorted(state.legal_codes()) == sorted([play("5-4", "L"), play("5-4", "R")])
    on_left = state.copy()
    on_left.apply(play("5-4", "L"))
    assert on_left.log[-1][3:] == (0, 8)
    state.apply(play("5-4", "R"))
    assert state.log[-1][3:] == (10, 10) and state.points == [0, 10]


# ------------------------------------------------------------------ L and R of the opening
def test_the_opening_as_written_x_y_has_L_asking_x_and_R_asking_y() -> None:
    state = endgame(["6-4", "0-1"], ["6-1", "4-2"], opener=0)
    state.apply(opening("6-4"))
    assert state.ask[L] == 6 and state.ask[R] == 4
    assert state.legal_codes() == [play("6-1", "L"), play("4-2", "R")]


def test_the_opening_written_the_other_way_swaps_L_and_R() -> None:
    state = endgame(["6-4", "0-1"], ["6-1", "4-2"], opener=0)
    state.apply(opening("4-6"))
    assert state.ask[L] == 4 and state.ask[R] == 6
    assert sorted(state.legal_codes()) == sorted([play("6-1", "R"), play("4-2", "L")])


def test_open_code_flipped_writes_the_high_half_first() -> None:
    assert opening("6-4") == open_code(t("6-4"), flipped=True)
    assert opening("4-6") == open_code(t("6-4"), flipped=False)


# ------------------------------------------------------------------ the stavka
def test_an_opening_double_is_the_stavka() -> None:
    state = _opened("6-6")
    assert state.stavka == 6


def test_without_a_double_opening_the_first_later_double_is_the_stavka() -> None:
    state = endgame(["3-2", "3-6", "2-1", "0-0"], ["2-2", "2-4", "4-4", "1-1"], opener=0)
    state.apply(opening("3-2"))
    assert state.stavka == -1
    state.apply(play("2-2", "R"))
    assert state.stavka == 2 and state.stavka_end == R


def test_there_is_exactly_one_stavka_and_later_doubles_are_ordinary() -> None:
    # 3-2, 2-2 on R (stavka), 3-6 on L, 2-4 on R (stavka closed), 6-6 on L: ordinary double;
    # covering it (6-1 on L) opens nothing.
    state = endgame(["3-2", "3-6", "6-6", "5-0"], ["2-2", "2-4", "6-1", "0-1"], opener=0)
    state.apply(opening("3-2"))
    state.apply(play("2-2", "R"))
    state.apply(play("3-6", "L"))
    state.apply(play("2-4", "R"))
    assert state.ask == [6, 4, 2, 2]
    state.apply(play("6-6", "L"))
    assert state.stavka == 2 and state.value[L] == 12
    state.apply(play("6-1", "L"))
    assert state.stavka == 2 and state.ask == [1, 4, 2, 2]
    assert state.value == [1, 4, 0, 0]


def test_a_later_double_after_an_opening_stavka_never_opens_a_direction() -> None:
    # 6-6 opens; 6-4 R; 6-5 L closes it; 4-4 on R is ordinary and counts 8 at its end.
    state = endgame(["6-6", "6-5", "4-1", "0-1"], ["6-4", "4-4", "5-3", "0-2"], opener=0)
    state.apply(opening("6-6"))
    state.apply(play("6-4", "R"))
    state.apply(play("6-5", "L"))
    state.apply(play("4-4", "R"))
    assert state.stavka == 6 and state.value == [5, 8, 0, 0]
    state.apply(play("4-1", "R"))
    assert state.ask == [5, 1, 6, 6]


def test_opening_stavka_is_closed_only_when_both_L_and_R_have_a_tile() -> None:
    state = endgame(["6-6", "4-1", "3-0"], ["6-4", "6-2", "1-5"], opener=0)
    state.apply(opening("6-6"))
    state.apply(play("6-4", "L"))
    state.apply(play("4-1", "L"))  # two tiles on L: R still free, not closed
    assert state.ask[U] == -1 and state.ask[D] == -1 and state.value[R] == 12
    state.apply(play("6-2", "R"))
    assert state.ask[U] == 6 and state.ask[D] == 6
    assert state.value == [1, 2, 0, 0]


def test_later_stavka_is_closed_when_its_free_side_is_covered() -> None:
    state = endgame(["3-2", "3-6", "0-5"], ["2-2", "2-4", "6-6"], opener=0)
    state.apply(opening("3-2"))
    state.apply(play("2-2", "R"))
    state.apply(play("3-6", "L"))  # the other end: the stavka stays open
    assert state.ask[U] == -1
    state.apply(play("2-4", "R"))
    assert state.ask == [6, 4, 2, 2] and state.value == [6, 4, 0, 0]


def test_U_and_D_open_only_once_the_stavka_is_closed_and_ask_its_number() -> None:
    state = _opened("6-6")
    state.apply(play("6-4", "R"))
    with pytest.raises(IllegalAction, match="not open"):
        state.apply(play("6-5", "U"))
    state.apply(play("6-5", "L"))
    assert state.ask[U] == state.ask[D] == 6


# ------------------------------------------------------------------ forced play and drawing
def _draw_position(pass_only: bool = False) -> HandState:
    # 6-6 opens (player 0). Player 1 holds no 6; the bazaar gives 1-2, 3-4, then 6-3.
    deal = full_deal(
        ["6-6", "6-5", "5-5", "1-1", "0-1", "0-2", "0-3"],
        ["0-0", "1-3", "1-4", "2-2", "2-3", "2-4", "4-4"],
        bazaar_head=["1-2", "3-4", "6-3", "6-4"],
    )
    state = state_of(deal, 0, pass_only=pass_only)
    state.apply(opening("6-6"))
    return state


def test_holding_a_playable_tile_you_must_place_and_may_not_draw() -> None:
    state = _opened("6-6")
    state.apply(play("6-4", "R"))  # player 0 holds 6-5: playable
    assert DRAW not in state.legal_codes() and PASS not in state.legal_codes()
    with pytest.raises(IllegalAction, match="while holding a tile"):
        state.apply(DRAW)
    with pytest.raises(IllegalAction, match="while holding a tile"):
        state.apply(PASS)


def test_unable_to_place_you_draw_one_tile_at_a_time_until_one_fits() -> None:
    state = _draw_position()
    assert state.legal_codes() == [DRAW]
    state.apply(DRAW)  # 1-2: no fit, still player 1 and still a draw
    assert state.turn == 1 and state.legal_codes() == [DRAW]
    state.apply(DRAW)  # 3-4: no fit
    assert state.legal_codes() == [DRAW]
    state.apply(DRAW)  # 6-3 fits
    assert state.turn == 1 and state.draw_pos == 3
    assert state.hands[1] & (1 << t("1-2")) and state.hands[1] & (1 << t("3-4"))


def test_a_drawn_tile_that_fits_must_be_placed_at_once() -> None:
    state = _draw_position()
    for _ in range(3):
        state.apply(DRAW)
    assert sorted(state.legal_codes()) == sorted([play("6-3", "L"), play("6-3", "R")])
    with pytest.raises(IllegalAction):
        state.apply(DRAW)  # no further draw: 6-3 must go down
    state.apply(play("6-3", "R"))
    assert state.turn == 0 and state.pending == -1


def test_with_nothing_drawable_and_nothing_to_place_the_turn_passes_automatically() -> None:
    state = _draw_position()
    state.draw_pos = DRAWABLE  # the bazaar is drawn down to its protected tiles
    state.drawable = 0
    assert state.legal_codes() == [PASS]
    state.apply(PASS)
    assert state.turn == 0 and not state.over


def test_pass_is_illegal_while_a_drawable_tile_is_left() -> None:
    state = _draw_position()
    with pytest.raises(IllegalAction, match="drawable tile is left"):
        state.apply(PASS)


def test_pass_only_house_rule_nobody_draws_the_turn_passes() -> None:
    state = _draw_position(pass_only=True)
    assert state.legal_codes() == [PASS] and state.drawable_count() == 0
    with pytest.raises(IllegalAction, match="pass only"):
        state.apply(DRAW)
    state.apply(PASS)
    assert state.turn == 0 and state.draw_pos == 0


def test_pass_only_house_rule_keeps_the_whole_bazaar_out_of_play() -> None:
    # 6-3 and 6-4 lie at the head of the bazaar and would fit; under pass only they never
    # come into play, however the hand goes.
    for seed in range(20):
        state = _draw_position(pass_only=True)
        chooser = random.Random(seed)
        while not state.over:
            state.apply(chooser.choice(state.legal_codes()))
        assert state.draw_pos == 0
        assert all(code != DRAW for _, code, *_ in state.log)
        on_board = {code >> 2 for _, code, *_ in state.log if code < OPEN_BASE}
        assert not on_board & set(state.bazaar)
