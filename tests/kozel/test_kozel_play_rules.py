"""kozel.md §1-§4, one rule case per test: the deal, redeals, who opens, play, the hand's end."""

from __future__ import annotations

import random

import pytest

from kva.kozel import (
    DRAW,
    KNOCK,
    Deal,
    HandState,
    Match,
    describe_action,
    first_opening,
    redeal_reason,
    shuffled_deal,
)
from kva.rules import parse_tile
from kva.rules.engine import mask_of


def tiles(text: str) -> list[int]:
    return [parse_tile(t) for t in text.split()]


def state(hands: list[str], bazaar: str = "", opener: int = 0) -> HandState:
    return HandState([mask_of(tiles(h)) for h in hands], tuple(tiles(bazaar)), opener)


def play(hand: HandState, *actions: str) -> None:
    """Apply actions written as describe_action writes them, each by the seat on turn."""
    for text in actions:
        by_name = {describe_action(c): c for c in hand.legal_codes()}
        assert text in by_name, f"{text!r} not legal; legal: {sorted(by_name)}"
        hand.apply(by_name[text], hand.turn)


def rest(*held: str) -> list[int]:
    used = set(tiles(" ".join(held)))
    return [t for t in range(28) if t not in used]


# --------------------------------------------------------------------- §1 the deal
@pytest.mark.parametrize(("seats", "bazaar"), [(2, 14), (3, 7), (4, 0)])
def test_each_seat_gets_seven_and_the_bazaar_keeps_the_rest(seats: int, bazaar: int) -> None:
    deal = shuffled_deal(random.Random(seats), seats)
    assert [len(h) for h in deal.hands] == [7] * seats
    assert len(deal.bazaar) == bazaar
    assert sorted([*sum(deal.hands, ()), *deal.bazaar]) == list(range(28))


def test_the_last_bazaar_tile_is_never_drawn() -> None:
    hand = state(["6-6 0-1", "1-2 2-3"], bazaar="0-0")
    play(hand, "open 6-6")
    assert hand.drawable == 0
    assert hand.legal_codes() == [KNOCK]


@pytest.mark.parametrize(("seats", "drawable"), [(2, 13), (3, 6), (4, 0)])
def test_at_most_all_but_one_bazaar_tile_can_be_drawn(seats: int, drawable: int) -> None:
    deal = shuffled_deal(random.Random(1), seats)
    hand = HandState([mask_of(h) for h in deal.hands], deal.bazaar, 0)
    assert hand.drawable == drawable


def test_five_doubles_in_one_hand_void_the_deal() -> None:
    hands = (tuple(tiles("1-2 0-3 0-4 0-5 1-3 1-4 1-5")),
             tuple(tiles("0-0 1-1 2-2 3-3 4-4 0-1 0-2")))
    assert redeal_reason(Deal(hands, ())) == ("doubles", 1)


def test_four_doubles_do_not_void_the_deal() -> None:
    hands = (tuple(tiles("0-0 1-1 2-2 3-3 1-2 0-3 4-5")),)
    assert redeal_reason(Deal(hands, ())) is None


def test_six_tiles_of_one_number_void_the_deal() -> None:
    hands = (tuple(tiles("3-0 3-1 3-2 3-3 3-4 3-5 0-0")),)
    assert redeal_reason(Deal(hands, ())) == ("suit", 0)


def test_five_tiles_of_one_number_do_not_void_the_deal() -> None:
    hands = (tuple(tiles("3-0 3-1 3-2 3-3 3-4 5-5 0-1")),)
    assert redeal_reason(Deal(hands, ())) is None


def test_a_voided_deal_is_kept_with_why_and_whose_hand_and_dealt_again() -> None:
    bad = [*tiles("0-0 1-1 2-2 3-3 4-4 0-1 0-2"), *rest("0-0 1-1 2-2 3-3 4-4 0-1 0-2")]
    good = list(range(28))
    random.Random(3).shuffle(good)
    asked: list[tuple[int, int]] = []

    def dealer(hand: int, redeal: int) -> Deal:
        asked.append((hand, redeal))
        return Deal.from_order(bad if redeal == 0 else good, 4)

    match = Match(4, dealer=dealer)
    assert asked == [(0, 0), (0, 1)]
    (voided,) = match.current.voided
    assert (voided.why, voided.seat) == ("doubles", 0)
    assert match.current.deal == Deal.from_order(good, 4)


