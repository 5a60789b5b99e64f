"""The journal of a match in progress: each committed change as one small appended row.

A game whose moves are journaled (:attr:`kva.games.LivePlay.journaled`: the Georgian game)
makes each change (:meth:`kva.games.LivePlay.change`; the Georgian one is
:func:`kva.games.georgian_live.change_of`); any other game's match is stored as a whole
record at every change, so its journal holds only the ``checkpoint`` rows that guard them.

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

:func:`assemble` applies rows to a checkpoint (each change's moves, results and deals by the
match's game, :func:`kva.games.georgian_live.apply_change` for the Georgian one) and gives the
record as :func:`kva.rules.write_record` would have written it at that version (a test plays whole
matches through the service and compares), so reading, resuming and verifying are unchanged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable
from typing import Any


def encode(change: dict[str, Any]) -> str:
    """The stored text of a change (compact JSON)."""
    return json.dumps(change, ensure_ascii=False, separators=(",", ":"))


#: Applies one parsed change to a record in place: the game's own part of a journal
#: (:meth:`kva.games.LivePlay.apply_change`).
ChangeApplier = Callable[[dict[str, Any], dict[str, Any]], None]


def assemble(
    checkpoint: dict[str, Any], changes: Iterable[str], apply_change: ChangeApplier,
) -> dict[str, Any]:
    """The record: ``checkpoint`` (left untouched) with the stored ``changes`` applied in
    order, each by the match's game (``apply_change``) and then its clock state (``c``) here.
    Raises ValueError for a change that does not fit (the game's words say why)."""
    record = copy.deepcopy(checkpoint)
    for text in changes:
        change = json.loads(text)
        if not isinstance(change, dict):
            raise ValueError("a journal change must be an object")
        apply_change(record, change)
        clock = (record.get("meta") or {}).get("clock")
        if isinstance(change.get("c"), dict) and isinstance(clock, dict):
            clock.update(change["c"])
    return record
