"""The playout policy of ``hard``: noisy greedy that also minds the opponent's best reply.

:func:`kva.bots.fast.playout` (``hard-v1``'s policy) values a placement by its points now, going
out and shedding pips. This one, for the first ``lookahead`` real choices of a playout, also
subtracts ``threat`` times the most the opponent could score at once on the board the placement
leaves, and adds ``block`` when the opponent has nothing that fits it (it must draw or pass).
Both read the tiles the opponent holds in the guess being played out (a determinization fixes
both hands), at the cost of one state copy per candidate. Later plies fall back to the plain
noisy greedy policy, which is several times cheaper.
"""

from __future__ import annotations

import random

from kva.bots.fast import DOUBLE_FIVE, best_points, expected_best, sum_after
from kva.rules.engine import NUMBER_MASK, OPEN_BASE, SCORE_OF_SUM, TILE_BIT, TILE_PIPS, HandState


def _reply_threat(after: HandState) -> int:
    """The most the player to move in ``after`` could score at once (0 if nothing fits)."""
    fits = after.hands[after.turn] & after.ends_mask
    if not fits:
        return 0
    ask, value = after.ask, after.value
    free, stavka = after.opening_double_free, after.stavka
    top = 0
    while fits:
        low = fits & -fits
        fits ^= low
        pts = best_points(ask, value, free, stavka, low.bit_length() - 1)
        if pts > top:
            top = pts
    return top


def _blind_threat(after: HandState, cands: int, count: int) -> float:
    """The expected most the player to move in ``after`` could score at once, if it holds
    ``count`` tiles drawn from ``cands`` (each held with the same chance), as ``normal`` reads it:
    the expected maximum over the candidate tiles that fit, taken best first."""
    fits = cands & after.ends_mask
    if not fits or count <= 0:
        return 0.0
    total = cands.bit_count()
    q = min(1.0, count / total)
    ask, value = after.ask, after.value
    free, stavka = after.opening_double_free, after.stavka
    replies: list[int] = []
    while fits:
        low = fits & -fits
        fits ^= low
        pts = best_points(ask, value, free, stavka, low.bit_length() - 1)
        if pts:
            replies.append(pts)
    return expected_best(replies, q)


def playout(
    state: HandState,
    rng: random.Random,
    noise: float = 0.35,
    threat: float = 0.7,
    lookahead: int = 4,
    block: float = 0.0,
    spread: float = 0.0,
    follow: float = 0.0,
    shed_late: float = 0.0,
    me: int = -1,
    possible: int = 0,
    opp: int = -1,
) -> None:
    """Play ``state`` (a copy) to the end of the hand; see the module docstring.

    ``spread``, ``follow`` and ``shed_late`` (0: off) add ``normal``'s hand-keeping terms on the
    plies that look at the reply: ``spread`` per number still in the mover's hand after the
    placement, ``follow`` when one of its remaining tiles fits the new ends, and ``shed_late``
    times the tile's pips times how far the hand is gone (1 - the smaller hand / 7).

    With ``me`` >= 0, the choices of player ``me`` read the opponent's reply blind, as ``me``
    would at the table: not from the guessed hand but as the expected best over the tiles
    ``me`` cannot rule out (``possible``, less the tiles seen since), each held with the same
    chance (:func:`_blind_threat`). The other player's choices still read the guess.

    With ``opp`` >= 0, the choices of player ``opp`` read the reply blind in the same way, from
    what ``opp`` sees at the table: any tile neither on the board nor in its own hand (the other
    hand and the bazaar, protected tiles included) may be the other player's. This models an
    opponent that does not know my hand (inferences it could draw from my draws are ignored)
    instead of one that reads the guess of my hand as if it saw it.
    """
    random_ = rng.random
    smart = lookahead
    seen = 0
    while not state.over:
        codes = state.legal_codes()
        if len(codes) == 1:
            if me >= 0 and codes[0] < OPEN_BASE:
                seen |= TILE_BIT[codes[0] >> 2]
            state.apply_unchecked(codes[0])
            continue
        ask = state.ask
        value = state.value
        free = state.opening_double_free
        stavka = state.stavka
        mover = state.turn
        hand_size = state.hands[mover].bit_count()
        look = smart > 0 and (threat > 0.0 or block > 0.0)
        smart -= 1
        blind = mover in (me, opp)
        cands = 0
        if blind and look:
            if mover == opp:
                cands = state.hands[1 - mover]
                for t in state.bazaar[state.draw_pos:]:
                    cands |= TILE_BIT[t]
            else:
                cands = possible & ~seen & ~state.hands[mover]
        count = state.hands[1 - mover].bit_count()
        keep = look and (spread > 0.0 or follow > 0.0 or shed_late > 0.0)
        mine = state.hands[mover]
        stage = 1.0 - min(hand_size, state.hands[1 - mover].bit_count()) / 7.0 if keep else 0.0
        best = codes[0]
        best_key = -1e9
        for code in codes:
            key: float
            if code < OPEN_BASE:
                key = SCORE_OF_SUM[sum_after(ask, value, free, stavka, code)]
                if hand_size == 1:
                    key += 40
                key += TILE_PIPS[code >> 2] * 0.15
            else:
                tile = (code - OPEN_BASE) >> 1
                key = (10 if tile == DOUBLE_FIVE else 0) + TILE_PIPS[tile] * 0.15
            if look and hand_size > 1:
                after = state.copy()
                after.apply_unchecked(code)
                if not after.over:
                    if blind:
                        key -= threat * _blind_threat(after, cands, count)
                    else:
                        key -= threat * _reply_threat(after)
                    if block and not after.hands[after.turn] & after.ends_mask:
                        key += block
                    if keep:
                        tile = code >> 2 if code < OPEN_BASE else (code - OPEN_BASE) >> 1
                        left = mine & ~TILE_BIT[tile]
                        if spread:
                            key += spread * sum(1 for m in NUMBER_MASK if left & m)
                        if follow and left & after.ends_mask:
                            key += follow
                        key += shed_late * stage * TILE_PIPS[tile]
            key += random_() * noise * 5
            if key > best_key:
                best_key = key
                best = code
        if me >= 0 and best < OPEN_BASE:
            seen |= TILE_BIT[best >> 2]
        state.apply_unchecked(best)
