"""rules.md, "Scoring during the hand" and "End of a hand", with both worked examples and the
first moves of the record-format.md example."""

from __future__ import annotations

import pytest

from kva.rules import DRAW, PASS, Deal, Match, open_code, write_record
from kva.rules.engine import HandState
from kva.rules.hand import SCORE_OF_SUM
from kva.rules.tiles import round_up_to_five
from tests.rules.ruleshelp import endgame, full_deal, opening, pips, play, row, state_of, t, tiles


def _step(state: HandState, code: int, ends_sum: int, points: int) -> None:
    player = state.turn
    before = state.points[player]
    state.apply(code)
    _, logged, _, got_points, got_sum = state.log[-1]
    assert logged == code
    assert (got_sum, got_points) == (ends_sum, points)
    assert state.ends_sum() == ends_sum
    assert state.points[player] == before + points


# ------------------------------------------------------------------ worked examples
def test_worked_example_1_six_six_opens_and_the_stavka_closes() -> None:
    # A (player 0) holds 6-6, 6-5, 5-5; B (player 1) holds 6-4, 6-1, 6-0.
    deal = full_deal(
        ["6-6", "6-5", "5-5", "1-2", "2-3", "0-2", "1-3"],
        ["6-4", "6-1", "6-0", "0-0", "1-1", "3-4", "2-4"],
    )
    match = Match(175, deals=[deal])
    state = match.hand
    assert match.legal_codes() == [open_code(t("6-6"))]
    # 6-6 opens (stavka, 0 points).
    state.apply(opening("6-6"))
    assert state.log[-1][3] == 0 and state.stavka == 6
    # 6-4 on R: 12+4=16, 0.
    _step(state, play("6-4", "R"), 16, 0)
    # 6-5 on L: stavka closed, 5+4=9, 0.
    _step(state, play("6-5", "L"), 9, 0)
    assert state.ask == [5, 4, 6, 6]
    # 6-1 on U: 5+4+1=10, scores 10.
    _step(state, play("6-1", "U"), 10, 10)
    # 5-5 on L: 10+4+1=15, scores 15.
    _step(state, play("5-5", "L"), 15, 15)
    # 6-0 on D: 10+4+1+0=15, scores 15.
    _step(state, play("6-0", "D"), 15, 15)
    assert state.points == [15, 25]
    assert state.value == [10, 4, 1, 0]


def test_worked_example_2_second_hand_three_two_opens_and_a_later_stavka() -> None:
    # A later hand: the opener may open with any tile. P (player 1) opens 3-2.
    deal = full_deal(
        ["2-2", "2-4", "4-4", "0-0", "0-1", "1-1", "5-5"],
        ["3-2", "3-6", "2-1", "0-5", "1-5", "1-6", "0-6"],
    )
    state = state_of(deal, 1)
    # 3-2 opens (0 points although 5).
    state.apply(opening("3-2"))
    assert state.log[-1][3] == 0 and state.ends_sum() == 5
    # 2-2 on R (stavka, one side free): 3+4=7, 0.
    _step(state, play("2-2", "R"), 7, 0)
    assert state.stavka == 2
    # 3-6 on L: 6+4=10, scores 10.
    _step(state, play("3-6", "L"), 10, 10)
    # 2-4 on R: stavka closed, 6+4=10, scores 10.
    _step(state, play("2-4", "R"), 10, 10)
    assert state.ask == [6, 4, 2, 2]
    # 2-1 on U: 6+4+1=11, 0.
    _step(state, play("2-1", "U"), 11, 0)
    # 4-4 on R: 6+8+1=15, scores 15.
    _step(state, play("4-4", "R"), 15, 15)
    assert state.points == [25, 10]


RECORD_EXAMPLE = Deal(
    (
        tuple(tiles(["6-6", "1-1", "0-2", "3-5", "2-5", "0-0", "1-2"])),
        tuple(tiles(["4-6", "2-3", "5-6", "0-1", "3-3", "2-2", "4-4"])),
    ),
    tuple(tiles(row("3-4 0-3 0-4 0-5 0-6 1-3 1-4 1-5 1-6 2-4 2-6 3-6 4-5 5-5"))),
)


