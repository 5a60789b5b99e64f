"""rules.md, "Tiles and deal" and "Who opens"."""

from __future__ import annotations

import random

import pytest

from kva.rules import DRAW, PASS, Deal, IllegalAction, Match, open_code, shuffled_deal
from kva.rules.codes import OPEN_BASE
from kva.rules.match import highest_double
from kva.rules.tiles import (
    ALL_TILES,
    IS_DOUBLE,
    NUMBER_MASK,
    TILE_COUNT,
    TILE_HIGH,
    TILE_LOW,
    TILE_NAME,
    TILE_PIPS,
    TOTAL_PIPS,
    mask_of,
    parse_tile,
)
from tests.rules.ruleshelp import endgame, full_deal, play, random_match, state_of, t, tiles


# ------------------------------------------------------------------ the set
def test_the_set_has_28_tiles_from_0_0_to_6_6_each_pair_once() -> None:
    pairs = {(TILE_LOW[i], TILE_HIGH[i]) for i in range(TILE_COUNT)}
    assert TILE_COUNT == 28 and len(pairs) == 28
    assert pairs == {(a, b) for a in range(7) for b in range(a, 7)}
    assert ALL_TILES == (1 << 28) - 1


def test_the_set_has_168_pips() -> None:
    assert sum(TILE_PIPS) == 168 == TOTAL_PIPS


def test_the_set_has_seven_doubles() -> None:
    doubles = [TILE_NAME[i] for i in range(TILE_COUNT) if IS_DOUBLE[i]]
    assert doubles == ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]


def test_every_number_is_on_exactly_seven_tiles() -> None:
    for n in range(7):
        assert NUMBER_MASK[n].bit_count() == 7
    assert {TILE_NAME[i] for i in range(28) if NUMBER_MASK[3] >> i & 1} == {
        "0-3",
        "1-3",
        "2-3",
        "3-3",
        "3-4",
        "3-5",
        "3-6",
    }


def test_a_b_and_b_a_are_the_same_tile() -> None:
    assert parse_tile("6-4") == parse_tile("4-6")
    assert parse_tile("0-5") == parse_tile("5-0")


# ------------------------------------------------------------------ the deal
@pytest.mark.parametrize("seed", range(20))
def test_each_hand_deals_7_and_7_and_leaves_14_in_the_bazaar(seed: int) -> None:
    deal = shuffled_deal(random.Random(seed))
    assert len(deal.hands[0]) == 7 and len(deal.hands[1]) == 7 and len(deal.bazaar) == 14
    assert sorted(deal.hands[0] + deal.hands[1] + deal.bazaar) == list(range(28))


def test_the_deal_is_shuffled_anew_for_every_hand() -> None:
    match = random_match(3, target=175)
    deals = {played.deal for played in match.hands}
    assert len(match.hands) >= 3 and len(deals) == len(match.hands)


# ------------------------------------------------------------------ the protected tiles
def _nothing_fits_deal() -> Deal:
    # Player 0 opens 0-0; player 1 holds no 0 and none of the first 12 bazaar tiles has a 0;
    # the two protected tiles (0-5, 0-6) would fit.
    return full_deal(
        ["0-0", "0-1", "0-2", "0-3", "0-4", "1-1", "1-2"],
        ["2-2", "2-3", "2-4", "3-3", "3-4", "4-4", "1-3"],
        protected=["0-5", "0-6"],
    )


def test_the_last_two_bazaar_tiles_are_never_drawn_so_at_most_12_draws() -> None:
    deal = _nothing_fits_deal()
    state = state_of(deal, 0)
    state.apply(open_code(t("0-0")))
    for _ in range(12):
        assert state.legal_codes() == [DRAW]
        state.apply(DRAW)
    assert state.draw_pos == 12 and state.drawable_count() == 0
    # The protected 0-5 and 0-6 would fit, yet player 1 may not draw them: the turn passes.
    assert state.legal_codes() == [PASS]
    with pytest.raises(IllegalAction):
        state.apply(DRAW)
    assert not state.hands[1] & mask_of(tiles(["0-5", "0-6"]))
    state.apply(PASS)
    assert state.turn == 0