# --------------------------------------------------------------------- §2 who opens
def _deal_with(seat_tiles: list[str], seats: int = 3) -> Deal:
    held = [tiles(t) for t in seat_tiles]
    left = rest(*seat_tiles)
    hands = []
    for p in range(seats):
        mine = held[p] if p < len(held) else []
        while len(mine) < 7:
            mine.append(left.pop(0))
        hands.append(tuple(mine))
    return Deal(tuple(hands), tuple(left))


def test_the_first_hand_is_opened_with_one_one() -> None:
    deal = _deal_with(["2-2 3-3", "1-1", "0-0"])
    assert first_opening(deal) == (1, parse_tile("1-1"))


def test_without_one_one_the_lowest_double_from_two_two_opens() -> None:
    deal = Deal((tuple(tiles("6-6 0-2 0-3 0-4 0-5 0-6 1-2")),
                 tuple(tiles("3-3 1-3 1-4 1-5 1-6 2-3 2-4")),
                 tuple(tiles("0-0 2-5 2-6 3-4 3-5 3-6 4-5"))),
                tuple(tiles("0-1 1-1 2-2 4-4 4-6 5-5 5-6")))
    assert first_opening(deal) == (1, parse_tile("3-3"))


def test_double_blank_opens_only_after_six_six() -> None:
    deal = Deal((tuple(tiles("0-0 0-2 0-3 0-4 0-5 0-6 1-2")),
                 tuple(tiles("6-6 1-3 1-4 1-5 1-6 2-3 2-4"))),
                tuple(tiles("0-1 1-1 2-2 3-3 4-4 5-5 2-5 2-6 3-4 3-5 3-6 4-5 4-6 5-6")))
    assert first_opening(deal) == (1, parse_tile("6-6"))
    without = Deal((deal.hands[0], tuple(tiles("5-6 1-3 1-4 1-5 1-6 2-3 2-4"))), deal.bazaar)
    assert first_opening(without) == (0, parse_tile("0-0"))


@pytest.mark.parametrize(("held", "opening"), [
    ("5-6 4-6", "5-6"), ("4-6 3-6", "4-6"), ("3-6 4-5", "3-6"), ("4-5 2-6", "4-5"),
    ("2-6 3-5", "2-6"), ("1-6 2-5", "1-6"), ("2-5 3-4", "2-5"),
])
def test_with_no_double_dealt_the_highest_tile_by_sum_then_higher_half_opens(
    held: str, opening: str
) -> None:
    a, b = held.split()
    deal = Deal((tuple(tiles(f"{b} 0-1 0-2 0-3 0-4 0-5 1-2")),     # sums up to 5
                 tuple(tiles(f"{a} 1-3 1-4 2-3 0-6 1-5 2-4"))), ())  # sums up to 6
    assert first_opening(deal) == (1 if a == opening else 0, parse_tile(opening))


def test_the_first_hands_opener_must_play_the_opening_double() -> None:
    match = Match(2, rng=random.Random(0))
    seat = match.turn
    assert seat is not None
    assert [describe_action(c) for c in match.legal(seat)] == ["open 1-1"]


def test_a_later_hand_is_opened_with_any_tile_by_who_ended_the_last() -> None:
    match = Match(3, rng=random.Random(8))
    chooser = random.Random(8)
    while len(match.hands) == 1:
        match.apply(chooser.choice(match.legal(match.turn)))
    previous = match.hands[0].result
    assert previous is not None
    assert match.current.opener == previous.by == match.turn
    held = match.current.deal.hands[previous.by]
    assert sorted(describe_action(c) for c in match.legal(previous.by)) == sorted(
        describe_action(56 + t) for t in held)


# --------------------------------------------------------------------- §3 play
def test_a_seat_with_a_fitting_tile_must_place_and_may_not_draw() -> None:
    hand = state(["6-6 0-1", "6-2 0-2"], bazaar="3-3 4-4 5-5")
    play(hand, "open 6-6")
    assert [describe_action(c) for c in hand.legal_codes()] == ["2-6 on L", "2-6 on R"]


def test_a_tile_fitting_both_ends_may_go_on_either() -> None:
    hand = state(["3-5 0-0", "3-1 5-1 0-6"], bazaar="4-4 2-2")
    play(hand, "open 3-5")
    assert sorted(describe_action(c) for c in hand.legal_codes()) == ["1-3 on L", "1-5 on R"]


