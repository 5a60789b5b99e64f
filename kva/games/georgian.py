"""The Georgian game (kva.rules) behind the :class:`~kva.games.base.Game` interface.

A thin adapter: every rule, view, record and message is the engine's own, called exactly as
the play service calls it (views are :func:`kva.rules.view_to_json` of
:func:`kva.rules.player_view`, actions :func:`kva.rules.action_from_json` against the legal
codes), so moving the service onto this interface changes no byte a client or a record sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kva import rules
from kva.games.base import (
    BadOptions,
    DealSeeds,
    ForfeitReason,
    HandOutcome,
    MatchOutcome,
    RatingKind,
)
from kva.games.edges import EngineEdges
from kva.games.georgian_live import GeorgianPlay

#: The keys of a Georgian table's options.
_OPTION_KEYS: Final = ("target", "bazaar")
#: The actions that are all a player may do when they are the only legal one: the server plays
#: them at once (kva/service/play/turns.py), and no clock runs for them.
_FORCED_CODES: Final = frozenset({rules.DRAW, rules.PASS})


@dataclass(frozen=True, slots=True)
class GeorgianOptions:
    """A Georgian table's options: the target score and the bazaar rule, checked on
    construction by :class:`kva.rules.MatchSettings` (the one place that knows them)."""

    target: int = 175
    bazaar: rules.BazaarRule = "draw"

    def __post_init__(self) -> None:
        try:
            rules.MatchSettings(self.target, self.bazaar)
        except rules.BadSettings as exc:
            raise BadOptions(exc.field, exc.message) from None


class GeorgianGame(EngineEdges[rules.Match]):
    """Georgian domino for two players: ``Game[rules.Match, int, GeorgianOptions]``."""

    name: Final = "georgian"
    record_format: Final = rules.FORMAT
    seats: Final = (2,)
    rating_kind: Final[RatingKind] = "glicko2"
    #: The engine whose functions are the JSON and record edges (:class:`EngineEdges`).
    engine = rules
    #: What the play core needs beyond the interface (:mod:`kva.games.georgian_live`).
    live_play: Final = GeorgianPlay(lambda target, bazaar: GeorgianOptions(target, bazaar))

    # ----------------------------------------------------------------- options
    def parse_options(self, data: Mapping[str, object]) -> GeorgianOptions:
        unknown = sorted(key for key in data if key not in _OPTION_KEYS)
        if unknown:
            raise BadOptions(unknown[0], "unknown option: target or bazaar")
        defaults = GeorgianOptions()
        try:
            settings = rules.MatchSettings.parse(
                data.get("target", defaults.target), data.get("bazaar", defaults.bazaar)
            )
        except rules.BadSettings as exc:
            raise BadOptions(exc.field, exc.message) from None
        return GeorgianOptions(settings.target, settings.bazaar)

    def options_to_dict(self, options: GeorgianOptions) -> dict[str, Any]:
        return {"target": options.target, "bazaar": options.bazaar}

    # ----------------------------------------------------------------- play
    def new_match(self, options: GeorgianOptions, seats: int, seeds: DealSeeds) -> rules.Match:
        if seats not in self.seats:
            raise BadOptions("seats", f"the Georgian game is for 2 players, not {seats!r}")
        if seeds.seats != seats:
            raise ValueError(f"one client seed per seat: {seats} needed, {seeds.seats} given")
        dealer = rules.FairDealer(seeds.server_seed, seeds.client_seeds)
        return rules.Match(options.target, options.bazaar, dealer=dealer)

    def to_act(self, state: rules.Match) -> tuple[int, ...]:
        return () if state.turn is None else (state.turn,)

    def legal_actions(self, state: rules.Match, seat: int) -> tuple[int, ...]:
        return tuple(state.legal_codes()) if seat == state.turn else ()

    def apply(self, state: rules.Match, seat: int, action: int) -> None:
        state.apply(action, player=seat)

    def forced_action(self, state: rules.Match, seat: int) -> int | None:
        if seat != state.turn:
            return None
        legal = state.legal_codes()  # a list: asked twice per action, no tuple made
        return legal[0] if len(legal) == 1 and legal[0] in _FORCED_CODES else None

    def forfeit(self, state: rules.Match, seat: int, reason: ForfeitReason) -> None:
        state.forfeit(seat, reason)

    # ----------------------------------------------------------------- views
    def seat_view(self, state: rules.Match, seat: int) -> dict[str, Any]:
        return rules.view_to_json(rules.player_view(state, seat))

    def spectator_view(self, state: rules.Match) -> dict[str, Any]:
        return rules.view_to_json(rules.player_view(state, None))

    # ----------------------------------------------------------------- results
    def hand_results(self, state: rules.Match) -> tuple[HandOutcome, ...]:
        outcomes: list[HandOutcome] = []
        before: tuple[int, ...] = (0, 0)
        for number, played in enumerate(state.hands, 1):
            if played.result is None or played.score_after is None:
                continue
            after = played.score_after
            winner = played.result.winner
            outcomes.append(HandOutcome(
                number=number,
                end=played.result.end,
                winners=() if winner is None else (winner,),
                points=tuple(a - b for a, b in zip(after, before, strict=True)),
                scores=after,
            ))
            before = after
        return tuple(outcomes)

    def is_over(self, state: rules.Match) -> bool:
        return state.over and state.winner is not None

    def match_result(self, state: rules.Match) -> MatchOutcome | None:
        if not state.over or state.winner is None:
            return None
        winner, loser = state.winner, 1 - state.winner
        return MatchOutcome(
            winners=(winner,),
            losers=(loser,),
            ranking=((winner,), (loser,)),
            scores=tuple(state.scores),
            forfeit=_FORFEITS.get(state.forfeit_reason or ""),
        )


#: The engine's forfeit reasons are the interface's own words.
_FORFEITS: Final[dict[str, ForfeitReason]] = {
    "resign": "resign",
    "timeout": "timeout",
    "abandon": "abandon",
}

#: The one Georgian game kva registers.
GEORGIAN: Final = GeorgianGame()
