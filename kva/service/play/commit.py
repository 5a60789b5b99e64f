"""Committing a change: store the match at its next version (refused if another writer got
there first), then publish the state each viewer may see, built from that viewer's own view.
The match's game (its :class:`kva.games.Game` and :class:`kva.games.LivePlay`) writes the
records, journal changes and views; nothing here knows a game's rules."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kva.games import winner_of
from kva.service.cluster.broker import Broker
from kva.service.errors import PlayError
from kva.service.play.clock import Clock
from kva.service.play.events import EventSource
from kva.service.play.hooks import MatchHook
from kva.service.play.live import LiveMatch, LiveStore, topic
from kva.service.play.watchers import Watchers
from kva.status import EndReason, MatchStatus
from kva.storage import journal, repo
from kva.storage.db import Database
from kva.storage.models import utcnow

log = logging.getLogger(__name__)

def view_of(live: LiveMatch, seat: int | None) -> Any:
    """What ``seat`` (None: a spectator) may know of ``live`` now, as its game's view (a table
    not dealt yet shows its options and no tile at all)."""
    if live.match is None:
        return live.play.undealt_view(live.options, len(live.seats), seat)
    return live.play.view(live.match, seat, active=live.status == MatchStatus.ACTIVE)


def winner(live: LiveMatch) -> int | None:
    """The one seat that won ``live``, or None (not over, or no single winner)."""
    return None if live.match is None else winner_of(live.game.match_result(live.match))


def advance_clock(
    live: LiveMatch, clock: Clock, now: int, *, new_hand: bool = False, by: str | None = None,
) -> None:
    """A change was just made to ``live``'s dealt match: ``clock`` stops the time that ran and
    starts the turn now due (:meth:`~kva.service.play.clock.Clock.advance`), asking the game
    who is to act and whether that seat's action is forced."""
    assert live.match is not None
    live.changed()  # called right after a change (in a commit, or by a test without one)
    seat, forced = live.due()
    if live.status != MatchStatus.ACTIVE:
        seat, forced = None, False
    clock.advance(seat, [s.bot is None for s in live.seats], forced, now, new_hand=new_hand,
                  by=by)


def record_of(live: LiveMatch) -> dict[str, Any]:
    """The stored record: the whole match, or, before the deal, its options and players."""
    players = [{"name": s.record_name()} for s in live.seats]
    meta: dict[str, Any] = {"match_id": live.id, "rated": live.rated, "started": live.created_at}
    if live.fair is not None:  # the server seed only once the match is over
        meta["fair"] = live.fair.meta(reveal=revealed(live))
    if live.clock is not None:
        meta["clock"] = live.clock.meta()
        if live.clock.flagged is not None:  # "time", or "timeout" for a first move
            meta["end"] = end_reason(live)
    if live.match is None:
        return live.play.undealt_record(live.options, players, meta)
    return live.play.record(live.match, live.options, live.log, players, meta)


def end_reason(live: LiveMatch) -> EndReason:
    """How a finished match ended, as its row's ``end_reason`` says: ``points``, ``resign``,
    ``abandon``, ``timeout`` (no first move), ``time`` (lost on the clock), or ``abort``
    (called off after the deal: cancelled, nobody won)."""
    if live.aborted:
        return EndReason.ABORT
    if live.clock is not None and live.clock.flagged is not None:
        return EndReason.TIMEOUT if live.clock.first_move_only else EndReason.TIME
    result = live.game.match_result(live.match) if live.match is not None else None
    forfeited = result.forfeit if result is not None else None
    return EndReason(forfeited) if forfeited is not None else EndReason.POINTS


def revealed(live: LiveMatch) -> bool:
    """Whether the match is over (won, resigned, forfeited): only then is its server seed
    shown, in states and in the record."""
    return live.status == MatchStatus.FINISHED or live.over


def encode_state(state: dict[str, Any]) -> str:
    """The JSON text of a ``state`` message, as every socket sends it: ``json.dumps(state,
    ensure_ascii=False, separators=(",", ":"))``."""
    return _encode(state)


