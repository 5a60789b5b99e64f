"""Race: a trivial game behind the :class:`kva.games.Game` interface, for the tests only.

Two to four seats take turns adding 1 or 2 to a shared counter; whoever brings it exactly to
the target wins (a 2 that would pass the target is not legal). Each seat holds a secret token
dealt from the match's seeds that it alone may see, so the view tests have something to find
if a view leaked it. Its record format is ``race/1``: the options, the secrets, the moves and
the outcome, replayed by :meth:`RaceGame.verify_record`.

It exists to show that the interface is not shaped around the two domino games: the
conformance suite in ``tests/games`` runs it beside them.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kva.games import (
    BadOptions,
    DealSeeds,
    ForfeitReason,
    HandOutcome,
    IllegalAction,
    MatchOutcome,
    RatingKind,
    RecordError,
)
from kva.games.base import record_document

FORMAT: Final = "race/1"
#: The targets a race table may choose.
TARGETS: Final = range(3, 100)
_REASONS: Final[tuple[ForfeitReason, ...]] = ("resign", "timeout", "abandon")


@dataclass(frozen=True, slots=True)
class RaceOptions:
    """The counter value that wins."""

    target: int = 10

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or not isinstance(self.target, int) or (
            self.target not in TARGETS
        ):
            raise BadOptions("target", f"must be a whole number from 3 to 99, not {self.target!r}")


@dataclass(slots=True)
class RaceMatch:
    """A race in play: the whole state, secrets included."""

    target: int
    secrets: tuple[str, ...]
    counter: int = 0
    turn: int = 0
    moves: list[tuple[int, int]] = field(default_factory=list)
    winner: int | None = None
    forfeit: tuple[int, ForfeitReason] | None = None

    @property
    def seats(self) -> int:
        return len(self.secrets)

    @property
    def over(self) -> bool:
        return self.winner is not None or self.forfeit is not None


def _secret(seeds: DealSeeds, seat: int) -> str:
    """Seat ``seat``'s secret token: a pure function of the seeds."""
    message = b"race" + bytes.fromhex(seeds.client_seeds[seat])
    return "secret-" + hmac.new(seeds.server_seed, message, hashlib.sha256).hexdigest()[:12]


