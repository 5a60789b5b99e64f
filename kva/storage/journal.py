"""The journal of a match in progress: each committed change as one small appended row.

Rewriting the whole ``georgian-domino/1`` record at every commit would write 13 KB an action by
the end of a match to 175. So ``matches.record`` is a checkpoint, written when the match is
created, when its second player sits down (the deal), when a waiting table is cancelled and
when the match ends; every other change appends one ``match_actions`` row whose ``change`` is
compact JSON:

* ``m``: the move, exactly as the record writes it (:func:`kva.rules.moves.move_to_record`);
* ``r`` and ``s``: when the change ended a hand (a move, or a forfeit, which has no ``m``), the
  hand's ``result`` and ``score`` as the record writes them;
* ``h``: when a new hand was dealt, its ``opener`` and ``deal``;
* ``c``: in a match with a clock, its state after the change (``left``, ``seat``,
  ``deadline``: :meth:`kva.service.play.clock.Clock.state`), which replaces those keys of
  the record's ``meta.clock``.

:func:`assemble` applies rows to a checkpoint and gives the record as
:func:`kva.rules.write_record` would have written it at that version (a test plays whole
matches through the service and compares), so reading, resuming and verifying are unchanged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from kva.rules import Match, hand_head_record, hand_result_record, move_to_record


def change_of(match: Match, hand_index: int | None) -> dict[str, Any]:
    """The change just made to ``match``: the move applied in hand ``hand_index`` (None: no
    move, a forfeit of the current hand), with the result, score and next deal it led to."""
    played = match.hands[-1 if hand_index is None else hand_index]
    change: dict[str, Any] = {}
    if hand_index is not None:
        change["m"] = move_to_record(played.state.log[-1])
    result = hand_result_record(played)
    if result is not None and played.score_after is not None:
        change["r"] = result
        change["s"] = list(played.score_after)
    if hand_index is not None and len(match.hands) > hand_index + 1:
        change["h"] = hand_head_record(match.hands[-1])
    return change


def encode(change: dict[str, Any]) -> str:
    """The stored text of a change (compact JSON)."""
    return json.dumps(change, ensure_ascii=False, separators=(",", ":"))


def assemble(checkpoint: dict[str, Any], changes: Iterable[str]) -> dict[str, Any]:
    """The record: ``checkpoint`` (left untouched) with the stored ``changes`` applied in
    order. Raises ValueError for a change that does not fit (a checkpoint with no hand)."""
    record = copy.deepcopy(checkpoint)
    hands: list[dict[str, Any]] = record["hands"]
    for text in changes:
        change = json.loads(text)
        if not isinstance(change, dict):
            raise ValueError("a journal change must be an object")
        if not hands and any(k in change for k in ("m", "r")):
            raise ValueError("a journal change with no hand to apply it to")
        if "m" in change:
            hands[-1]["moves"].append(change["m"])
        if "r" in change:
            hands[-1]["result"] = change["r"]
            hands[-1]["score"] = change["s"]
            record["score"] = list(change["s"])
        if "h" in change:
            hands.append({**change["h"], "moves": []})
        clock = (record.get("meta") or {}).get("clock")
        if isinstance(change.get("c"), dict) and isinstance(clock, dict):
            clock.update(change["c"])
    return record
