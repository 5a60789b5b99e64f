"""What a Kozel seat infers about hidden tiles: never wrong about the real deal, and every
guess it samples respects it."""

from __future__ import annotations

import random

from kva.bots.kozel.knowledge import Knowledge, numbers_mask
from kva.kozel import Deal, Match
from kva.kozel.view import seat_view
from kva.rules.engine import ALL_TILES, TILE_ID, mask_of, tiles_of
from tests.kozel_bots.kozelhelp import positions


def test_what_a_seat_infers_is_always_true_of_the_real_deal() -> None:
    for match, view in positions(seed=4, choices=800):
        know = Knowledge(view)
        for p in range(match.seats):
            if p == view.seat:
                continue
            assert not match.state.hands[p] & numbers_mask(know.lacks[p])
            assert not mask_of(match.current.deal.hands[p]) & know.in_bazaar


def test_a_knock_shows_the_knocker_lacks_both_end_numbers() -> None:
    seen = 0
    for match, view in positions(seed=6, choices=3000):
        if match.seats != 4:  # no bazaar: nobody draws, so a knock's evidence lasts the hand
            continue
        know = Knowledge(view)
        for move in view.moves:
            if move.kind == "knock" and move.p != view.seat:
                assert move.ends is not None
                left, right = move.ends
                assert know.lacks[move.p] >> left & 1 and know.lacks[move.p] >> right & 1
                seen += 1
    assert seen > 50


def test_every_guess_gives_each_seat_its_tile_count_and_respects_what_is_known() -> None:
    rng = random.Random(2)
    for _match, view in positions(seed=8, choices=300):
        know = Knowledge(view)
        hands, bazaar = know.sample(rng)
        assert hands[know.me] == mask_of(view.tiles)
        assert [h.bit_count() for h in hands] == list(view.held)
        assert len(bazaar) == view.bazaar
        everything = know.table | mask_of(bazaar)
        for h in hands:
            assert not everything & h
            everything |= h
        assert everything == ALL_TILES
        for p, hand in enumerate(hands):
            if p != know.me:
                assert not hand & numbers_mask(know.lacks[p])


def name(text: str) -> int:
    a, b = (int(x) for x in text.split("-"))
    return TILE_ID[a][b]


def test_a_first_hand_opened_with_3_3_puts_1_1_and_2_2_in_the_bazaar() -> None:
    hands = (("3-3", "0-1", "0-2", "4-5", "4-6", "5-6", "1-3"),
             ("4-4", "0-3", "0-4", "1-4", "1-5", "2-5", "2-6"))
    dealt = {name(t) for hand in hands for t in hand}
    deal = Deal(tuple(tuple(name(t) for t in hand) for hand in hands),
                tuple(t for t in range(28) if t not in dealt))
    match = Match(2, dealer=lambda _hand, _redeal: deal)
    assert match.turn == 0
    match.apply(match.legal(0)[0], 0)  # the forced 3-3
    know = Knowledge(seat_view(match, 1))
    assert tiles_of(know.in_bazaar) == sorted([name("1-1"), name("2-2")])
