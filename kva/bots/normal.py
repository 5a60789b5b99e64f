"""The ``normal`` bot: greedy, plus the heuristics a sound club player uses.

Each legal move is priced one ply deep on the board it leaves:

- points scored now, and going out above everything;
- the opponent's best reply: what the tiles it may still hold could score on the new ends,
  each weighted by the chance it holds them; tiles it was shown to lack (its draws and passes)
  are left out, so known gaps are exploited;
- blocking: leaving only ends the opponent is known to lack forces it to draw or pass;
- keeping a spread of numbers and a follow-up of my own;
- shedding heavy tiles, more as the hand nears its end (pips left in hand are what a domino or
  a fish costs).

It only needs the board after the move, which it reads from a state rebuilt from the view and
one consistent guess of the hidden tiles (the guess's hidden tiles are never looked at).
"""

from __future__ import annotations

import random

from kva.bots.fast import best_points, code_pips, expected_best, points_of
from kva.bots.knowledge import Knowledge
from kva.rules import PlayerView
from kva.rules.engine import NUMBER_MASK, OPEN_BASE, TILE_BIT, mask_of, tiles_of


class NormalBot:
    """Greedy with look-ahead for the reply, blocking, spread and late shedding."""

    name = "normal"

    def __init__(
        self,
        threat_weight: float = 0.8,
        block_bonus: float = 4.0,
        spread_weight: float = 1.0,
        shed_weight: float = 0.6,
    ) -> None:
        self.threat_weight = threat_weight
        self.block_bonus = block_bonus
        self.spread_weight = spread_weight
        self.shed_weight = shed_weight

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        return self._best(view, rng)

    def _best(self, view: PlayerView, rng: random.Random) -> int:
        knowledge = Knowledge(view)
        opp_hand, rest, _items = knowledge.sample(rng)
        base = knowledge.state(view, opp_hand, rest)
        me = knowledge.me
        mine = mask_of(view.hand)
        possible = knowledge.possible_opponent_tiles()
        possible_list = tiles_of(possible)
        opp_count = knowledge.opp_count
        q = min(1.0, opp_count / len(possible_list)) if possible_list else 0.0
        stage = 1.0 - min(len(view.hand), opp_count) / 7.0
        shed_w = self.shed_weight * (0.3 + stage)
        best = view.legal[0]
        best_score = -1e18
        for code in view.legal:
            board = view.board
            pts = points_of(board.ask, board.value, board.opening_double_free, board.stavka, code)
            tile = code >> 2 if code < OPEN_BASE else (code - OPEN_BASE) >> 1
            left = mine & ~TILE_BIT[tile]
            if not left:
                score = 1000.0 + pts
            else:
                after = base.copy()
                after.turn = me
                after.apply_unchecked(code)
                ask, value = after.ask, after.value
                free, stavka = after.opening_double_free, after.stavka
                ends = after.ends_mask
                # The opponent's best reply, as an expected maximum over the tiles it may hold.
                replies: list[int] = []
                for t in possible_list:
                    if TILE_BIT[t] & ends:
                        replies.append(best_points(ask, value, free, stavka, t))
                threat = expected_best(replies, q)
                blocked = not possible & ends
                numbers = sum(1 for n in range(7) if left & NUMBER_MASK[n])
                follow = 0
                m = left & ends
                for t in tiles_of(m):
                    follow = max(follow, best_points(ask, value, free, stavka, t))
                score = (
                    pts
                    - self.threat_weight * threat
                    + (self.block_bonus if blocked else 0.0)
                    + self.spread_weight * numbers
                    + (1.5 if m else 0.0)
                    + 0.3 * follow
                    + shed_w * code_pips(code)
                )
            if score > best_score:
                best_score = score
                best = code
        return best
