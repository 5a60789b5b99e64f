"""The platform's effects of a match starting and finishing, as hooks of the play service's
committer (:class:`~kva.service.play.hooks.MatchHook`): the players' ratings move (Glicko-2
for the Georgian game, Kozel's running total for Kozel: each game's ``rating_kind``), and a
coin match's stakes go into its escrow and the escrow to the winner, in the transaction that
stores the change (:mod:`kva.service.ratings`, :mod:`kva.service.kozel_ratings`,
:mod:`kva.service.coins.wallets`); an aborted match gives the stakes back and rates nobody.

Post-game analysis is not among them: it is queued only when someone asks for it
(:mod:`kva.service.analysis`), never on finish.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games import get as get_game
from kva.service.coins import wallets as coins
from kva.service.kozel_ratings import (
    kozel_change_message,
    kozel_ratings_message,
    rate_finished_kozel_match,
)
from kva.service.messages import KozelRatingsMessage, RatingsMessage
from kva.service.play.hooks import MatchHook
from kva.service.ratings import change_message, glicko2_ratings_message, rate_finished_match
from kva.storage.lookups import match_row
from kva.storage.models import MatchRow


def _rated_by_kozel(row: MatchRow) -> bool:
    """Whether ``row`` is a match of a game rated by Kozel's running total (else Glicko-2)."""
    return get_game(row.game).rating_kind == "kozel"


class RatingsHook(MatchHook):
    """A rated match moves its players' ratings as it finishes; the event shows them (each
    seat's Glicko-2 before and after, or each seat's Kozel change)."""

    async def finished(self, session: AsyncSession, match_id: str) -> dict[str, Any] | None:
        # The row stays in the session's identity map: the Glicko-2 path and the coin
        # payout read it from there, with no second SELECT.
        row = await match_row(session, match_id)
        if row is not None and _rated_by_kozel(row):  # a missing row: Glicko-2 says casual
            kozel = await rate_finished_kozel_match(session, row)
            return {"ratings": [kozel_change_message(c) for c in kozel]} if kozel else None
        changes = await rate_finished_match(session, match_id)
        if not changes:
            return None
        return {"ratings": [change_message(c.before, c.after) for c in changes]}


async def match_ratings_message(
    sessions: async_sessionmaker[AsyncSession], match_id: str
) -> RatingsMessage | KozelRatingsMessage | None:
    """The ``ratings`` message of a finished match that was rated, in its game's rating
    (what a page opened after the end shows), else None."""
    async with sessions() as session:
        row = await match_row(session, match_id)
        if row is None:
            return None
        if _rated_by_kozel(row):
            return await kozel_ratings_message(session, row)
        return await glicko2_ratings_message(session, row)


class CoinsHook(MatchHook):
    """A coin match's stakes move into escrow as it starts (refused, with the start, when a
    player cannot cover them), the escrow to the winner as it finishes, and back to both
    players if it is aborted."""

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

    async def aborted(self, session: AsyncSession, match_id: str) -> None:
        await coins.abort_match(session, match_id)


def default_finish_hooks() -> list[MatchHook]:
    """The hooks every play service runs unless it is given others: ratings, then coins.

    The order matters: the rating reads the match's row first and keeps it loaded for the
    payout (one read of the row per finish), and the ratings come first in the event."""
    return [RatingsHook(), CoinsHook()]
