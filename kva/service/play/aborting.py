"""Aborting a match, as lichess has it: until both players have moved in the first hand,
either player may call the match off. It ends ``cancelled`` (the status of a table called off
before anyone joined), with ``end_reason`` ``abort``: nobody wins, no rating moves, a coin
match's stakes go back to the players (:func:`kva.service.coins.wallets.abort_match`), and the
history lists it as aborted. After both have moved only resigning is left."""

from __future__ import annotations

from kva.service.errors import PlayError
from kva.service.play.commit import Committer
from kva.service.play.events import public
from kva.service.play.live import LiveStore
from kva.status import EndReason, MatchStatus


async def abort(store: LiveStore, committer: Committer, match_id: str,
                user_id: int | None) -> None:
    """The player calls the match off; :class:`PlayError` says why not (``not_seated``,
    ``over``, ``illegal`` for a table still waiting, or ``too_late_to_abort`` once both have
    moved)."""
    live = await store.fresh(match_id)
    async with live.lock:
        seat = live.seat_of(user_id)
        if seat is None:
            raise PlayError("not_seated", "you are not a player of this match")
        match = live.match  # None: not dealt yet (the client seeds are awaited)
        if live.status.over or live.over:
            raise PlayError("over", "the match is over")
        if live.status != MatchStatus.ACTIVE:
            raise PlayError("illegal", "the match has not started: cancel the table")
        if match is not None and not live.play.may_abort(match, live.log):
            raise PlayError("too_late_to_abort",
                            "both players have moved: the match can only be resigned")
        live.status = MatchStatus.CANCELLED
        await committer.commit(live, public({"kind": EndReason.ABORT, "p": seat}))
