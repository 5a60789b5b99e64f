"""A seat's standing read from a stored record, whichever game wrote it.

A ``georgian-domino/1`` record scores per seat; a ``kozel/1`` record scores per *side* (a seat
alone, or a pair in the four-player pair game, its ``sides`` say which) and names its козлы
in ``loser``. The history and the home page's match list read a seat's score and place from
the record alone, so they need no engine and no replay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kva.kozel import FORMAT as KOZEL_FORMAT
from kva.kozel import LIMIT

__all__ = ["KOZEL_FORMAT", "kozel_limit", "kozel_place", "seat_scores"]


def _side_of(record: Mapping[str, Any], seats: int) -> list[int]:
    """The side each seat scores with (each seat its own where the record has no sides)."""
    sides: Sequence[Sequence[int]] = record.get("sides") or [[s] for s in range(seats)]
    side_of = [0] * seats
    for side, members in enumerate(sides):
        for seat in members:
            if 0 <= int(seat) < seats:
                side_of[int(seat)] = side
    return side_of


def seat_scores(record: Mapping[str, Any], seats: int) -> list[int]:
    """Each seat's score in ``record`` (0 before any is written); in a Kozel pair game both
    partners show their pair's score."""
    score = [int(v) for v in record.get("score") or []]
    if record.get("format") == KOZEL_FORMAT:
        return [score[side] if side < len(score) else 0 for side in _side_of(record, seats)]
    return [score[s] if s < len(score) else 0 for s in range(seats)]


def kozel_place(record: Mapping[str, Any], seats: int, seat: int) -> tuple[int, bool]:
    """Where ``seat`` finished a finished ``kozel/1`` match: its place (1 = best; sides of
    equal standing share one) and whether it is a козёл (its side lost).

    Sides rank as :meth:`kva.games.kozel.KozelGame.match_result` ranks them: the козлы last,
    then by score, lowest first.
    """
    side_of = _side_of(record, seats)
    losers = {int(s) for s in record.get("loser") or []}
    score = [int(v) for v in record.get("score") or []]

    def standing(side: int) -> tuple[bool, int]:
        return side in losers, score[side] if side < len(score) else 0

    mine = standing(side_of[seat])
    better = {side for side in set(side_of) if standing(side) < mine}
    return 1 + len(better), side_of[seat] in losers


def kozel_limit(record: Mapping[str, Any]) -> int:
    """The losing score of a ``kozel/1`` record (a match's row keeps no Kozel setting in its
    ``target`` column): its ``options``, or before the first deal the table's options in
    ``meta``."""
    for options in (record.get("options"), (record.get("meta") or {}).get("options")):
        limit = (options or {}).get("limit")
        if isinstance(limit, int):
            return limit
    return LIMIT