#: :func:`encode_state`'s encoder, made once (``json.dumps`` with options makes one per call).
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encoded_state(
    live: LiveMatch, seat: int | None, event: EventSource | None,
    extra: dict[str, Any] | None = None,
) -> str:
    """``encode_state(state_message(...))``, the same text, built faster: the view is written
    as text by the match's view writer (:meth:`kva.games.LivePlay.view_writer`; the Georgian
    game's :class:`kva.games.georgian_viewtext.ViewText` writes it from kept fragments: the
    moves and finished hands each encoded once, the board once for all its viewers, tables for
    tiles and actions) instead of built as a dict and encoded again in every state; only what
    follows the view (the event, the players, ...) goes through ``json.dumps``."""
    view = view_of(live, seat)
    after = encode_state(_after_view(live, seat, view, event, extra))
    return (f'{{"type":"state","version":{live.version},"view":{live.view_text.text(view)},'
            + after[1:])


def state_message(
    live: LiveMatch, seat: int | None, event: EventSource | None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``state`` message for one viewer: their view and the event as they see it."""
    view = view_of(live, seat)
    return {"type": "state", "version": live.version, "view": live.play.view_json(view),
            **_after_view(live, seat, view, event, extra)}


def _after_view(
    live: LiveMatch, seat: int | None, view: Any, event: EventSource | None,
    extra: dict[str, Any] | None,
) -> dict[str, Any]:
    """The fields of a ``state`` message after its view, in order (:func:`encoded_state`
    relies on the view being the last field before them)."""
    seen = None
    if event is not None:
        seen = event(view)
        if extra:
            seen = {**seen, **extra}
    return {
        "event": seen,
        "status": live.status,
        "players": [s.public() for s in live.seats],
        "you": seat,
        "fair": live.fair.public(reveal=revealed(live)) if live.fair is not None else None,
        "clock": live.clock.public(live.clock.wall()) if live.clock is not None else None,
    }


class Committer:
    """The one path every change takes: store, then publish, then tell who cares."""

    def __init__(
        self, database: Database, broker: Broker, store: LiveStore,
        watchers: Watchers | None = None, hooks: Sequence[MatchHook] = (),
        remote: Callable[[str], frozenset[str] | None] | None = None,
    ) -> None:
        self._sessions = database.sessions
        #: What other features do in the transaction that starts or finishes a match, in
        #: this order (:mod:`kva.service.play.hooks`).
        self.hooks: tuple[MatchHook, ...] = tuple(hooks)
        #: Who watches each match here (None: build every viewer's state).
        self.watchers = watchers
        self._journal = database.journal
        self._broker = broker
        self._store = store
        #: Called with the match after each committed change (automatic turns, hooks).
        self.after_commit: list[Callable[[LiveMatch], None]] = []
        #: The viewer keys other processes watch a match as (the match router's
        #: :class:`~kva.service.play.watchers.RemoteWatchers`, on the match's owner); None
        #: (or no such function): not known, so every key is built and sent to Redis when
        #: the store is :attr:`~kva.service.play.live.LiveStore.shared`.
        self.remote = remote
        #: This process's id, stored with each deadline it sets (the clock's ``by``).
        self.process_id: str | None = None

    @property
    def now_ms(self) -> Callable[[], int]:
        """The wall clock of the match clocks, in epoch ms (the store's)."""
        return self._store.now_ms

    async def commit(
        self, live: LiveMatch, event: EventSource | None, *, seated: tuple[int, int] | None = None,
        moved: bool = False, mark: Any = None, forfeit: bool = False,
        player_session: str | None = None, reseated: tuple[int, dict[str, Any]] | None = None,
    ) -> None:
        """Store the match at the next version, then publish it; the caller holds the lock.

        ``seated``: the seat and user id of a player who sat down (a join); ``reseated``: a
        waiting table's seat and its row's new values (a bot seated, a joiner gone). ``moved``:
        the move applied at ``mark`` (the game's :meth:`~kva.games.LivePlay.mark` taken before
        it); ``forfeit``: a forfeit. A move of a match that goes on is one appended journal row
        (:mod:`kva.storage.journal`); every other change (a join, a cancelled table, the end
        of the match) writes the whole record as the new checkpoint, guarded the same way.

        ``player_session``: the SHA-256 of the session token of the player making the change;
        the write checks in the same statement that the session is live (a WebSocket does not
        read the session before each action), and a ``revoked`` error is raised if it is not.

        If the write is refused (someone else wrote first, or the session ended) or fails, the
        in-memory copy is dropped, so the next access reloads the stored truth, and a ``stale``
        (or ``revoked``) error is raised.
        """
        live.changed()  # whatever was due before this change is not any more
        match, play = live.match, live.play
        finished = live.over
        if finished:
            live.status = MatchStatus.FINISHED
        version = live.version + 1
        changed = match is not None and (moved or forfeit)
        extra: dict[str, Any] | None = None
        try:
            if live.clock is not None and match is not None:
                advance_clock(live, live.clock, self.now_ms(),
                              new_hand=moved and play.new_hand(match, mark),
                              by=self.process_id)
            change_data: dict[str, Any] = (
                play.change(match, mark if moved else None)
                if changed and play.journaled else {"checkpoint": live.status})
            if live.clock is not None:
                change_data["c"] = live.clock.state()
            change = journal.encode(change_data)
            if changed and play.journaled and not finished:
                if not await self._journal.append(live.id, version, change,
                                                  player_session):
                    raise PlayError("stale", "the match changed meanwhile")
            else:
                extra = await self._checkpoint(live, version, change, seated,
                                               player_session, reseated)
        except repo.SessionEnded:
            self._store.forget(live.id)
            raise PlayError("revoked", "your session has ended; log in again") from None
        except BaseException:
            self._store.forget(live.id)
            raise
        live.version = version
        await self._publish(live, event, extra)
        if live.status.over:
            self._store.settled(live)
        for listener in self.after_commit:
            listener(live)

    async def _checkpoint(
        self, live: LiveMatch, version: int, change: str, seated: tuple[int, int] | None,
        player_session: str | None = None, reseated: tuple[int, dict[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """Write the whole record at ``version`` and, in the same transaction, run the hooks
        of a match that starts (a second player seated) or finishes; the fields the finishing
        hooks add to the ``state`` event, merged in hook order."""
        finished = live.over
        # A match called off once started (kva.service.play.aborting): stored as ended, with
        # no winner, so that the history lists it.
        aborted = live.aborted
        extra: dict[str, Any] | None = None
        async with self._sessions() as session, session.begin():
            ok = await repo.save_match_state(
                session, live.id, version, record=record_of(live), status=live.status,
                change=change,
                winner=winner(live) if finished else None,
                end_reason=end_reason(live) if finished or aborted else None,
                finished_at=utcnow() if finished or aborted else None,
                seated=seated, player_session=player_session, reseated=reseated,
            )
            if not ok:
                raise PlayError("stale", "the match changed meanwhile")
            if seated is not None:  # e.g. coin tables: both stakes into escrow
                for hook in self.hooks:
                    await hook.started(session, live.id)
            if finished:  # e.g. ratings and the coin payout, in this same transaction
                for hook in self.hooks:
                    added = await hook.finished(session, live.id)
                    if added:
                        extra = {**(extra or {}), **added}
            if aborted:  # e.g. a coin match's stakes back to the players
                for hook in self.hooks:
                    await hook.aborted(session, live.id)
        return extra

    async def republish(self, live: LiveMatch) -> None:
        """Publish the state as it is, with no event: a process that takes a match over does,
        since its owner may have died between committing a change and publishing it (the
        sockets that were not told would wait for ever)."""
        await self._publish(live, None, None)

    async def _publish(
        self, live: LiveMatch, event: EventSource | None, extra: dict[str, Any] | None
    ) -> None:
        # Each state is built only for a viewer key someone watches, here or (on the owner
        # of a match shared with other processes) elsewhere, and encoded once: every socket
        # of that key sends the same text. Only while another process watches does the
        # message go to Redis; else this process's subscribers get it alone.
        remote = None if self.remote is None else self.remote(live.id)
        shared = self._store.shared
        local_only = False
        if self.watchers is None or (shared and remote is None):
            keys: Iterable[str] = live.keys  # who watches elsewhere is not known
        else:
            keys = self.watchers.keys(live.id)
            if shared:
                if remote:  # another process's keys, of this match's seats only
                    keys = {*keys, *remote}.intersection(live.keys)
                else:
                    local_only = True
        states = {
            key: encoded_state(live, None if key == "s" else int(key), event, extra)
            for key in keys
        }
        # Who holds each seat now: a socket or stream that views the match as a seat its
        # user has given up stops there, before it is sent the next player's hand.
        message = {"version": live.version, "status": live.status, "states": states,
                   "holders": [seat.user_id for seat in live.seats]}
        try:
            if local_only:
                await self._broker.publish_local(topic(live.id), message)
            else:
                await self._broker.publish(topic(live.id), message)
        except Exception:  # committed already: clients resync on reconnect
            log.exception("publishing match %s v%d failed", live.id, live.version)
