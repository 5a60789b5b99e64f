"""The counting aid: for each number 0–6, how many of its seven tiles are still unseen by a
player, from that player's own view only (their hand and the board; never the hidden tiles).

``static/counting.js`` computes the same from the view's JSON in the browser; the aid is
offered in casual and bot matches, never in rated ones (:func:`aid_allowed`).
"""

from __future__ import annotations

from kva.rules import PlayerView
from kva.rules.engine import TILE_BIT, TILE_HIGH, TILE_LOW


def unseen_by_number(view: PlayerView) -> list[int]:
    """``out[n]``: tiles carrying ``n`` that ``view``'s player has not seen (of seven)."""
    unseen = view.unseen()
    out = [0] * 7
    for t in range(28):
        if unseen & TILE_BIT[t]:
            out[TILE_LOW[t]] += 1
            if TILE_HIGH[t] != TILE_LOW[t]:
                out[TILE_HIGH[t]] += 1
    return out


def aid_allowed(rated: bool) -> bool:
    """The aid is for casual and bot matches: never in a rated one."""
    return not rated
