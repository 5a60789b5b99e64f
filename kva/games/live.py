"""What the play core needs of a game beyond :class:`~kva.games.base.Game`: a match that lives
across commits, restarts and processes.

The :class:`Game` interface is enough to play a match in memory. The play service also stores
a match as it goes, resumes it from storage, writes each viewer's state as text and tells each
viewer what just happened. :class:`LivePlay` names those needs; a game that has something
better than the generic answer (the Georgian game's journal of compact changes, its viewer
events and its state text written from kept fragments, all of which the site's clients and
stored records depend on) provides its own as ``live_play``, and every other game gets
:class:`PlainPlay`, built from the :class:`Game` interface alone. :func:`live_play_of` picks
one, so the core never asks which game it holds.

:class:`PlainPlay` stores a match as a whole record at every change (the game's own record
plus ``meta.log``, the actions applied since the deal as ``[seat, action JSON]`` and forfeits
as ``[seat, "forfeit", reason]``) and resumes one by dealing it again from its seeds and
replaying that log: a game needs no code of its own to be stored, resumed and verified.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from kva.games.base import DealSeeds, Game, MatchOutcome

#: An event: what just happened, as one viewer may see it (the ``event`` of a ``state``).
Event = dict[str, Any]
#: The key of ``meta`` that holds a :class:`PlainPlay` match's actions.
LOG_KEY = "log"

#: How the play service encodes a state (compact, not ASCII-escaped).
encode_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class ViewWriter(Protocol):
    """Writes one match's views as JSON text (one per match: it may keep what the next view
    repeats)."""

    def text(self, view: Any) -> str:
        """Exactly the compact JSON encoding of ``view``'s JSON form."""
        ...


class LivePlay(Protocol):
    """A game's answers to the play core's needs beyond :class:`Game`. States, options, views
    and marks are the game's own values; the core passes them back without looking inside."""

    @property
    def journaled(self) -> bool:
        """Whether a move of a match that goes on is stored as a journal row
        (:meth:`change`) rather than as a whole record."""
        ...

    # ----------------------------------------------------------------- storage
    def options_from_stored(self, target: int, bazaar: str, record: Mapping[str, Any]) -> Any:
        """The options of a stored match, from its row's ``target`` and ``bazaar`` columns
        and its stored record."""
        ...

    def stored_columns(self, options: Any) -> tuple[int, str]:
        """What a match's row keeps in its ``target`` and ``bazaar`` columns."""
        ...

    def undealt_record(
        self, options: Any, players: list[dict[str, Any]], meta: dict[str, Any],
    ) -> dict[str, Any]:
        """The stored record of a match not dealt yet: its options and players."""
        ...

    def record(
        self, state: Any, options: Any, log: Sequence[Any], players: list[dict[str, Any]],
        meta: dict[str, Any],
    ) -> dict[str, Any]:
        """The stored record of a dealt match (``log``: the actions applied since the deal,
        kept by the core for games that resume by replaying them)."""
        ...

    def resume(
        self, options: Any, seats: int, record: Mapping[str, Any], seeds: DealSeeds | None,
        rng: random.Random,
    ) -> Any:
        """The match a stored record (in progress or over) describes; later hands are dealt
        from ``seeds`` (None: a match stored before fair deals, dealt from ``rng``)."""
        ...

    def dealt(self, record: Mapping[str, Any]) -> bool:
        """Whether a stored record is of a match already dealt."""
        ...

    def log_of(self, record: Mapping[str, Any]) -> list[Any]:
        """The actions a stored record holds for :meth:`record` (none when the game keeps no
        log)."""
        ...

    def unseeded_match(self, options: Any, seats: int, rng: random.Random) -> Any:
        """A match dealt from ``rng``: a table stored before fair deals that is joined now."""
        ...

    # ----------------------------------------------------------------- views
    def view(self, state: Any, seat: int | None, *, active: bool) -> Any:
        """What ``seat`` (None: a spectator) may know of the match now; no legal action
        unless the match is ``active``."""
        ...

    def undealt_view(self, options: Any, seats: int, seat: int | None) -> Any:
        """The view of a table that is not dealt yet: its options and no tile at all."""
        ...

    def view_json(self, view: Any) -> dict[str, Any]:
        """The JSON form of a view (the ``view`` of a ``state`` message)."""
        ...

    def view_writer(self) -> ViewWriter:
        """A new :class:`ViewWriter` for one match."""
        ...

    def bot_view(self, state: Any, seat: int) -> Any:
        """What a bot of the game decides from for ``seat``."""
        ...

    # ----------------------------------------------------------------- changes
    def mark(self, state: Any) -> Any:
        """Where the next action will land, taken before it is applied (the Georgian game:
        the index of the hand in play); :meth:`action_event`, :meth:`change` and
        :meth:`new_hand` take it back."""
        ...

    def action_event(
        self, state: Any, mark: Any, seat: int, action: Any, view: Any,
    ) -> Event:
        """The event of the action ``seat`` just applied at ``mark``, as the viewer of
        ``view`` sees it."""
        ...

    def change(self, state: Any, mark: Any | None) -> dict[str, Any]:
        """The journal change of the move just applied at ``mark`` (None: a forfeit), for a
        :attr:`journaled` game."""
        ...

    def apply_change(self, record: dict[str, Any], change: dict[str, Any]) -> None:
        """Apply one stored journal change (made by :meth:`change`) to a stored record in
        place; a clock's state (``c``) is the core's and applied by it."""
        ...

    def new_hand(self, state: Any, mark: Any) -> bool:
        """Whether the action applied at ``mark`` began a new hand (the clock pauses)."""
        ...

    def may_abort(self, state: Any, log: Sequence[Any]) -> bool:
        """Whether the match may still be called off: at most one seat has acted in it yet
        (``log``: the actions the core keeps for a game that is not :attr:`journaled`)."""
        ...

    def has_chosen(self, state: Any, log: Sequence[Any], seat: int) -> bool:
        """Whether ``seat`` ever chose an action in the match (one the server applied for
        them because it was forced does not count): a player who never did may lose a match
        with no clock for not making a first move (``log`` as for :meth:`may_abort`)."""
        ...


