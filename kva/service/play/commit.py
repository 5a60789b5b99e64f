"""Committing a change: store the match at its next version (refused if another writer got
there first), then publish the state each viewer may see, built from that viewer's own view."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from kva.rules import FORMAT, Match, PlayerView, player_view, view_to_json, write_record
from kva.service.broker import Broker
from kva.service.errors import PlayError
from kva.service.events import EventSource
from kva.service.play.hooks import MatchHook
from kva.service.play.live import VIEWER_KEYS, LiveMatch, LiveStore, topic
from kva.service.play.watchers import Watchers
from kva.storage import journal, repo
from kva.storage.db import journal_writer_of
from kva.storage.models import utcnow

log = logging.getLogger(__name__)

#: The board before anyone has played: what a table that is not dealt yet shows.
_EMPTY_BOARD = player_view(Match(75, "draw", random.Random(0)), None).board


def undealt_view(live: LiveMatch, seat: int | None) -> PlayerView:
    """The view of a table waiting for its second player: the settings, and no tile at all
    (nothing is dealt until the match starts)."""
    return PlayerView(
        player=seat, target=live.settings.target, bazaar=live.settings.bazaar, scores=(0, 0),
        hand_number=1, turn=None, over=False, winner=None, forfeit_reason=None, hand=(),
        hand_counts=(0, 0), hand_points=(0, 0), drawable_count=0, out_of_play_count=0,
        drawn_count=0, pending=None, forced_opening=None, board=_EMPTY_BOARD, moves=(),
        legal=(), passes=0, last_placer=-1, last_nondouble_placer=-1, previous=(),
    )


def view_of(live: LiveMatch, seat: int | None) -> PlayerView:
    """What ``seat`` (None: a spectator) may know of ``live`` now."""
    if live.match is None:
        return undealt_view(live, seat)
    view = player_view(live.match, seat)
    if live.status != "active":
        view = replace(view, legal=())
    return view


def record_of(live: LiveMatch) -> dict[str, Any]:
    """The stored record: the whole match, or, before the deal, its settings and players."""
    players = [{"name": s.record_name()} for s in live.seats]
    meta: dict[str, Any] = {"match_id": live.id, "rated": live.rated, "started": live.created_at}
    if live.fair is not None:  # the server seed only once the match is over
        meta["fair"] = live.fair.meta(reveal=revealed(live))
    if live.clock is not None:
        meta["clock"] = live.clock.meta()
        if live.clock.flagged is not None:  # "time", or "timeout" for a first move
            meta["end"] = end_reason(live)
    if live.match is None:
        return {"format": FORMAT, "target": live.settings.target,
                "bazaar": live.settings.bazaar, "players": players, "meta": meta,
                "hands": [], "winner": None, "score": [0, 0]}
    return write_record(live.match, players=players, meta=meta)


def end_reason(live: LiveMatch) -> str:
    """How a finished match ended, as its row's ``end_reason`` says: ``points``, ``resign``,
    ``abandon``, ``timeout`` (no first move), or ``time`` (lost on the clock)."""
    if live.clock is not None and live.clock.flagged is not None:
        return "timeout" if live.clock.first_move_only else "time"
    return (live.match.forfeit_reason if live.match is not None else None) or "points"


def revealed(live: LiveMatch) -> bool:
    """Whether the match is over (won, resigned, forfeited): only then is its server seed
    shown, in states and in the record."""
    return live.status == "finished" or (live.match is not None and live.match.over)


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
    as text from kept fragments (:class:`kva.service.play.viewtext.ViewText`: the moves and
    finished hands each encoded once, the board once for all its viewers, tables for tiles and
    actions) instead of built as a dict and encoded again in every state; only what follows
    the view (the event, the players, ...) goes through ``json.dumps``."""
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
    return {"type": "state", "version": live.version, "view": view_to_json(view),
            **_after_view(live, seat, view, event, extra)}


