"""Scoring a hand and rating a match (kozel.md §5, §6, §7): pure functions of numbers.

Scores, remembered points and counts are per *side* (a seat alone, or a pair at four). A side's
account is open once its score is above 0: only a count of 13 or more opens it, and a score
never falls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

#: The smallest count that opens an account; smaller counts are remembered until then.
OPENING_COUNT: Final = 13


class Scored(NamedTuple):
    """What a hand did to the table: its ``end`` (``out``, ``fish`` or ``drawn-fish``), each
    side's count and what its score grew by, and the scores, remembered points and fish carry
    after it."""

    end: str
    counts: tuple[int, ...]
    scored: tuple[int, ...]
    score: tuple[int, ...]
    remembered: tuple[int, ...]
    carry: int


def side_counts(sides: Sequence[Sequence[int]], seat_counts: Sequence[int],
                out_seat: int | None = None) -> tuple[int, ...]:
    """Each side's count: its seats' counts summed; the side of the seat that went out counts 0
    (its partner's tiles count for nobody).

    >>> side_counts([[0, 2], [1, 3]], [0, 5, 9, 3], out_seat=0)
    (0, 8)
    """
    return tuple(0 if out_seat is not None and out_seat in side
                 else sum(seat_counts[p] for p in side) for side in sides)


def _largest(counts: Sequence[int], among: Sequence[int]) -> int | None:
    """The one side among ``among`` with the largest count, or None when it is shared."""
    top = max(counts[s] for s in among)
    holders = [s for s in among if counts[s] == top]
    return holders[0] if len(holders) == 1 else None


def score_hand(counts: Sequence[int], *, end: str, out_side: int | None, fish: str,
               score: Sequence[int], remembered: Sequence[int], carry: int) -> Scored:
    """Score one hand that ended by going out (``end="out"``, ``out_side`` set) or a fish.

    Worked example 1 of kozel.md (Masha goes out; Olya opens at 20):

    >>> r = score_hand([0, 3, 13, 5], end="out", out_side=0, fish="all",
    ...                score=[0, 0, 0, 0], remembered=[19, 0, 7, 4], carry=0)
    >>> r.score, r.remembered
    ((0, 0, 20, 0), (0, 3, 0, 9))
    """
    sides = len(counts)
    total = list(score)
    kept = list(remembered)
    gains = list(counts)
    if end == "fish" and fish == "one":
        receiver = _largest(counts, range(sides))
        if receiver is None:
            return Scored("drawn-fish", tuple(counts), (0,) * sides, tuple(total), tuple(kept),
                          carry + sum(counts))
        gains = [0] * sides
        gains[receiver] = sum(counts) + carry
        carry = 0
        kept = [kept[s] if s == receiver else 0 for s in range(sides)]
        takers: Sequence[int] = (receiver,)
    else:
        takers = [s for s in range(sides) if s != out_side]
        if carry:
            receiver = _largest(counts, takers)
            if receiver is not None:
                gains[receiver] += carry
                carry = 0
    scored = [0] * sides
    for s in takers:
        before = total[s]
        if total[s] > 0:
            total[s] += gains[s]
        elif gains[s] >= OPENING_COUNT:
            total[s] = gains[s] + kept[s]
            kept[s] = 0
        else:
            kept[s] += gains[s]
        scored[s] = total[s] - before
    if out_side is not None:
        kept[out_side] = 0
    return Scored(end, tuple(counts), tuple(scored), tuple(total), tuple(kept), carry)


def _round_tenth(value: int) -> int:
    """round(value / 10), halves away from zero: 75 -> 8, -5 -> -1, 39 -> 4."""
    magnitude = (abs(value) + 5) // 10
    return magnitude if value >= 0 else -magnitude


def rating_changes(scores: Sequence[int], time_loser: int | None = None,
                   partners: Sequence[Sequence[int]] | None = None) -> list[int]:
    """Each player's Kozel rating change after a rated match (kozel.md §7).

    ``scores`` are the final scores per player (in the pair game each partner has his pair's
    score: :meth:`kva.kozel.Match.seat_scores`); ``time_loser`` is the player whose clock ran
    out, if that stopped the match. In the pair game pass ``partners`` (the match's ``sides``):
    each partner gets his pair's change, so the time loser's partner gets nothing too.

    >>> rating_changes([25, 40, 61, 105])
    [8, 6, 4, -1]
    >>> rating_changes([30, 32, 13], time_loser=1)
    [1, 0, 2]
    """
    if time_loser is None:
        return [_round_tenth(100 - s) for s in scores]
    base = scores[time_loser]
    losing = {time_loser}
    for side in partners or ():
        if time_loser in side:
            losing.update(side)
    return [0 if p in losing else max(1, _round_tenth(base - s))
            for p, s in enumerate(scores)]
