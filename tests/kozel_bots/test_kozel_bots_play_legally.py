"""Every Kozel bot plays only legal actions, at every seat count, both fish rules and in pairs,
and a seeded match replays exactly."""

from __future__ import annotations

import random

import pytest

from kva.bots.kozel import KOZEL_BOTS, HardBot, KozelBot, make_kozel_bot
from kva.kozel import Match, Options
from kva.kozel.view import seat_view
from tests.kozel_bots.kozelhelp import SETUPS


def fast(name: str) -> KozelBot:
    if name == "hard":
        return HardBot.with_settings(playouts=16, min_guesses=2, max_seconds=60.0)
    return make_kozel_bot(name)


def play(names: list[str], seats: int, options: Options, seed: int) -> Match:
    match = Match(seats, options, rng=random.Random(seed))
    bots = [fast(names[p % len(names)]) for p in range(seats)]
    rngs = [random.Random(f"{seed}/{p}") for p in range(seats)]
    while not match.over:
        seat = match.turn
        assert seat is not None
        view = seat_view(match, seat)
        code = bots[seat].choose(view, rngs[seat])
        assert code in view.legal, (bots[seat].name, code, view)
        match.apply(code, seat)
    return match


@pytest.mark.parametrize("setup", range(len(SETUPS)))
def test_every_bot_plays_only_legal_actions_to_the_end_of_a_match(setup: int) -> None:
    seats, options = SETUPS[setup]
    names = list(KOZEL_BOTS)
    for seed in range(2):
        rotated = names[seed % 3:] + names[: seed % 3]
        match = play(rotated, seats, options, seed=100 * setup + seed)
        assert match.over and match.losers


def test_a_seeded_match_of_bots_replays_exactly() -> None:
    seats, options = SETUPS[4]
    one = play(["hard", "normal", "easy"], seats, options, seed=8)
    two = play(["hard", "normal", "easy"], seats, options, seed=8)
    assert [h.state.log for h in one.hands] == [h.state.log for h in two.hands]
    assert one.score == two.score


def test_an_unknown_bot_name_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="easy, hard, normal"):
        make_kozel_bot("wizard")