def _after_view(
    live: LiveMatch, seat: int | None, view: PlayerView, event: EventSource | None,
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
        self, sessions: async_sessionmaker[AsyncSession], broker: Broker, store: LiveStore,
        watchers: Watchers | None = None, hooks: Sequence[MatchHook] = (),
        remote: Callable[[str], frozenset[str] | None] | None = None,
    ) -> None:
        self._sessions = sessions
        #: What other features do in the transaction that starts or finishes a match, in
        #: this order (:mod:`kva.service.play.hooks`).
        self.hooks: tuple[MatchHook, ...] = tuple(hooks)
        #: Who watches each match here (None: build every viewer's state).
        self.watchers = watchers
        self._engine: AsyncEngine = sessions.kw["bind"]
        self._journal = journal_writer_of(self._engine)
        self._broker = broker
        self._store = store
        #: Called with the match after each committed change (automatic turns, hooks).
        self.after_commit: list[Callable[[LiveMatch], None]] = []
        #: The viewer keys other processes watch a match as (the match router's
        #: :class:`~kva.service.play.watchers.RemoteWatchers`, on the match's owner); None
        #: (or no such function): not known, so every key is built and sent to Redis when
        #: the store is :attr:`~kva.service.play.live.LiveStore.shared`.
        self.remote = remote

    @property
    def now_ms(self) -> Callable[[], int]:
        """The wall clock of the match clocks, in epoch ms (the store's)."""
        return self._store.now_ms

    async def commit(
        self, live: LiveMatch, event: EventSource | None, *, seat1_user_id: int | None = None,
        move_hand: int | None = None, forfeit: bool = False, player_session: str | None = None,
    ) -> None:
        """Store the match at the next version, then publish it; the caller holds the lock.

        ``move_hand``: the change is the move just applied in that hand (index); ``forfeit``:
        the change is a forfeit. A move of a match that goes on is one appended journal row
        (:mod:`kva.storage.journal`); every other change (a join, a cancelled table, the end
        of the match) writes the whole record as the new checkpoint, guarded the same way.

        ``player_session``: the SHA-256 of the session token of the player making the change;
        the write checks in the same statement that the session is live (a WebSocket does not
        read the session before each action), and a ``revoked`` error is raised if it is not.

        If the write is refused (someone else wrote first, or the session ended) or fails, the
        in-memory copy is dropped, so the next access reloads the stored truth, and a ``stale``
        (or ``revoked``) error is raised.
        """
        match = live.match
        finished = match is not None and match.over
        if finished:
            live.status = "finished"
        version = live.version + 1
        moved = match is not None and (move_hand is not None or forfeit)
        extra: dict[str, Any] | None = None
        try:
            if live.clock is not None and match is not None:
                live.clock.advance(
                    match, (live.seats[0].bot is None, live.seats[1].bot is None),
                    live.status == "active", self.now_ms(),
                    new_hand=move_hand is not None and len(match.hands) - 1 > move_hand)
            change_data: dict[str, Any] = (
                journal.change_of(match, move_hand) if match is not None and moved
                else {"checkpoint": live.status})
            if live.clock is not None:
                change_data["c"] = live.clock.state()
            change = journal.encode(change_data)
            if moved and not finished:
                if not await self._journal.append(self._engine, live.id, version, change,
                                                  player_session):
                    raise PlayError("stale", "the match changed meanwhile")
            else:
                extra = await self._checkpoint(live, version, change, seat1_user_id,
                                               player_session)
        except repo.SessionEnded:
            self._store.forget(live.id)
            raise PlayError("revoked", "your session has ended; log in again") from None
        except BaseException:
            self._store.forget(live.id)
            raise
        live.version = version
        await self._publish(live, event, extra)
        if live.status in ("finished", "cancelled"):
            self._store.settled(live)
        for listener in self.after_commit:
            listener(live)

    async def _checkpoint(
        self, live: LiveMatch, version: int, change: str, seat1_user_id: int | None,
        player_session: str | None = None,
    ) -> dict[str, Any] | None:
        """Write the whole record at ``version`` and, in the same transaction, run the hooks
        of a match that starts (a second player seated) or finishes; the fields the finishing
        hooks add to the ``state`` event, merged in hook order."""
        match = live.match
        finished = match is not None and match.over
        extra: dict[str, Any] | None = None
        async with self._sessions() as session, session.begin():
            ok = await repo.save_match_state(
                session, live.id, version, record=record_of(live), status=live.status,
                change=change,
                winner=match.winner if match is not None and finished else None,
                end_reason=end_reason(live) if finished else None,
                finished_at=utcnow() if finished else None, seat1_user_id=seat1_user_id,
                player_session=player_session,
            )
            if not ok:
                raise PlayError("stale", "the match changed meanwhile")
            if seat1_user_id is not None:  # e.g. coin tables: both stakes into escrow
                for hook in self.hooks:
                    await hook.started(session, live.id)
            if finished:  # e.g. ratings and the coin payout, in this same transaction
                for hook in self.hooks:
                    added = await hook.finished(session, live.id)
                    if added:
                        extra = {**(extra or {}), **added}
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
            keys: Iterable[str] = VIEWER_KEYS  # who watches elsewhere is not known
        else:
            keys = self.watchers.keys(live.id)
            if shared:
                if remote:
                    keys = {*keys, *remote}
                else:
                    local_only = True
        states = {
            key: encoded_state(live, None if key == "s" else int(key), event, extra)
            for key in keys
        }
        message = {"version": live.version, "status": live.status, "states": states}
        try:
            if local_only:
                await self._broker.publish_local(topic(live.id), message)
            else:
                await self._broker.publish(topic(live.id), message)
        except Exception:  # committed already: clients resync on reconnect
            log.exception("publishing match %s v%d failed", live.id, live.version)
