"""Kozel (kva.kozel) behind the :class:`~kva.games.base.Game` interface.

A thin adapter over the engine's public API: the rules, views, actions and records are
:mod:`kva.kozel`'s own. What it adds is the interface's per-seat language: Kozel scores per
*side* (a seat alone, or a pair in the four-player pair game), and outcomes here speak of
seats, each partner showing its pair's score.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby
from typing import Any, Final

from kva import kozel
from kva.games.base import (
    BadOptions,
    DealSeeds,
    ForfeitReason,
    HandOutcome,
    MatchOutcome,
    RatingKind,
)
from kva.games.edges import EngineEdges
from kva.games.live import PlainPlay

#: The interface's forfeit reasons in the engine's words (it says ``time`` for a time loss).
_ENGINE_REASON: Final[dict[ForfeitReason, str]] = {
    "resign": "resign",
    "timeout": "time",
    "abandon": "abandon",
}
_REASON: Final[dict[str, ForfeitReason]] = {v: k for k, v in _ENGINE_REASON.items()}


class KozelGame(EngineEdges[kozel.Match]):
    """Kozel for 2, 3 or 4 players: ``Game[kozel.Match, int, kozel.Options]``."""

    name: Final = "kozel"
    record_format: Final = kozel.FORMAT
    seats: Final = kozel.SEAT_COUNTS
    rating_kind: Final[RatingKind] = "kozel"
    #: The engine whose functions are the JSON and record edges (:class:`EngineEdges`).
    engine = kozel

    @property
    def live_play(self) -> KozelPlay:
        """What the play core needs beyond the interface: :class:`KozelPlay`."""
        return KozelPlay(self)

    # ----------------------------------------------------------------- options
    def parse_options(self, data: Mapping[str, object]) -> kozel.Options:
        # Each option is read alone first, so that an error names the one at fault (the
        # engine's error only says it in words); the options have no rule between them.
        for key in sorted(data):
            try:
                kozel.Options.from_json({key: data[key]})
            except kozel.BadOptions as exc:
                raise BadOptions(key, str(exc)) from None
        return kozel.Options.from_json(dict(data))

    def options_to_dict(self, options: kozel.Options) -> dict[str, Any]:
        # The record's form leaves the pair game to the record's ``sides``; a table's
        # options must keep it.
        return {**options.to_json(), "pairs": options.pairs}

    # ----------------------------------------------------------------- play
    def new_match(self, options: kozel.Options, seats: int, seeds: DealSeeds) -> kozel.Match:
        try:
            options.sides(seats)
        except kozel.BadOptions as exc:
            raise BadOptions("seats", str(exc)) from None
        if seeds.seats != seats:
            raise ValueError(f"one client seed per seat: {seats} needed, {seeds.seats} given")
        dealer = kozel.KozelFairDealer(seeds.server_seed, seeds.client_seeds)
        return kozel.Match(seats, options, dealer=dealer)

    def to_act(self, state: kozel.Match) -> tuple[int, ...]:
        return () if state.turn is None else (state.turn,)

    def legal_actions(self, state: kozel.Match, seat: int) -> tuple[int, ...]:
        return tuple(state.legal(seat))

    def apply(self, state: kozel.Match, seat: int, action: int) -> None:
        state.apply(action, seat)

    def forced_action(self, state: kozel.Match, seat: int) -> int | None:
        return state.forced_action(seat)

    def forfeit(self, state: kozel.Match, seat: int, reason: ForfeitReason) -> None:
        state.forfeit(seat, _ENGINE_REASON[reason])

    # ----------------------------------------------------------------- views
    def seat_view(self, state: kozel.Match, seat: int) -> dict[str, Any]:
        return kozel.view_to_json(kozel.seat_view(state, seat))

    def spectator_view(self, state: kozel.Match) -> dict[str, Any]:
        return kozel.view_to_json(kozel.spectator_view(state))

    # ----------------------------------------------------------------- results
    def hand_results(self, state: kozel.Match) -> tuple[HandOutcome, ...]:
        side_of = state.side_of
        outcomes: list[HandOutcome] = []
        for played in state.hands:
            result = played.result
            if result is None:
                continue
            out_side = side_of[result.by] if result.end == "out" else None
            outcomes.append(HandOutcome(
                number=played.number + 1,
                end=result.end,
                winners=tuple(p for p in range(state.seats) if side_of[p] == out_side),
                points=tuple(result.scored[side] for side in side_of),
                scores=tuple(played.score[side] for side in side_of),
            ))
        return tuple(outcomes)

    def is_over(self, state: kozel.Match) -> bool:
        return state.over

    def match_result(self, state: kozel.Match) -> MatchOutcome | None:
        if not state.over:
            return None
        side_of = state.side_of
        # Sides from best to worst; sides of equal standing (both козлы or neither, the same
        # score) share a place.
        places = groupby(state.standings(), key=lambda s: (s in state.losers, state.score[s]))
        ranking = tuple(
            tuple(p for p in range(state.seats) if side_of[p] in sides)
            for sides in (set(group) for _, group in places)
        )
        last = state.hands[-1].result
        reason = last.reason if last is not None and last.end == "forfeit" else None
        losers = tuple(p for p in range(state.seats) if side_of[p] in state.losers)
        return MatchOutcome(
            winners=() if set(ranking[0]) <= set(losers) else ranking[0],
            losers=losers,
            ranking=ranking,
            scores=tuple(state.seat_scores()),
            forfeit=None if reason is None else _REASON[reason],
        )


class KozelPlay(PlainPlay):
    """Kozel in the play core: :class:`~kva.games.live.PlainPlay`, but a bot decides from the
    engine's own :class:`kva.kozel.SeatView` (what :mod:`kva.bots.kozel` takes), not from its
    JSON."""

    def bot_view(self, state: kozel.Match, seat: int) -> kozel.SeatView:
        return kozel.seat_view(state, seat)


#: The one Kozel game kva registers.
KOZEL: Final = KozelGame()
