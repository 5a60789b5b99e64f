"""The platform's effects of a match starting and finishing, as hooks of the play service's
committer (:class:`~kva.service.play.hooks.MatchHook`): both ratings move, and a coin match's
stakes go into its escrow and the escrow to the winner, in the transaction that stores the
change (:mod:`kva.service.ratings`, :mod:`kva.service.coins`).

Post-game analysis is not among them: it is queued only when someone asks for it
(:mod:`kva.service.analysis`), never on finish.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from kva.service import coins
from kva.service.play.hooks import MatchHook
from kva.service.ratings import rate_finished_match
from kva.storage.models import MatchRow


class RatingsHook(MatchHook):
    """A rated match moves both players' ratings as it finishes; the event shows them."""

    async def finished(self, session: AsyncSession, match_id: str) -> dict[str, Any] | None:
        changes = await rate_finished_match(session, match_id)
        if not changes:
            return None
        return {"ratings": [{"before": round(c.before.rating), "after": round(c.after.rating)}
                            for c in changes]}


class CoinsHook(MatchHook):
    """A coin match's stakes move into escrow as it starts (refused, with the start, when a
    player cannot cover them) and the escrow to the winner as it finishes."""

    # Called through the module: ``kva bench-coins`` times these by replacing them there.
    async def created(self, session: AsyncSession, row: MatchRow) -> None:
        if row.stake:  # the creator covers it; a quick game starts now: both stakes move
            await coins.match_created(session, row.id)

    async def started(self, session: AsyncSession, match_id: str) -> None:
        await coins.start_match(session, match_id)

    async def finished(self, session: AsyncSession, match_id: str) -> dict[str, Any] | None:
        paid = await coins.finish_match(session, match_id)
        if paid is None:
            return None
        return {"coins": {"stake": paid.stake, "winner": paid.winner}}


def default_finish_hooks() -> list[MatchHook]:
    """The hooks every play service runs unless it is given others: ratings, then coins.

    The order matters: the rating reads the match's row first and keeps it loaded for the
    payout (one read of the row per finish), and the ratings come first in the event."""
    return [RatingsHook(), CoinsHook()]
