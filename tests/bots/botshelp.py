"""Helpers for the bots tests (and the yardsticks' in tests/training): seeded positions from
real matches, hidden-tile reshuffles, the moves a bot makes in them, and the check that a bot
decides from its view alone."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from kva.bots.base import Bot, SeesOpponentHand
from kva.bots.simple import view_greedy
from kva.rules import TARGETS, Deal, IllegalAction, Match, PlayerView, player_view
from kva.rules.engine import mask_of, tiles_of


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


def recorded_moves(bot: Bot, seed: int, count: int) -> list[int]:
    """The moves ``bot`` makes at the first ``count`` real choices of :func:`positions` (a
    bot that :class:`~kva.bots.base.SeesOpponentHand` is shown the opponent's hand first),
    seeded by their index: what a test pins to recorded values."""
    out: list[int] = []
    for match, view in positions(seed=seed, choices=count):
        if len(view.legal) < 2:
            continue
        assert view.player is not None
        if isinstance(bot, SeesOpponentHand):
            bot.reveal(match.hand.hands[1 - view.player])
        out.append(bot.choose(view, random.Random(len(out))))
    return out


def _rest(match: Match) -> int:
    state = match.hand
    return mask_of(state.bazaar[state.draw_pos :])


def assert_blind(bots: Sequence[Bot]) -> None:
    """Reshuffling hidden tiles the view cannot tell apart changes no decision of ``bots``,
    for the same seed (over enough positions that the opponent's hand often changed)."""
    rng = random.Random(11)
    checked = 0
    hidden_changed = 0
    for match, view in positions(seed=77, choices=1500):
        if len(view.legal) < 2 or rng.random() > 0.25:
            continue
        seat = view.player
        assert seat is not None
        alt = reshuffled(match, seat, rng)
        if alt is None:
            continue
        alt_view = player_view(alt, seat)
        assert alt_view == view  # the reshuffle is invisible to this player
        opp = 1 - seat
        if alt.hand.hands[opp] != match.hand.hands[opp]:
            hidden_changed += 1
        assert alt.hand.hands[opp] | _rest(alt) == match.hand.hands[opp] | _rest(match)
        for bot in bots:
            seed = rng.getrandbits(32)
            mine = bot.choose(view, random.Random(seed))
            theirs = bot.choose(alt_view, random.Random(seed))
            assert mine == theirs, (bot.name, mine, theirs)
        checked += 1
    assert checked >= 200
    assert hidden_changed >= 100  # most reshuffles moved tiles into or out of the opponent's hand


def assert_pure(bots: Sequence[Bot]) -> None:
    """Each decision of ``bots`` is a function of the view and the seed alone."""
    for _match, view in positions(seed=3, choices=150):
        for bot in bots:
            assert bot.choose(view, random.Random(5)) == bot.choose(view, random.Random(5))
