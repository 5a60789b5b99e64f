"""kva-fair/1 deals for Kozel at 2 to 4 seats: every seat's client seed counts, redeals are
numbered from the same seeds, and a record's deals are re-derived when it carries them."""

from __future__ import annotations

import pytest

from kva.kozel import KozelFairDealer, verify_record
from kva.rules import RecordError, derive_deal, parse_tile, shuffled_order
from tests.kozel.kozelhelp import fair_record, seeds

SERVER = bytes(range(32))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_seats_client_seed_changes_the_deal(seats: int) -> None:
    base = KozelFairDealer(SERVER, seeds(seats))(0, 0)
    for p in range(seats):
        changed = seeds(seats)
        changed[p] = "ff" * 16
        assert KozelFairDealer(SERVER, changed)(0, 0) != base


def test_a_deal_is_seven_tiles_a_seat_and_the_rest_in_shuffled_order() -> None:
    order = shuffled_order(SERVER, seeds(3), 4, 2)
    deal = KozelFairDealer(SERVER, seeds(3))(4, 2)
    assert deal.hands == (tuple(order[:7]), tuple(order[7:14]), tuple(order[14:21]))
    assert deal.bazaar == tuple(order[21:])


def test_two_seat_kozel_deals_use_the_georgian_block_unchanged() -> None:
    """Two seeds give the very block the Georgian game always used (its fixed outputs are
    pinned in tests/rules/test_rules_fair.py)."""
    georgian = derive_deal(SERVER, seeds(2), 3, 0)
    kozel = KozelFairDealer(SERVER, seeds(2))(3, 0)
    assert kozel.hands == georgian.hands and kozel.bazaar == georgian.bazaar


def test_redeals_of_a_hand_are_numbered_from_the_same_seeds() -> None:
    for seed in range(60):
        doc = fair_record(3, seed)
        voided = [(k, h) for k, h in enumerate(doc["hands"]) if h["voided"]]
        if voided:
            break
    else:
        raise AssertionError("no seed gives a redeal")
    k, hand = voided[0]
    dealer = KozelFairDealer(bytes.fromhex(doc["meta"]["fair"]["server_seed"]),
                             doc["meta"]["fair"]["client_seeds"])
    for n, void in enumerate(hand["voided"]):
        assert [list(h) for h in dealer(k, n).hands] == [_ids(t) for t in void["hands"]]
        assert list(dealer(k, n).bazaar) == _ids(void["bazaar"])
    played = dealer(k, len(hand["voided"]))
    assert [list(h) for h in played.hands] == [_ids(t) for t in hand["deal"]["hands"]]
    verify_record(doc)


def _ids(names: list[str]) -> list[int]:
    return [parse_tile(n) for n in names]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_fair_record_verifies_and_a_changed_seed_is_caught(seats: int) -> None:
    doc = fair_record(seats, 5, "one")
    verify_record(doc)
    doc["meta"]["fair"]["client_seeds"][seats - 1] = "ab" * 16
    with pytest.raises(RecordError) as caught:
        verify_record(doc)
    assert caught.value.where.startswith("hands[0]")
    assert "not the deal kva-fair/1 derives" in caught.value.problem


def test_a_finished_fair_record_must_reveal_its_server_seed() -> None:
    doc = fair_record(4, 1)
    del doc["meta"]["fair"]["server_seed"]
    with pytest.raises(RecordError) as caught:
        verify_record(doc)
    assert caught.value.where == "meta.fair.server_seed"


def test_a_fair_record_lists_one_client_seed_per_seat() -> None:
    doc = fair_record(3, 1)
    doc["meta"]["fair"]["client_seeds"].pop()
    with pytest.raises(RecordError) as caught:
        verify_record(doc)
    assert caught.value.problem == "must list the three seats' client seeds"


def test_the_dealer_never_prints_its_server_seed() -> None:
    dealer = KozelFairDealer(SERVER, seeds(4))
    assert SERVER.hex() not in repr(dealer)
    assert "server_seed" not in dealer.meta(reveal=False)