def test_record_format_example_first_five_moves() -> None:
    match = Match(175, deals=[RECORD_EXAMPLE])
    assert match.turn == 0 and match.legal_codes() == [open_code(t("6-6"))]
    match.apply(opening("6-6"), player=0)
    match.apply(play("6-4", "R"), player=1)
    # Player 0 holds no 6 or 4 after 6-4, so must draw: the first bazaar tile, 3-4, fits.
    assert match.legal_codes() == [DRAW]
    match.apply(DRAW, player=0)
    assert match.legal_codes() == [play("3-4", "R")]
    match.apply(play("3-4", "R"), player=0)  # 12+3=15
    match.apply(play("6-5", "L"), player=1)  # closed: 5+3=8
    moves = write_record(match)["hands"][0]["moves"]
    assert moves == [
        {"p": 0, "play": "6-6", "points": 0},
        {"p": 1, "play": "6-4", "end": "R", "points": 0, "ends_sum": 16},
        {"p": 0, "draw": "3-4"},
        {"p": 0, "play": "4-3", "end": "R", "points": 15, "ends_sum": 15},
        {"p": 1, "play": "6-5", "end": "L", "points": 0, "ends_sum": 8},
    ]


# ------------------------------------------------------------------ what the ends count
def test_an_end_formed_by_an_ordinary_tile_counts_its_outer_half() -> None:
    state = endgame(["3-2", "0-1"], ["2-6", "0-2"], opener=0)
    state.apply(opening("3-2"))
    _step(state, play("2-6", "R"), 3 + 6, 0)


def test_an_end_formed_by_a_double_counts_both_halves_4_4_counts_8() -> None:
    state = endgame(["3-4", "0-1"], ["4-4", "0-2"], opener=0)
    state.apply(opening("3-4"))
    _step(state, play("4-4", "R"), 3 + 8, 0)
    assert state.value[1] == 8


def test_the_stavka_at_an_end_counts_both_halves_until_closed() -> None:
    state = endgame(["5-5", "0-1"], ["5-0", "3-2"], opener=0)
    state.apply(opening("5-5"))
    _step(state, play("5-0", "R"), 10 + 0, 10)


def test_a_lone_opening_stavka_counts_both_halves_once_6_6_is_12_not_24() -> None:
    state = endgame(["6-6", "0-1"], ["6-0", "3-2"], opener=0)
    state.apply(opening("6-6"))
    assert state.ends_sum() == 12 and state.log[-1][4] == 12


def test_a_closed_stavka_counts_nothing_ever_again() -> None:
    state = endgame(["6-6", "6-5", "0-1"], ["6-4", "3-2", "1-2"], opener=0)
    state.apply(opening("6-6"))
    _step(state, play("6-4", "R"), 16, 0)
    _step(state, play("6-5", "L"), 5 + 4, 0)  # not 5+4+12


def test_U_and_D_with_no_tile_yet_count_zero_then_their_last_tile_counts() -> None:
    state = endgame(["6-6", "6-5", "6-3", "1-1"], ["6-4", "6-2", "3-3", "0-0"], opener=0)
    state.apply(opening("6-6"))
    state.apply(play("6-4", "R"))
    _step(state, play("6-5", "L"), 9, 0)
    assert state.value[2:] == [0, 0]
    _step(state, play("6-2", "U"), 5 + 4 + 2, 0)
    _step(state, play("6-3", "D"), 5 + 4 + 2 + 3, 0)
    _step(state, play("3-3", "D"), 5 + 4 + 2 + 6, 0)  # a double at the end of D: both halves


@pytest.mark.parametrize("total", range(64))
def test_only_sums_5_10_15_20_25_30_35_score_and_score_exactly_themselves(total: int) -> None:
    assert SCORE_OF_SUM[total] == (total if total in (5, 10, 15, 20, 25, 30, 35) else 0)


def test_a_sum_that_is_not_a_multiple_of_five_scores_nothing() -> None:
    state = endgame(["6-6", "0-1"], ["6-4", "3-2"], opener=0)
    state.apply(opening("6-6"))
    _step(state, play("6-4", "R"), 16, 0)


# ------------------------------------------------------------------ the opening tile
def test_opening_with_5_5_scores_10() -> None:
    state = endgame(["5-5", "0-1"], ["5-0", "3-2"], opener=0)
    state.apply(opening("5-5"))
    assert state.log[-1][3] == 10 and state.points == [10, 0]


@pytest.mark.parametrize("first", row("6-4 4-6 0-5 5-0 3-2 6-6 4-1 0-0"))
def test_any_other_opening_tile_scores_nothing(first: str) -> None:
    state = endgame([first, "1-1"], ["6-2", "4-3", "5-2", "2-0"], opener=0)
    state.apply(opening(first))
    assert state.log[-1][3] == 0 and state.points == [0, 0]


