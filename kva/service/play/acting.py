"""Acting: a player's action, a resignation or abort, and the forfeits the server decides.
Every judgement of an action is the match's game's (:class:`kva.games.Game`): what the
client's JSON names, whether it is legal, and what applying it changes."""

from __future__ import annotations

from typing import Any

from kva.games import ForfeitReason, IllegalAction
from kva.service.errors import PlayError
from kva.service.play.aborting import abort
from kva.service.play.commit import Committer, winner
from kva.service.play.events import action_source, public, resign_event
from kva.service.play.live import LiveMatch, LiveStore
from kva.status import EndReason, MatchStatus

#: The forfeits the server decides (a player's own is a resignation).
FORFEIT_REASONS: tuple[EndReason, ...] = (EndReason.ABANDON, EndReason.TIMEOUT)


def seated_match(live: LiveMatch, user_id: int | None) -> tuple[int, Any]:
    """The seat of ``user_id`` and the match (the game's state) they may act in; PlayError
    says why not."""
    seat = live.seat_of(user_id)
    if seat is None:
        raise PlayError("not_seated", "you are not a player of this match")
    match = live.dealt()
    if live.over or live.status == MatchStatus.FINISHED:
        raise PlayError("over", "the match is over")
    if live.status == MatchStatus.CANCELLED:
        raise PlayError("over", "this table was cancelled")
    return seat, match


def forfeit(live: LiveMatch, seat: int, reason: ForfeitReason) -> None:
    """``seat`` forfeits ``live``'s match for ``reason``: the game ends it, and the log a
    replaying game resumes from keeps it."""
    live.game.forfeit(live.match, seat, reason)
    live.logged_forfeit(seat, reason)


class Acting:
    """Every change a player (or the server, for a player) makes to a match in play."""

    def __init__(self, store: LiveStore, committer: Committer) -> None:
        self._store = store
        self._committer = committer

    async def act(self, match_id: str, user_id: int | None, version: Any, action: Any,
                  player_session: str | None = None) -> None:
        """Apply a player's action at ``version``; :class:`PlayError` says why not.

        ``player_session``: the SHA-256 of the token of the session acting (a WebSocket's);
        the action is stored only while it is live (``revoked`` otherwise, nothing applied).

        Nothing is read before the write: the copy in memory is used, and if another process
        moved the match on, the journal insert is refused, the copy dropped, and the action
        judged once more against the reloaded match (``stale`` if the client is behind it).
        A version ahead of the copy is looked up in the store (:meth:`LiveStore.fresh`, unless
        the copy is the owner's) and otherwise refused as ``stale``: a client's word alone
        never drops the copy, whose scheduled bot turn would be lost with it.
        """
        for attempt in (0, 1):
            live = await self._store.get(match_id)
            async with live.lock:
                if self._store.live.get(match_id) is not live:  # dropped meanwhile: reload
                    continue
                seat, match = seated_match(live, user_id)
                if (not attempt and isinstance(version, int) and version > live.version
                        and await self._store.fresh(match_id, claimed=True) is not live):
                    continue  # another writer stored a later version: judge on it
                if isinstance(version, bool) or not isinstance(version, int) or (
                    version != live.version
                ):
                    raise PlayError("stale", f"the match is at version {live.version}")
                game = live.game
                if seat not in game.to_act(match):
                    raise PlayError("not_your_turn", "it is not your turn")
                clock = live.clock
                if clock is not None and clock.expired(self._committer.now_ms()):
                    await self._flag(live)  # too late: the timer had not fired yet
                    raise PlayError("over", "your time ran out")
                try:
                    chosen = game.action_from_json(match, seat, action)
                except IllegalAction as exc:
                    raise PlayError("illegal", str(exc)) from None
                mark = live.play.mark(match)
                game.apply(match, seat, chosen)
                live.logged(seat, chosen)
                try:
                    await self._committer.commit(
                        live, action_source(live.play, match, mark, seat, chosen),
                        moved=True, mark=mark, player_session=player_session)
                except PlayError as exc:  # the copy was stale (and is dropped): judge again
                    if exc.code != "stale" or attempt:
                        raise
                    continue
                return
        raise PlayError("stale", "the match changed meanwhile")

    async def resign(self, match_id: str, user_id: int | None) -> None:
        """The player resigns: the match ends at once, the opponent wins."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            seat, match = seated_match(live, user_id)
            forfeit(live, seat, "resign")
            await self._committer.commit(live, public(resign_event(winner(live), seat)),
                                         forfeit=True)

    async def abort(self, match_id: str, user_id: int | None) -> None:
        """The player calls the match off (:func:`kva.service.play.aborting.abort`)."""
        await abort(self._store, self._committer, match_id, user_id)

    async def flag(self, match_id: str, expected_version: int | None = None) -> bool:
        """The player whose time runs loses the match on time, if their time is up (and the
        match is still at ``expected_version``, when given). Whether it happened."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            clock, match = live.clock, live.match
            if (clock is None or match is None or live.over or live.status != MatchStatus.ACTIVE
                    or not clock.expired(self._committer.now_ms())
                    or expected_version is not None and live.version != expected_version):
                return False
            await self._flag(live)
            return True

    async def _flag(self, live: LiveMatch) -> None:
        """Flag the running seat (the caller holds the lock and checked that its time is up):
        the engine's forfeit (``timeout``), the record's ``meta.end`` ``time`` (``timeout``
        for the first move of a match with no clock, as the event's reason)."""
        assert live.clock is not None and live.match is not None
        seat = live.clock.flag(self._committer.now_ms())
        forfeit(live, seat, "timeout")
        await self._committer.commit(live, public({
            "kind": "forfeit", "p": seat, "winner": winner(live),
            "reason": EndReason.TIMEOUT if live.clock.first_move_only else EndReason.TIME}),
            forfeit=True)

    async def forfeit(
        self, match_id: str, seat: int, reason: str, expected_version: int | None = None
    ) -> None:
        """``seat`` loses the match at once for ``reason`` (``abandon`` or ``timeout``: the
        server decides these, not the player). With ``expected_version``, nothing happens
        unless the match is still at that version (a timer armed for that position)."""
        if reason not in FORFEIT_REASONS:
            raise ValueError("a forfeit by the server is for 'abandon' or 'timeout'")
        live = await self._store.fresh(match_id)
        async with live.lock:
            if live.match is None or live.over or live.status != MatchStatus.ACTIVE:
                raise PlayError("over", "the match is over")
            if expected_version is not None and live.version != expected_version:
                raise PlayError("stale", f"the match is at version {live.version}")
            forfeit(live, seat, "abandon" if reason == EndReason.ABANDON else "timeout")
            await self._committer.commit(live, public({
                "kind": "forfeit", "p": seat, "reason": reason, "winner": winner(live)}),
                forfeit=True)
