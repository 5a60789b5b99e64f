"""Helpers for the Kozel bots tests: seeded positions from real matches, and replays of a match
with hidden tiles swapped that the viewing seat cannot tell apart."""

from __future__ import annotations

import random
from collections.abc import Iterator

from kva.kozel import Deal, Match, Options, redeal_reason
from kva.kozel.view import SeatView, seat_view
from kva.rules import IllegalAction
from kva.rules.engine import tiles_of

#: Table setups the tests cover: every seat count, both fish rules, the pair game.
SETUPS: tuple[tuple[int, Options], ...] = (
    (2, Options()), (2, Options(fish="one")), (3, Options()), (3, Options(fish="one")),
    (4, Options()), (4, Options(fish="one")), (4, Options(pairs=True)),
    (4, Options(fish="one", pairs=True)),
)


def positions(seed: int, choices: int) -> Iterator[tuple[Match, SeatView]]:
    """Positions from seeded matches over every setup (heaviest-tile and random play mixed),
    until ``choices`` of them offered more than one legal action; forced ones come too."""
    rng = random.Random(seed)
    found = 0
    k = 0
    while found < choices:
        seats, options = SETUPS[k % len(SETUPS)]
        k += 1
        match = Match(seats, options, rng=random.Random(rng.getrandbits(32)))
        while not match.over and found < choices:
            seat = match.turn
            assert seat is not None
            view = seat_view(match, seat)
            if len(view.legal) > 1:
                found += 1
            yield match, view
            match.apply(rng.choice(view.legal), seat)


def replay(match: Match, current: Deal) -> Match | None:
    """``match``'s actions replayed with its current hand dealt as ``current`` (None: the
    actions are not legal with that deal)."""
    played = match.hands

    def dealer(hand: int, redeal: int) -> Deal:
        voided = played[hand].voided
        if redeal < len(voided):
            return voided[redeal].deal
        return current if hand == len(played) - 1 else played[hand].deal

    alt = Match(match.seats, match.options, dealer=dealer)
    try:
        for hand in played:
            for seat, code, _tile in hand.state.log:
                alt.apply(code, seat)
    except IllegalAction:
        return None
    return alt


def reshuffled(match: Match, seat: int, rng: random.Random, tries: int = 24) -> Match | None:
    """A replay of ``match`` in which two tiles hidden from ``seat`` (in other hands or the
    bazaar) swapped places in the current deal, so that the hidden tiles now lie differently
    but ``seat``'s view is the same; None if no try gave one."""
    deal = match.current.deal
    state = match.state
    hidden = [t for p in range(match.seats) if p != seat for t in tiles_of(state.hands[p])]
    hidden += list(state.bazaar[state.drawn:])
    view = seat_view(match, seat)
    for _ in range(tries):
        a, b = rng.sample(hidden, 2)

        def swap(t: int, a: int = a, b: int = b) -> int:
            return b if t == a else a if t == b else t

        alt_deal = Deal(tuple(tuple(swap(t) for t in h) for h in deal.hands),
                        tuple(swap(t) for t in deal.bazaar))
        if redeal_reason(alt_deal) is not None:
            continue  # that deal would be thrown back: not the same match
        alt = replay(match, alt_deal)
        if alt is None or seat_view(alt, seat) != view:
            continue
        if alt.state.hands != state.hands or alt.state.bazaar[alt.state.drawn:] != (
            state.bazaar[state.drawn:]
        ):
            return alt
    return None
