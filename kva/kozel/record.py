"""Writing Kozel match records in the ``kozel/1`` format (docs/kozel-record.md).

A record holds every deal (the voided ones too), every action and every score; it holds hidden
information, so a record of a match in progress is for storage, never for a player.
"""

from __future__ import annotations

import json
from typing import Any, Final

from kva.kozel.codes import DRAW, KNOCK, OPEN_BASE
from kva.kozel.deal import Deal
from kva.kozel.hand import LogEntry
from kva.kozel.match import Match, PlayedHand
from kva.kozel.view import result_to_json
from kva.rules.engine import OTHER_HALF, TILE_HIGH, TILE_LOW, TILE_NAME

FORMAT: Final = "kozel/1"


def deal_to_json(deal: Deal) -> dict[str, Any]:
    """A deal as the record writes it: each seat's 7 tiles and the bazaar in draw order."""
    return {"hands": [[TILE_NAME[t] for t in hand] for hand in deal.hands],
            "bazaar": [TILE_NAME[t] for t in deal.bazaar]}


def moves_to_record(log: list[LogEntry]) -> list[dict[str, Any]]:
    """A hand's log as the record's ``moves``: a placed tile with its touching half first."""
    moves: list[dict[str, Any]] = []
    left = right = -1
    for seat, code, tile in log:
        if code == DRAW:
            moves.append({"p": seat, "draw": TILE_NAME[tile]})
        elif code == KNOCK:
            moves.append({"p": seat, "knock": True})
        elif code >= OPEN_BASE:
            left, right = TILE_LOW[tile], TILE_HIGH[tile]
            moves.append({"p": seat, "play": TILE_NAME[tile]})
        elif code & 1:
            moves.append({"p": seat, "play": f"{right}-{OTHER_HALF[tile][right]}", "end": "R"})
            right = OTHER_HALF[tile][right]
        else:
            moves.append({"p": seat, "play": f"{left}-{OTHER_HALF[tile][left]}", "end": "L"})
            left = OTHER_HALF[tile][left]
    return moves


def hand_to_record(played: PlayedHand) -> dict[str, Any]:
    """One hand's entry; a hand still being played has no ``result``, ``score``, ``remembered``."""
    entry: dict[str, Any] = {
        "voided": [{**deal_to_json(v.deal), "why": v.why, "seat": v.seat} for v in played.voided],
        "deal": deal_to_json(played.deal),
        "opener": played.opener,
        "moves": moves_to_record(played.state.log),
    }
    if played.result is not None:
        entry["result"] = result_to_json(played.result)
        entry["score"] = list(played.score)
        entry["remembered"] = list(played.remembered)
    return entry


def write_record(match: Match, players: list[dict[str, Any]] | None = None,
                 meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``kozel/1`` document of ``match`` (finished, forfeited or in progress).

    >>> import random
    >>> match = Match(2, rng=random.Random(1))
    >>> doc = write_record(match)
    >>> doc["format"], doc["sides"], doc["options"], len(doc["hands"][0]["deal"]["bazaar"])
    ('kozel/1', [[0], [1]], {'fish': 'all', 'limit': 101}, 14)
    """
    return {
        "format": FORMAT,
        "players": players if players is not None
        else [{"name": f"seat {p}"} for p in range(match.seats)],
        "sides": [list(side) for side in match.sides],
        "options": match.options.to_json(),
        "meta": meta if meta is not None else {},
        "hands": [hand_to_record(played) for played in match.hands],
        "loser": list(match.losers),
        "score": list(match.score),
    }


def dumps_record(doc: dict[str, Any]) -> str:
    """Serialise a record the way kva stores and exports it."""
    return json.dumps(doc, ensure_ascii=False, indent=1)
