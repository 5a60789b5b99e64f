"""What other features do when a match is created, starts or finishes, without the play core
knowing them.

The committer (:mod:`kva.service.play.commit`) runs each :class:`MatchHook` it was built with
inside the transaction that stores the change: the start of a match (both seats taken), its
end and its abort; the tables (:mod:`kva.service.play.tables`) run them in the transaction
that creates a match. A hook that raises rolls that whole transaction back, the change
included, so a match never starts or finishes without its effects (a coin table whose stake a
player cannot cover does not start). :mod:`kva.service.finish` lists the platform's hooks.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.models import MatchRow


class MatchHook:
    """One feature's part in starting and finishing matches; each method does nothing unless
    overridden. Both run in the committing transaction (``session``), after the match's row is
    written at its new version."""

    async def created(self, session: AsyncSession, row: MatchRow) -> None:
        """The match ``row`` was just added in this transaction (a table, or a quick game
        with both seats taken)."""

    async def started(self, session: AsyncSession, match_id: str) -> None:
        """The match ``match_id`` starts in this transaction (its second seat is taken)."""

    async def finished(self, session: AsyncSession, match_id: str) -> dict[str, Any] | None:
        """The match ``match_id`` finishes in this transaction. Returns the fields this hook
        adds to the ``state`` event of the finishing change (None: nothing to add)."""
        return None

    async def aborted(self, session: AsyncSession, match_id: str) -> None:
        """The match ``match_id``, started, is aborted in this transaction (nobody wins)."""