def winner_of(outcome: MatchOutcome | None) -> int | None:
    """The one seat that won a match, or None (not over, or won by several seats together)."""
    if outcome is None or len(outcome.winners) != 1:
        return None
    return outcome.winners[0]


class _JsonWriter:
    """A :class:`ViewWriter` for views that are JSON dicts already."""

    __slots__ = ()

    def text(self, view: Any) -> str:
        return encode_json(view)


class PlainPlay:
    """:class:`LivePlay` for any :class:`Game`, from its interface alone (see the module)."""

    journaled = False

    def __init__(self, game: Game[Any, Any, Any]) -> None:
        self.game = game

    # ----------------------------------------------------------------- storage
    def options_from_stored(self, target: int, bazaar: str, record: Mapping[str, Any]) -> Any:
        meta = record.get("meta") or {}
        return self.game.parse_options(meta.get("options") or {})

    def stored_columns(self, options: Any) -> tuple[int, str]:
        # the columns hold Georgian settings; another game's options live in its record
        plain = self.game.options_to_dict(options)
        target = plain.get("target")
        return (target if isinstance(target, int) else 0), ""

    def undealt_record(
        self, options: Any, players: list[dict[str, Any]], meta: dict[str, Any],
    ) -> dict[str, Any]:
        return {"format": self.game.record_format, "players": players,
                "meta": {**meta, "options": self.game.options_to_dict(options)}}

    def record(
        self, state: Any, options: Any, log: Sequence[Any], players: list[dict[str, Any]],
        meta: dict[str, Any],
    ) -> dict[str, Any]:
        return self.game.write_record(state, players, {
            **meta, "options": self.game.options_to_dict(options), LOG_KEY: list(log)})

    def resume(
        self, options: Any, seats: int, record: Mapping[str, Any], seeds: DealSeeds | None,
        rng: random.Random,
    ) -> Any:
        game = self.game
        state = game.new_match(options, seats,
                               seeds if seeds is not None else DealSeeds.from_rng(rng, seats))
        for entry in self.log_of(record):
            if len(entry) == 3 and entry[1] == "forfeit":
                game.forfeit(state, entry[0], entry[2])
            else:
                seat, action = entry
                game.apply(state, seat, game.action_from_json(state, seat, action))
        return state

    def dealt(self, record: Mapping[str, Any]) -> bool:
        return LOG_KEY in (record.get("meta") or {})

    def log_of(self, record: Mapping[str, Any]) -> list[Any]:
        meta = record.get("meta") or {}
        log = meta.get(LOG_KEY)
        return list(log) if isinstance(log, list) else []

    def unseeded_match(self, options: Any, seats: int, rng: random.Random) -> Any:
        return self.game.new_match(options, seats, DealSeeds.from_rng(rng, seats))

    # ----------------------------------------------------------------- views
    def view(self, state: Any, seat: int | None, *, active: bool) -> Any:
        view = (self.game.spectator_view(state) if seat is None
                else self.game.seat_view(state, seat))
        if not active and "legal" in view:
            view = {**view, "legal": []}
        return view

    def undealt_view(self, options: Any, seats: int, seat: int | None) -> Any:
        return {"seat": seat, "seats": seats, "dealt": False,
                "options": self.game.options_to_dict(options)}

    def view_json(self, view: Any) -> dict[str, Any]:
        return dict(view)

    def view_writer(self) -> ViewWriter:
        return _JsonWriter()

    def bot_view(self, state: Any, seat: int) -> Any:
        return self.game.seat_view(state, seat)

    # ----------------------------------------------------------------- changes
    def mark(self, state: Any) -> Any:
        return None

    def action_event(
        self, state: Any, mark: Any, seat: int, action: Any, view: Any,
    ) -> Event:
        kind = "match_end" if self.game.is_over(state) else "action"
        return {"kind": kind, "p": seat, "action": self.game.action_to_json(action)}

    def change(self, state: Any, mark: Any | None) -> dict[str, Any]:
        raise NotImplementedError("a plain game stores whole records, not journal changes")

    def apply_change(self, record: dict[str, Any], change: dict[str, Any]) -> None:
        pass  # its journal holds only the rows that guard its whole records

    def new_hand(self, state: Any, mark: Any) -> bool:
        return False

    def may_abort(self, state: Any, log: Sequence[Any]) -> bool:
        return len({entry[0] for entry in log}) < 2

    def has_chosen(self, state: Any, log: Sequence[Any], seat: int) -> bool:
        # The log does not say which action was forced, so every action counts; only a
        # match stored before clocks (a Georgian one) is ever timed out for its first move.
        return any(entry[0] == seat and len(entry) == 2 for entry in log)


def live_play_of(game: Game[Any, Any, Any]) -> LivePlay:
    """The game's own :class:`LivePlay` (its ``live_play`` attribute), or :class:`PlainPlay`
    over it."""
    own = getattr(game, "live_play", None)
    return own if own is not None else PlainPlay(game)