# ------------------------------------------------------------------ who opens the first hand
def test_first_hand_is_opened_by_the_holder_of_6_6_with_6_6() -> None:
    deal = full_deal(
        ["1-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"],
        ["6-6", "5-5", "1-3", "1-4", "1-5", "1-6", "2-3"],
    )
    match = Match(75, deals=[deal])
    assert match.turn == 1
    assert match.legal_codes() == [open_code(t("6-6"))]


def test_first_hand_without_6_6_is_opened_by_the_holder_of_5_5_with_5_5() -> None:
    deal = full_deal(
        ["5-5", "4-4", "0-3", "0-4", "0-5", "0-6", "1-2"],
        ["3-3", "2-3", "1-3", "1-4", "1-5", "1-6", "2-4"],
        protected=["6-6", "0-0"],
    )
    match = Match(75, deals=[deal])
    assert match.turn == 0
    assert match.legal_codes() == [open_code(t("5-5"))]


def test_first_hand_holder_of_only_0_0_opens_with_0_0() -> None:
    deal = full_deal(
        ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"],
        ["0-0", "2-3", "1-3", "1-4", "1-5", "1-6", "2-4"],
    )
    assert highest_double(deal) == (t("0-0"), 1)
    match = Match(75, deals=[deal])
    assert match.turn == 1 and match.legal_codes() == [open_code(t("0-0"))]


def test_first_hand_must_open_with_the_highest_double_not_another_tile() -> None:
    deal = full_deal(
        ["6-6", "5-5", "0-3", "0-4", "0-5", "0-6", "1-2"],
        ["3-3", "2-3", "1-3", "1-4", "1-5", "1-6", "2-4"],
    )
    match = Match(75, deals=[deal])
    for other in ("5-5", "1-2", "0-6"):
        with pytest.raises(IllegalAction):
            match.apply(open_code(t(other)))
    with pytest.raises(IllegalAction):
        match.apply(open_code(t("3-3")), player=1)  # the other player may not open
    match.apply(open_code(t("6-6")), player=0)
    assert match.hand.placed == 1 and match.turn == 1


def test_first_deal_without_any_double_in_a_hand_is_void() -> None:
    deal = full_deal(
        ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"],
        ["1-3", "1-4", "1-5", "1-6", "2-3", "2-4", "2-5"],
    )
    assert highest_double(deal) is None
    with pytest.raises(ValueError, match="redealt"):
        Match(75, deals=[deal])


class _Deck:
    """A RandomSource whose shuffles give fixed orders, one per deal."""

    def __init__(self, orders: list[list[int]]) -> None:
        self.orders = orders
        self.shuffles = 0

    def shuffle(self, x: list[int]) -> None:
        x[:] = self.orders[self.shuffles]
        self.shuffles += 1


def _order(deal: Deal) -> list[int]:
    return list(deal.hands[0] + deal.hands[1] + deal.bazaar)


def test_first_deal_without_any_double_in_a_hand_is_redealt() -> None:
    void = full_deal(
        ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"],
        ["1-3", "1-4", "1-5", "1-6", "2-3", "2-4", "2-5"],
    )
    good = full_deal(
        ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "2-2"],
        ["1-3", "1-4", "1-5", "1-6", "2-3", "2-4", "2-5"],
    )
    deck = _Deck([_order(void), _order(void), _order(good)])
    match = Match(75, rng=deck)
    assert deck.shuffles == 3
    assert match.hands[0].deal == good and len(match.hands) == 1
    assert match.turn == 0 and match.legal_codes() == [open_code(t("2-2"))]


def test_first_deal_without_a_double_from_a_seeded_shuffle_is_redealt() -> None:
    seed = next(s for s in range(10_000) if highest_double(shuffled_deal(random.Random(s))) is None)
    void = shuffled_deal(random.Random(seed))
    match = Match(75, rng=random.Random(seed))
    assert match.hands[0].deal != void
    assert highest_double(match.hands[0].deal) is not None


