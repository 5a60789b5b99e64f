"""How bad a Kozel table is for one side: its chance of becoming the козёл.

Only the side that reaches the limit first loses (kozel.md §5.7), so penalty points matter
relative to the other sides' and more as the limit nears. Once a side is at or past the limit
the match is over and the chance is 0 or 1. Before that it is estimated as a softmax of each
side's distance to the limit: remembered points count most of their value (they join the score
when the account opens, and are lost only by going out), and the temperature shrinks with the
distance that is left, because fewer hands remain to reverse a gap. A hand at four seats adds
about a dozen points to a side on average, with a spread about as large.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Share of remembered points counted as score.
REMEMBERED_WEIGHT = 0.6
#: Points a side gains per hand, roughly (the mean and the spread of one hand's count).
POINTS_PER_HAND = 12.0


def goat_chance(side: int, score: Sequence[int], remembered: Sequence[int], limit: int) -> float:
    """The estimated chance that ``side`` becomes the козёл from this table."""
    losers = [s for s, v in enumerate(score) if v >= limit]
    if losers:
        return 1.0 if side in losers else 0.0
    distance = [limit - v - REMEMBERED_WEIGHT * r for v, r in zip(score, remembered, strict=True)]
    nearest = max(1.0, min(distance))
    temperature = max(4.0, 0.8 * math.sqrt(nearest * POINTS_PER_HAND))
    weights = [math.exp(-(d - nearest) / temperature) for d in distance]
    return weights[side] / sum(weights)
