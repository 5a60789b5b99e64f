"""The interface every game of kva implements, and the typed values it speaks in.

Everything above a game's rules (the play core, storage, views, records, clocks, fair deals,
ratings, the web tier) needs the same few things of it: which options a table may choose, how
a match is dealt from a fair seed, whose turn it is, what a seat may do and what doing it
changes, what each viewer may see, how a hand and the match ended, how actions and records are
written. :class:`Game` names exactly those, generic over the game's own state, action and
options types, so the core holds a ``Game`` and never a game's engine.

Conventions every implementation keeps (``tests/games`` checks them for each registered game):

* a game is pure: no I/O, no clock, no global randomness; a match is a function of its options,
  its seat count, its :class:`DealSeeds` and the actions applied to it;
* ``apply`` changes the state in place, as both engines do, and an action that is not legal
  raises :class:`IllegalAction` (the one error of play) and changes nothing;
* views are JSON-ready dicts built only from what their viewer may know: a seat's view never
  holds another seat's hidden tiles, a spectator's holds no seat's;
* records are JSON documents in the game's own format (``record_format``); ``verify_record``
  replays one through the rules and raises :class:`RecordError` at the first problem.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeVar

from kva.rules import (
    SCHEME,
    IllegalAction,
    RecordError,
    check_client_seed,
    commitment,
    load_record_text,
    new_client_seed,
    new_server_seed,
)

#: The most seats a game may have (kva-fair/1 deals two to four): what a seat number read
#: from outside is checked against before its game is known.
MAX_SEATS: Final = 4

__all__ = [
    "MAX_SEATS",
    "SCHEME",
    "BadOptions",
    "DealSeeds",
    "ForfeitReason",
    "Game",
    "HandOutcome",
    "IllegalAction",
    "MatchOutcome",
    "RatingKind",
    "RecordError",
    "check_client_seed",
    "commitment",
    "new_client_seed",
    "new_server_seed",
    "record_document",
]

#: How a match's results move ratings: Glicko-2 (two players), Kozel's own per-score formula
#: (kozel.md §7), or not at all (a game played only for fun, or in tests).
RatingKind = Literal["glicko2", "kozel", "unrated"]

#: Why a match ends early, in the words of the core (each game maps them onto its engine's).
ForfeitReason = Literal["resign", "timeout", "abandon"]

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
OptionsT = TypeVar("OptionsT")


class BadOptions(ValueError):
    """Options or a seat count that a game does not play. ``field`` names what is wrong
    (an option such as ``target`` or ``fish``, an unknown key, or ``seats``); the message says
    what is allowed."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class DealSeeds:
    """The seeds a match is dealt from under kva-fair/1 (docs/fairness.md): the secret 32-byte
    server seed and one 16-byte client seed per seat, in seat order, as lowercase hex.

    Every deal of the match follows from them, so the same seeds (with the same options, seats
    and actions) give the same match."""

    server_seed: bytes
    client_seeds: tuple[str, ...]

    def __post_init__(self) -> None:
        commitment(self.server_seed)  # raises ValueError unless it is 32 bytes
        for seed in self.client_seeds:
            if check_client_seed(seed) != seed:
                raise ValueError(f"client seeds are lowercase hex, found {seed!r}")

    @classmethod
    def from_rng(cls, rng: random.Random, seats: int) -> DealSeeds:
        """Seeds drawn from a seeded ``random.Random``: for self-play, tests and tools, where
        the same number must give the same match (a live table draws its seeds from
        ``secrets`` and the players' browsers instead)."""
        return cls(rng.randbytes(32), tuple(rng.randbytes(16).hex() for _ in range(seats)))

    def __repr__(self) -> str:  # never print the secret
        return f"DealSeeds(commitment={commitment(self.server_seed)!r}, seats={self.seats})"

    @property
    def seats(self) -> int:
        """How many seats the seeds deal."""
        return len(self.client_seeds)


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How one finished hand ended.

    ``number`` counts hands from 1; ``end`` is the game's own word for the ending (Georgian:
    ``domino``, ``fish``, ``forfeit``; Kozel: ``out``, ``fish``, ``drawn-fish``, ``forfeit``);
    ``winners`` the seats that won the hand (none for a drawn hand or a Kozel fish, where every
    side scores its count); ``points`` what each seat's score grew by in the hand and ``scores``
    each seat's match score after it (partners in Kozel's pair game each show their pair's)."""

    number: int
    end: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """How a finished match ended.

    ``ranking`` lists the seats from best to worst in groups of equal standing (partners share
    a group). ``losers`` are the seats that lost (Kozel's козлы: every seat of a side that
    reached the limit, or of the side that forfeited); ``winners`` is the first group of the
    ranking, or none when every seat lost. ``scores`` are per seat, as in :class:`HandOutcome`
    (higher is better in the Georgian game, lower in Kozel); ``forfeit`` is the reason when a
    seat resigned, ran out of time or left."""

    winners: tuple[int, ...]
    losers: tuple[int, ...]
    ranking: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    forfeit: ForfeitReason | None = None