# ------------------------------------------------------------------ domino
def _domino(left: list[str]) -> HandState:
    """Player 0 opens 3-2 and player 1 places 2-6 on R, their last tile (3+6=9: 0 points);
    player 0 is left with ``left``."""
    state = endgame(["3-2", *left], ["2-6"], opener=0)
    state.apply(opening("3-2"))
    state.apply(play("2-6", "R"))
    return state


@pytest.mark.parametrize(
    ("left", "scored"),
    [
        (["0-1"], 5),  # 1 -> 5
        (["1-4"], 5),  # 5 -> 5
        (["0-6"], 10),  # 6 -> 10
        (["5-5"], 10),  # 10 -> 10
        (["5-6"], 15),  # 11 -> 15
        (["5-6", "1-4"], 20),  # 16 -> 20
        (["0-0", "0-1"], 5),  # 1 -> 5
        (["4-4", "5-5", "6-6"], 30),  # 30 -> 30
    ],
)
def test_domino_scores_the_opponents_pips_rounded_up_to_five(left: list[str], scored: int) -> None:
    state = _domino(left)
    assert state.over and state.end == "domino" and state.winner == 1
    assert state.end_points == scored == round_up_to_five(pips(left))


def test_domino_when_the_opponent_holds_only_0_0_scores_10() -> None:
    state = _domino(["0-0"])
    assert state.over and state.end == "domino" and state.winner == 1
    assert state.end_points == 10


def test_domino_also_scores_the_last_placements_points() -> None:
    # Player 1 opens 4-4; player 0 places 4-2, their last tile: 8+2=10 scores 10; then the
    # domino scores player 1's 2-3, 5 pips -> 5.
    state = endgame(["4-2"], ["4-4", "2-3"], opener=1)
    state.apply(opening("4-4"))
    state.apply(play("4-2", "R"))
    assert state.log[-1][3:] == (10, 10)
    assert (state.end, state.winner, state.end_points) == ("domino", 0, 5)
    assert state.points == [10, 0]


def test_domino_takes_precedence_when_the_last_tile_also_kills_the_board() -> None:
    # Player 1 places their last tile and nothing fits any more; player 0 holds only 0-0.
    # A domino, not a fish: 10 points (a fish would be 0 vs 0, a draw).
    state = endgame(["3-2", "0-0"], ["2-6"], opener=0)
    state.apply(opening("3-2"))
    state.apply(play("2-6", "R"))
    assert (state.end, state.winner, state.end_points) == ("domino", 1, 10)
    assert state.next_opener() == 1


# ------------------------------------------------------------------ fish
def _fish_deal(protected: list[str], head: list[str] | None = None) -> Deal:
    # 6-6 opens (player 0), 6-0 on R (player 1): ends ask 6 and 0.
    return full_deal(
        ["6-6", "1-2", "1-3", "2-3", "1-4", "2-4", "3-4"],
        ["6-0", "1-1", "2-2", "3-3", "4-4", "1-5", "2-5"],
        bazaar_head=head,
        protected=protected,
    )


def test_fish_is_detected_right_after_the_killing_placement() -> None:
    # Only the named tiles exist: none of the first 12 bazaar tiles has a 6 or a 0 (the
    # protected 0-1 and 5-6 would fit but never count).
    state = endgame(
        ["6-6", "1-2"],
        ["6-0", "3-4"],
        opener=0,
        bazaar=row("1-1 1-3 1-4 1-5 2-2 2-3 2-4 2-5 3-3 3-5 4-4 4-5 0-1 5-6"),
        pass_only=False,
    )
    state.apply(opening("6-6"))
    assert not state.over
    state.apply(play("6-0", "R"))
    assert state.over and state.end == "fish"
    # 1-2 (3) against 3-4 (7): player 0 wins and scores 7 rounded up.
    assert state.winner == 0 and state.end_points == 10


def test_a_fitting_tile_in_the_drawable_bazaar_keeps_the_board_alive() -> None:
    bazaar = row(
        "1-1 1-3 1-4 1-5 2-2 2-3 2-4 2-5 3-3 3-5 4-4 0-1 4-5 5-6"
    )  # 0-1 is the 12th tile: still drawable
    state = endgame(["6-6", "1-2"], ["6-0", "3-4"], opener=0, bazaar=bazaar, pass_only=False)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    assert not state.over
    assert state.legal_codes() == [DRAW]