# ------------------------------------------------------------------ later hands
def _first_two_hands(ending: str) -> Match:
    """A seeded self-played match stopped at the start of hand 2, whose hand 1 ended by
    ``ending`` (domino or fish)."""
    for seed in range(500):
        chooser = random.Random(seed)
        match = Match(355, rng=random.Random(seed))
        while len(match.hands) == 1:
            match.apply(chooser.choice(match.legal_codes()))
        result = match.hands[0].result
        if result is not None and result.end == ending and result.winner is not None:
            return match
    raise AssertionError(f"no seed ends hand 1 by {ending}")


def test_later_hand_is_opened_by_the_winner_of_the_previous_hand_with_any_tile() -> None:
    match = _first_two_hands("domino")
    winner = match.hands[0].result.winner  # type: ignore[union-attr]
    assert match.hands[1].opener == winner == match.turn
    held = sorted(match.hands[1].deal.hands[winner])  # type: ignore[index]
    assert sorted(match.legal_codes()) == [open_code(x) for x in held]
    assert match.hand.forced_opening == -1
    # Any tile: open with a non-double, written high half first.
    tile = next(x for x in held if TILE_LOW[x] != TILE_HIGH[x])
    match.apply(open_code(tile, flipped=True), player=winner)
    assert match.hand.ask[:2] == [TILE_HIGH[tile], TILE_LOW[tile]]


def _last_nondouble_placer(match: Match, index: int) -> int:
    log = match.hands[index].state.log
    placements = [(p, code) for p, code, *_ in log if code < DRAW]
    nondouble = [
        p
        for p, code in placements
        if not IS_DOUBLE[(code - OPEN_BASE) >> 1 if code >= OPEN_BASE else code >> 2]
    ]
    return nondouble[-1] if nondouble else placements[-1][0]


def test_after_a_won_fish_the_last_non_double_placer_opens() -> None:
    match = _first_two_hands("fish")
    assert match.hands[1].opener == _last_nondouble_placer(match, 0) == match.turn
    assert match.hand.forced_opening == -1


def test_after_a_fish_the_last_non_double_placer_opens_even_if_a_double_came_last() -> None:
    # 6-0 by player 1, then player 0 must play the needed 0-0: the board is dead (fish).
    state = state_of(
        full_deal(
            ["6-6", "0-0", "1-2", "1-3", "2-3", "1-4", "2-4"],
            ["6-0", "3-4", "1-1", "2-2", "3-3", "4-4", "1-5"],
            protected=["6-1", "6-2"],
        ),
        0,
        pass_only=True,
    )
    state.apply(open_code(t("6-6")))
    state.apply(play("6-0", "R"))
    assert not state.over  # 0-0 is still in a hand
    state.apply(play("0-0", "R"))
    assert state.over and state.end == "fish" and state.last_placer == 0
    assert state.next_opener() == 1


def test_after_a_drawn_fish_the_last_non_double_placer_opens() -> None:
    # Only the named tiles exist. 5-6 opens, 6-3 on R: nothing left fits 5 or 3; 3 vs 3 pips.
    state = endgame(["6-3", "1-2"], ["5-6", "0-1", "0-2"], opener=1)
    state.apply(open_code(t("5-6")))
    state.apply(play("6-3", "R"))
    assert state.over and state.end == "fish" and state.winner is None  # 3 vs 3
    assert state.next_opener() == 0


def test_after_a_fish_with_no_non_double_placed_the_last_placer_opens() -> None:
    state = endgame(["3-4"], ["6-6", "2-5"], opener=1)
    state.apply(open_code(t("6-6")))
    assert state.over and state.end == "fish" and state.winner is None
    assert state.last_nondouble_placer == -1
    assert state.next_opener() == 1


# ------------------------------------------------------------------ turns
def test_players_alternate_turns_from_the_opener_and_a_draw_keeps_the_turn() -> None:
    for seed in range(5):
        match = random_match(seed)
        for played in match.hands:
            log = played.state.log
            assert log[0][0] == played.opener
            for (p, code, *_), (q, *_) in zip(log, log[1:], strict=False):
                assert q == (p if code == DRAW else 1 - p)
