"""Helpers for the bots tests: seeded positions from real matches, and hidden-tile reshuffles."""

from __future__ import annotations

import random
from collections.abc import Iterator

from kva.bots.simple import view_greedy
from kva.rules import TARGETS, Deal, IllegalAction, Match, PlayerView, player_view
from kva.rules.engine import tiles_of


def positions(seed: int, choices: int) -> Iterator[tuple[Match, PlayerView]]:
    """Positions from seeded matches (mixed greedy and random play, both bazaar rules) until
    ``choices`` of them offered more than one legal action; forced ones are yielded too."""
    rng = random.Random(seed)
    found = 0
    k = 0
    while found < choices:
        bazaar = "pass-only" if k % 5 == 4 else "draw"
        match = Match(rng.choice(TARGETS), bazaar, random.Random(rng.getrandbits(32)))
        k += 1
        while not match.over and found < choices:
            seat = match.turn
            assert seat is not None
            view = player_view(match, seat)
            if len(view.legal) > 1:
                found += 1
            yield match, view
            legal = view.legal
            code = view_greedy(view) if rng.random() < 0.6 else rng.choice(legal)
            match.apply(code, player=seat)


def replay(match: Match, current: Deal) -> Match | None:
    """``match``'s actions replayed with the current hand dealt as ``current`` (None: illegal)."""
    deals = [h.deal for h in match.hands[:-1]] + [current]
    alt = Match(match.target, match.bazaar, deals=deals)
    try:
        for played in match.hands:
            for _p, code, _x, _points, _sum in played.state.log:
                alt.apply(code)
    except (IllegalAction, IndexError, ValueError):
        return None
    return alt


def _swap(deal: Deal, a: int, b: int) -> Deal:
    def sw(t: int) -> int:
        return b if t == a else a if t == b else t

    return Deal(
        (tuple(sw(t) for t in deal.hands[0]), tuple(sw(t) for t in deal.hands[1])),
        tuple(sw(t) for t in deal.bazaar),
    )


def reshuffled(match: Match, seat: int, rng: random.Random, tries: int = 24) -> Match | None:
    """A second match whose hidden tiles (opponent hand, undrawn bazaar) differ from ``match``'s
    but which ``seat`` cannot tell apart: same actions, identical view. None if no swap of
    hidden tiles found was consistent with the public history."""
    view = player_view(match, seat)
    unseen = tiles_of(view.unseen())
    if len(unseen) < 2:
        return None
    deal = match.hands[-1].deal
    found: Match | None = None
    for _ in range(tries):
        a, b = rng.sample(unseen, 2)
        candidate = _swap(deal, a, b)
        alt = replay(match, candidate)
        if alt is not None and player_view(alt, seat) == view:
            deal = candidate
            found = alt
    return found