def test_with_nothing_fitting_the_seat_draws_until_a_tile_fits() -> None:
    hand = state(["6-6 0-1", "1-2 2-3"], bazaar="0-0 4-6 1-1 5-5")
    play(hand, "open 6-6")
    assert hand.legal_codes() == [DRAW] and hand.forced() == DRAW
    play(hand, "draw")
    assert hand.turn == 1 and hand.legal_codes() == [DRAW]
    play(hand, "draw")
    assert [describe_action(c) for c in hand.legal_codes()] == ["4-6 on L", "4-6 on R"]
    assert hand.hands[1] == mask_of(tiles("1-2 2-3 0-0 4-6"))


def test_with_nothing_fitting_and_nothing_drawable_the_seat_knocks() -> None:
    hand = state(["6-6 0-1 1-1", "1-2 2-3"], bazaar="0-0 3-3")
    play(hand, "open 6-6", "draw")
    assert hand.forced() == KNOCK
    play(hand, "knock")
    assert hand.turn == 0


def test_an_illegal_action_is_refused_saying_what_and_changes_nothing() -> None:
    hand = state(["6-6 0-1", "6-2 0-2"], bazaar="3-3 4-4 5-5")
    play(hand, "open 6-6")
    with pytest.raises(ValueError, match="draw is not legal for seat 1 now"):
        hand.apply(DRAW, 1)
    with pytest.raises(ValueError, match="it is seat 1's turn, not seat 0's"):
        hand.apply(KNOCK, 0)
    assert hand.drawn == 0 and hand.turn == 1 and len(hand.log) == 1


def test_a_seat_holding_a_fitting_tile_has_no_forced_action() -> None:
    hand = state(["6-6 0-1", "6-2 0-2"], bazaar="3-3 4-4")
    play(hand, "open 6-6")
    assert hand.forced() is None


# --------------------------------------------------------------------- §4 end of a hand
CHAIN = ["open 1-2", "0-2 on R", "0-1 on L", "0-3 on R", "3-4 on R", "0-4 on R", "0-5 on L",
         "5-6 on L", "0-6 on L"]


def test_placing_the_last_tile_goes_out() -> None:
    hand = state(["6-6", "0-1 2-2"], bazaar="")
    play(hand, "open 6-6")
    assert (hand.over, hand.end, hand.by) == (True, "out", 0)


def test_a_closed_number_is_a_fish_even_with_its_double_in_a_hand() -> None:
    """Ends 0 and 0, all six non-doubles with 0 placed, 0-0 still in seat 0's hand."""
    hand = state(["1-2 0-1 3-4 0-5 0-6 0-0 1-1", "0-2 0-3 0-4 5-6 2-2 3-3 4-4"])
    play(hand, *CHAIN[:-1])
    assert not hand.over
    play(hand, CHAIN[-1])
    assert (hand.over, hand.end, hand.by) == (True, "fish", 0)
    assert (hand.left, hand.right) == (0, 0)


def test_going_out_wins_over_a_fish_made_by_the_same_tile() -> None:
    hand = state(["1-2 0-1 3-4 0-5 0-6", "0-2 0-3 0-4 5-6 2-2 3-3 4-4"])
    play(hand, *CHAIN)
    assert (hand.end, hand.by) == ("out", 0)


def test_equal_ends_with_a_non_double_of_theirs_still_out_is_no_fish() -> None:
    hand = state(["1-2 0-1 3-4 0-5 0-6 0-0 1-1", "0-2 0-3 0-4 5-6 2-2 3-3 4-4"])
    play(hand, *CHAIN[:6])
    assert (hand.left, hand.right) == (0, 0)
    assert not hand.over


def test_everyone_knocking_in_a_row_is_a_fish_by_the_last_placer() -> None:
    hand = state(["6-6 0-1", "1-2 2-3"], bazaar="0-0")
    play(hand, "open 6-6", "knock")
    assert not hand.over
    play(hand, "knock")
    assert (hand.over, hand.end, hand.by) == (True, "fish", 0)


def test_a_placed_tile_breaks_a_run_of_knocks() -> None:
    hand = state(["6-6 0-1 2-6", "1-2 2-3", "0-3 4-4"], bazaar="")
    play(hand, "open 6-6", "knock", "knock")
    assert hand.knocks == 2
    play(hand, "2-6 on L")
    assert hand.knocks == 0 and not hand.over