class Game(Protocol[StateT, ActionT, OptionsT]):
    """A game kva can host: a thin, typed face over one pure rules engine.

    ``StateT`` is the engine's whole (hidden-information) match, ``ActionT`` one action as the
    engine takes it, ``OptionsT`` the table's validated options. Seats are numbered from 0.
    """

    @property
    def name(self) -> str:
        """The id used in URLs, storage and records (``georgian``, ``kozel``)."""
        ...

    @property
    def record_format(self) -> str:
        """The ``format`` of the game's records (``georgian-domino/1``, ``kozel/1``)."""
        ...

    @property
    def seats(self) -> tuple[int, ...]:
        """The seat counts a table of the game may have, smallest first."""
        ...

    @property
    def rating_kind(self) -> RatingKind:
        """How a rated match's result moves ratings."""
        ...

    # ----------------------------------------------------------------- options
    def parse_options(self, data: Mapping[str, object]) -> OptionsT:
        """Options from a plain dict (a form, a query, a record); a missing key takes its
        default, so ``{}`` gives the defaults. Raises :class:`BadOptions` naming the first bad
        or unknown key."""
        ...

    def options_to_dict(self, options: OptionsT) -> dict[str, Any]:
        """The plain-dict form of ``options``: :meth:`parse_options` gives them back."""
        ...

    # ----------------------------------------------------------------- play
    def new_match(self, options: OptionsT, seats: int, seeds: DealSeeds) -> StateT:
        """A match at ``seats`` seats, its first hand dealt from ``seeds`` under kva-fair/1.
        Raises :class:`BadOptions` (field ``seats``) for a seat count the game or these options
        do not play, and ValueError when ``seeds`` do not hold one client seed per seat."""
        ...

    def to_act(self, state: StateT) -> tuple[int, ...]:
        """The seats that must act now: none once the match is over."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> tuple[ActionT, ...]:
        """Every action ``seat`` may take now, in the engine's order (none when it is not to
        act)."""
        ...

    def apply(self, state: StateT, seat: int, action: ActionT) -> None:
        """``seat`` takes ``action``: the state changes in place. An action that is not legal
        for ``seat`` now (or a match that is over) raises :class:`IllegalAction` saying why,
        and the state is unchanged."""
        ...

    def forced_action(self, state: StateT, seat: int) -> ActionT | None:
        """The action the server takes for ``seat`` without waiting for it, because it is
        all ``seat`` may do (a draw, a pass, a knock); None when ``seat`` has a real choice or
        is not to act. A seat with a real choice whose time runs out forfeits
        (:meth:`forfeit`): no game guesses a move for a player."""
        ...

    def forfeit(self, state: StateT, seat: int, reason: ForfeitReason) -> None:
        """End the match at once: ``seat`` resigned, ran out of time or left. Raises
        :class:`IllegalAction` when the match is already over."""
        ...

    # ----------------------------------------------------------------- views
    def seat_view(self, state: StateT, seat: int) -> dict[str, Any]:
        """What ``seat`` may know now, as the JSON a client gets."""
        ...

    def spectator_view(self, state: StateT) -> dict[str, Any]:
        """What anyone watching may know now: no seat's hidden tiles."""
        ...

    # ----------------------------------------------------------------- results
    def hand_results(self, state: StateT) -> tuple[HandOutcome, ...]:
        """Every finished hand of the match so far, in order."""
        ...

    def match_result(self, state: StateT) -> MatchOutcome | None:
        """How the match ended, or None while it goes on."""
        ...

    def is_over(self, state: StateT) -> bool:
        """Whether the match has ended: ``match_result(state) is not None``, without building
        the outcome (the play core asks on every action)."""
        ...

    # ----------------------------------------------------------------- edges
    def action_to_json(self, action: ActionT) -> dict[str, Any]:
        """The JSON form of an action, as a client receives it among its legal actions and
        sends it back."""
        ...

    def action_from_json(self, state: StateT, seat: int, message: object) -> ActionT:
        """The legal action of ``seat`` that a client's JSON ``message`` names. Whatever JSON
        value ``message`` is, anything but a legal action raises :class:`IllegalAction` with a
        short reason a player can read."""
        ...

    def write_record(
        self,
        state: StateT,
        players: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The record of the match in ``record_format`` (finished, forfeited, or in progress:
        one in progress holds hidden tiles and is for storage only)."""
        ...

    def verify_record(self, document: str | Mapping[str, Any]) -> StateT:
        """Replay a finished match's record (JSON text or the parsed document) through the
        rules, checking every rule and its ``meta.fair``; return the replayed match or raise
        :class:`RecordError` at the first problem."""
        ...


def record_document(document: str | Mapping[str, Any]) -> Any:
    """A record as its parsed JSON document: text is parsed (bad JSON is a
    :class:`RecordError`), a document is taken as it is. What every ``verify_record`` reads."""
    return load_record_text(document) if isinstance(document, str) else document
