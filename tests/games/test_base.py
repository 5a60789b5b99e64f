"""The interface's own values: deal seeds, option errors that name their field."""

from __future__ import annotations

import random

import pytest

from kva.games import BadOptions, DealSeeds, get


def test_deal_seeds_are_checked_and_never_show_the_server_seed() -> None:
    seeds = DealSeeds.from_rng(random.Random(1), 3)
    assert seeds.seats == 3 and len(seeds.server_seed) == 32
    assert seeds == DealSeeds.from_rng(random.Random(1), 3)
    assert seeds.server_seed.hex() not in repr(seeds)
    with pytest.raises(ValueError, match="server seed"):
        DealSeeds(bytes(31), seeds.client_seeds)
    with pytest.raises(ValueError, match="client seed"):
        DealSeeds(bytes(32), ("00" * 15,))
    with pytest.raises(ValueError, match="lowercase"):
        DealSeeds(bytes(32), ("AB" * 16,))


@pytest.mark.parametrize(
    ("name", "options", "field"),
    [
        ("georgian", {"target": 100}, "target"),
        ("georgian", {"target": True}, "target"),
        ("georgian", {"bazaar": "swap"}, "bazaar"),
        ("georgian", {"rated": True}, "rated"),
        ("kozel", {"fish": "none"}, "fish"),
        ("kozel", {"fish": "one", "pairs": "yes"}, "pairs"),
        ("kozel", {"limit": 0}, "limit"),
        ("kozel", {"fish": "one", "colour": "red"}, "colour"),
    ],
)
def test_bad_options_name_the_field_at_fault(
    name: str, options: dict[str, object], field: str
) -> None:
    with pytest.raises(BadOptions) as refused:
        get(name).parse_options(options)
    assert refused.value.field == field
    assert str(refused.value).startswith(f"{field}: ")


def test_the_options_of_both_games_as_plain_dicts() -> None:
    georgian, kozel = get("georgian"), get("kozel")
    assert georgian.options_to_dict(georgian.parse_options({})) == {
        "target": 175, "bazaar": "draw"}
    assert georgian.parse_options({"target": "255", "bazaar": "pass-only"}) == (
        georgian.parse_options({"target": 255, "bazaar": "pass-only"}))
    assert kozel.options_to_dict(kozel.parse_options({"pairs": True})) == {
        "fish": "all", "limit": 101, "pairs": True}


def test_the_pair_game_needs_four_seats() -> None:
    kozel = get("kozel")
    pairs = kozel.parse_options({"pairs": True})
    with pytest.raises(BadOptions, match="four players") as refused:
        kozel.new_match(pairs, 3, DealSeeds.from_rng(random.Random(1), 3))
    assert refused.value.field == "seats"
    assert kozel.new_match(pairs, 4, DealSeeds.from_rng(random.Random(1), 4)).seats == 4
