"""Kozel bots decide from one seat's view alone: swapping tiles hidden from that seat (between
the other hands and the bazaar) changes no decision, for the same seed."""

from __future__ import annotations

import random

from kva.bots.kozel import EasyBot, HardBot, KozelBot, NormalBot
from kva.kozel.view import seat_view
from tests.kozel_bots.kozelhelp import positions, reshuffled


def blind_bots() -> list[KozelBot]:
    # hard with a small budget and no wall-clock stop, so the suite is fast and exact.
    hard = HardBot.with_settings(playouts=24, min_guesses=4, max_seconds=60.0)
    return [EasyBot(), NormalBot(), hard]


def test_swapping_hidden_tiles_the_seat_cannot_tell_apart_changes_no_decision() -> None:
    rng = random.Random(5)
    bots = blind_bots()
    checked = 0
    for match, view in positions(seed=21, choices=600):
        if len(view.legal) < 2 or rng.random() > 0.3:
            continue
        seat = view.seat
        assert seat is not None
        alt = reshuffled(match, seat, rng)
        if alt is None:
            continue
        assert seat_view(alt, seat) == view
        for bot in bots:
            seed = rng.getrandbits(32)
            assert bot.choose(view, random.Random(seed)) == bot.choose(
                seat_view(alt, seat), random.Random(seed)
            ), bot.name
        checked += 1
    assert checked >= 80


def test_a_decision_is_a_pure_function_of_view_and_seed() -> None:
    bots = blind_bots()
    for _match, view in positions(seed=3, choices=60):
        if not view.legal:
            continue
        for bot in bots:
            assert bot.choose(view, random.Random(9)) == bot.choose(view, random.Random(9))