class RaceGame:
    """``Game[RaceMatch, int, RaceOptions]``: an action is the amount added, 1 or 2."""

    name: Final = "race"
    record_format: Final = FORMAT
    seats: Final = (2, 3, 4)
    rating_kind: Final[RatingKind] = "unrated"

    def parse_options(self, data: Mapping[str, object]) -> RaceOptions:
        unknown = sorted(key for key in data if key != "target")
        if unknown:
            raise BadOptions(unknown[0], "unknown option: target")
        target = data.get("target", RaceOptions().target)
        if not isinstance(target, int):
            raise BadOptions("target", f"must be a whole number from 3 to 99, not {target!r}")
        return RaceOptions(target)

    def options_to_dict(self, options: RaceOptions) -> dict[str, Any]:
        return {"target": options.target}

    def new_match(self, options: RaceOptions, seats: int, seeds: DealSeeds) -> RaceMatch:
        if seats not in self.seats:
            raise BadOptions("seats", f"a race is for 2 to 4 players, not {seats!r}")
        if seeds.seats != seats:
            raise ValueError(f"one client seed per seat: {seats} needed, {seeds.seats} given")
        return RaceMatch(options.target, tuple(_secret(seeds, p) for p in range(seats)))

    def to_act(self, state: RaceMatch) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    def legal_actions(self, state: RaceMatch, seat: int) -> tuple[int, ...]:
        if state.over or seat != state.turn:
            return ()
        return (1, 2) if state.counter + 2 <= state.target else (1,)

    def apply(self, state: RaceMatch, seat: int, action: int) -> None:
        if state.over:
            raise IllegalAction("the match is over")
        if seat != state.turn:
            raise IllegalAction(f"it is seat {state.turn}'s turn, not seat {seat}'s")
        if action not in self.legal_actions(state, seat):
            raise IllegalAction(f"seat {seat} cannot add {action!r} now")
        state.moves.append((seat, action))
        state.counter += action
        if state.counter == state.target:
            state.winner = seat
        else:
            state.turn = (seat + 1) % state.seats

    def forced_action(self, state: RaceMatch, seat: int) -> int | None:
        legal = self.legal_actions(state, seat)
        return legal[0] if len(legal) == 1 else None

    def forfeit(self, state: RaceMatch, seat: int, reason: ForfeitReason) -> None:
        if state.over:
            raise IllegalAction("the match is over")
        state.forfeit = (seat, reason)

    def _view(self, state: RaceMatch, seat: int | None) -> dict[str, Any]:
        mine = seat is not None and not state.over and seat == state.turn
        return {
            "seat": seat,
            "seats": state.seats,
            "target": state.target,
            "counter": state.counter,
            "turn": None if state.over else state.turn,
            "secret": None if seat is None else state.secrets[seat],
            "moves": [{"p": p, "add": n} for p, n in state.moves],
            "legal": [self.action_to_json(a) for a in self.legal_actions(state, seat)]
            if mine and seat is not None else [],
            "winner": state.winner,
        }

    def seat_view(self, state: RaceMatch, seat: int) -> dict[str, Any]:
        return self._view(state, seat)

    def spectator_view(self, state: RaceMatch) -> dict[str, Any]:
        return self._view(state, None)

    def _points(self, state: RaceMatch) -> tuple[int, ...]:
        points = [0] * state.seats
        for p, n in state.moves:
            points[p] += n
        return tuple(points)

    def hand_results(self, state: RaceMatch) -> tuple[HandOutcome, ...]:
        result = self.match_result(state)
        if result is None:
            return ()
        end = "reached" if state.forfeit is None else "forfeit"
        points = self._points(state)
        return (HandOutcome(1, end, result.winners, points, points),)

    def is_over(self, state: RaceMatch) -> bool:
        return state.winner is not None or state.forfeit is not None

    def match_result(self, state: RaceMatch) -> MatchOutcome | None:
        everyone = tuple(range(state.seats))
        if state.winner is not None:
            rest = tuple(p for p in everyone if p != state.winner)
            ranking: tuple[tuple[int, ...], ...] = ((state.winner,), rest)
        elif state.forfeit is not None:
            loser = state.forfeit[0]
            ranking = (tuple(p for p in everyone if p != loser), (loser,))
        else:
            return None
        return MatchOutcome(ranking[0], ranking[-1], ranking, self._points(state),
                            None if state.forfeit is None else state.forfeit[1])

    def action_to_json(self, action: int) -> dict[str, Any]:
        return {"type": "add", "amount": action}

    def action_from_json(self, state: RaceMatch, seat: int, message: object) -> int:
        if not isinstance(message, dict) or message.get("type") != "add":
            raise IllegalAction("an action is {'type': 'add', 'amount': 1 or 2}")
        amount = message.get("amount")
        legal = self.legal_actions(state, seat)
        if isinstance(amount, bool) or amount not in legal:
            raise IllegalAction(f"you cannot add {amount!r} now")
        return legal[legal.index(amount)]

    def write_record(self, state: RaceMatch, players: list[dict[str, Any]] | None = None,
                     meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "players": players if players is not None
            else [{"name": f"seat {p}"} for p in range(state.seats)],
            "meta": meta if meta is not None else {},
            "target": state.target,
            "secrets": list(state.secrets),
            "moves": [{"p": p, "add": n} for p, n in state.moves],
            "forfeit": None if state.forfeit is None
            else {"seat": state.forfeit[0], "reason": state.forfeit[1]},
            "winner": state.winner,
        }

    def verify_record(self, document: str | Mapping[str, Any]) -> RaceMatch:
        doc = record_document(document)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise RecordError("format", f"must be '{FORMAT}'")
        secrets = doc.get("secrets")
        if not isinstance(secrets, list) or len(secrets) not in self.seats or not all(
            isinstance(s, str) for s in secrets
        ):
            raise RecordError("secrets", "must list one secret per seat, 2 to 4")
        try:
            options = self.parse_options({"target": doc.get("target")})
        except BadOptions as exc:
            raise RecordError("target", exc.message) from None
        state = RaceMatch(options.target, tuple(secrets))
        moves = doc.get("moves")
        if not isinstance(moves, list):
            raise RecordError("moves", "must be a list")
        for i, move in enumerate(moves):
            try:
                self.apply(state, move["p"], move["add"])
            except (IllegalAction, KeyError, TypeError) as exc:
                raise RecordError(f"moves[{i}]", str(exc)) from None
        forfeit = doc.get("forfeit")
        if forfeit is not None:
            if not isinstance(forfeit, dict) or forfeit.get("reason") not in _REASONS or (
                forfeit.get("seat") not in range(state.seats)
            ):
                raise RecordError("forfeit", "must name a seat and a reason")
            try:
                self.forfeit(state, forfeit["seat"], forfeit["reason"])
            except IllegalAction as exc:
                raise RecordError("forfeit", str(exc)) from None
        if not state.over:
            raise RecordError("moves", "missing moves: the race is not over")
        if doc.get("winner") != state.winner:
            raise RecordError("winner", f"is {doc.get('winner')!r}, the rules give {state.winner}")
        return state


#: The one race game the tests use.
RACE: Final = RaceGame()