def test_the_protected_tiles_do_not_keep_the_board_alive() -> None:
    bazaar = row(
        "1-1 1-3 1-4 1-5 2-2 2-3 2-4 2-5 3-3 3-5 4-4 4-5 0-1 5-6"
    )  # 0-1 and 5-6 (both fit) are the protected two
    state = endgame(["6-6", "1-2"], ["6-0", "3-4"], opener=0, bazaar=bazaar, pass_only=False)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    assert state.over and state.end == "fish"


def test_under_pass_only_no_bazaar_tile_keeps_the_board_alive() -> None:
    bazaar = row(
        "0-1 5-6 1-1 1-3 1-4 1-5 2-2 2-3 2-4 2-5 3-3 3-5 4-4 4-5"
    )  # fitting tiles at the head of the bazaar
    state = endgame(["6-6", "1-2"], ["6-0", "3-4"], opener=0, bazaar=bazaar, pass_only=True)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    assert state.over and state.end == "fish"


def test_in_a_full_deal_the_drawable_bazaar_tiles_keep_the_board_alive() -> None:
    # Ends ask 6 and 0; the players hold none, the first bazaar tiles do.
    state = state_of(_fish_deal(["0-5", "6-5"]), 0)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    assert not state.over and state.legal_codes() == [DRAW]


def test_a_needed_double_in_a_hand_keeps_the_board_alive_and_is_played_first() -> None:
    state = endgame(["6-6", "0-0", "1-2"], ["6-0", "3-4"], opener=0)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    assert not state.over
    assert state.legal_codes() == [play("0-0", "R")]
    state.apply(play("0-0", "R"))
    assert state.over and state.end == "fish"


def test_a_needed_double_in_the_drawable_bazaar_keeps_the_board_alive() -> None:
    bazaar = row("1-1 1-3 1-4 1-5 2-2 2-3 0-0 2-4 2-5 3-3 3-5 4-4 0-1 5-6")
    state = endgame(["6-6", "1-2"], ["6-0", "3-4"], opener=0, bazaar=bazaar, pass_only=False)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    assert not state.over
    for _ in range(7):
        state.apply(DRAW)  # player 0 draws down to 0-0, which fits and must be placed
    assert state.legal_codes() == [play("0-0", "R")]
    state.apply(play("0-0", "R"))
    assert state.over and state.end == "fish"


def test_fish_13_against_16_the_13_wins_and_scores_20() -> None:
    # A holds 1-1, 5-6 (13) and B 4-2, 4-6 (16) once the board asks only 3 and 0.
    state = endgame(["1-1", "5-6", "0-3"], ["3-3", "4-2", "4-6"], opener=1)
    state.apply(opening("3-3"))
    state.apply(play("3-0", "R"))
    assert state.over and state.end == "fish"
    assert state.pips == [13, 16]
    assert state.winner == 0 and state.end_points == 20


def test_fish_smaller_total_wins_even_if_it_is_not_the_last_placer() -> None:
    state = endgame(["3-3", "2-2"], ["3-0", "0-1", "6-6"], opener=0)
    state.apply(opening("3-3"))
    state.apply(play("3-0", "R"))  # ends ask 3 and 0: 0-1 still fits
    assert not state.over
    state.apply(PASS)  # player 0 has nothing (pass only) and passes
    state.apply(play("0-1", "R"))  # asks 3 and 1: nothing fits
    assert state.over and state.end == "fish"
    assert state.pips == [4, 12] and state.winner == 0 and state.end_points == 15
    assert state.next_opener() == 1


def test_fish_with_equal_totals_is_a_draw_and_nobody_scores() -> None:
    state = endgame(["1-1", "5-6", "0-3"], ["3-3", "6-2", "4-1"], opener=1)
    state.apply(opening("3-3"))
    state.apply(play("3-0", "R"))
    assert state.over and state.end == "fish"
    assert state.pips == [13, 13]
    assert state.winner is None and state.end_points == 0 and state.points == [0, 0]


def test_two_passes_in_a_row_close_the_hand_like_a_fish() -> None:
    # Not reachable by legal play (the fish comes first): force the position by hand.
    state = endgame(["6-6", "1-2"], ["6-0", "0-1", "3-3"], opener=0)
    state.apply(opening("6-6"))
    state.apply(play("6-0", "R"))
    state.hands[1] &= ~(1 << t("0-1"))  # the fitting tile vanishes: nobody can place
    state.pips[1] -= 1
    state.apply(PASS)
    assert not state.over and state.turn == 1
    state.apply(PASS)
    assert state.over and state.end == "fish"
    assert state.pips == [3, 6] and state.winner == 0 and state.end_points == 10
    assert state.next_opener() == 1  # the last non-double placer (6-0)
