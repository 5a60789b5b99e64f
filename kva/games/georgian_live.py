"""The Georgian game's own answers to the play core (:class:`kva.games.live.LivePlay`).

The site's clients, its stored matches and its journal were built on the Georgian engine
before any other game existed, and they stay byte for byte what they were: a move of a match
that goes on is one compact journal change (:func:`change_of`), each viewer's event comes from
that viewer's own :class:`~kva.rules.PlayerView` (so a drawn tile reaches its drawer alone),
views are written as text from kept fragments (:class:`~kva.games.georgian_viewtext.ViewText`)
and a stored match resumes through :func:`kva.rules.read_record`. This module is where the
play core's Georgian detail lives; the core reaches it only through
:data:`kva.games.georgian.GEORGIAN`'s ``live_play``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, Protocol

from kva import rules
from kva.games.base import DealSeeds
from kva.games.georgian_viewtext import ViewText
from kva.games.live import Event, ViewWriter
from kva.rules.engine import TILE_NAME


class GeorgianOptions(Protocol):
    """A Georgian table's options, as :class:`kva.games.georgian.GeorgianOptions` holds them."""

    @property
    def target(self) -> int: ...

    @property
    def bazaar(self) -> rules.BazaarRule: ...

#: The board before anyone has played: what a table that is not dealt yet shows.
_EMPTY_BOARD: Final = rules.player_view(rules.Match(75, "draw", random.Random(0)), None).board


def undealt_view(target: int, bazaar: rules.BazaarRule, seat: int | None) -> rules.PlayerView:
    """The view of a table waiting for its second player: the settings, and no tile at all
    (nothing is dealt until the match starts)."""
    return rules.PlayerView(
        player=seat, target=target, bazaar=bazaar, scores=(0, 0),
        hand_number=1, turn=None, over=False, winner=None, forfeit_reason=None, hand=(),
        hand_counts=(0, 0), hand_points=(0, 0), drawable_count=0, out_of_play_count=0,
        drawn_count=0, pending=None, forced_opening=None, board=_EMPTY_BOARD, moves=(),
        legal=(), passes=0, last_placer=-1, last_nondouble_placer=-1, previous=(),
    )


def move_event(p: int, code: int, x: int, points: int, ends_sum: int) -> Event:
    """The full event of one log entry ``(player, code, x, points, ends_sum)``."""
    return rules.move_to_json((p, code, x, points, ends_sum))


def action_event(match: rules.Match, hand_index: int, view: rules.PlayerView) -> Event:
    """The event of the action just applied in hand ``hand_index`` of ``match``, as the viewer
    of ``view`` sees it: the move itself, wrapped as ``hand_end``/``match_end`` when it ended
    the hand or the match. A draw's tile is there only if the view's move shows it."""
    played = match.hands[hand_index]
    move = move_event(*played.state.log[-1])
    if move["kind"] == "draw":
        current = played is match.hands[-1] and len(view.moves) == len(played.state.log)
        seen = view.moves[-1] if current else rules.hand_moves(played, view.player)[-1]
        move = {k: v for k, v in move.items() if k != "tile"}
        if seen.tile is not None:
            move["tile"] = TILE_NAME[seen.tile]
    if played.result is None:
        return move
    result = played.result
    assert played.score_after is not None
    return {
        "kind": "match_end" if match.over else "hand_end",
        "p": move["p"],
        "move": move,
        "hand": hand_index + 1,
        "result": {
            "end": result.end,
            "winner": result.winner,
            "points": result.points,
            "score_after": list(played.score_after),
        },
    }


def change_of(match: rules.Match, hand_index: int | None) -> dict[str, Any]:
    """The journal change just made to ``match`` (:mod:`kva.storage.journal`): the move
    applied in hand ``hand_index`` (None: no move, a forfeit of the current hand), with the
    result, score and next deal it led to."""
    played = match.hands[-1 if hand_index is None else hand_index]
    change: dict[str, Any] = {}
    if hand_index is not None:
        change["m"] = rules.move_to_record(played.state.log[-1])
    result = rules.hand_result_record(played)
    if result is not None and played.score_after is not None:
        change["r"] = result
        change["s"] = list(played.score_after)
    if hand_index is not None and len(match.hands) > hand_index + 1:
        change["h"] = rules.hand_head_record(match.hands[-1])
    return change


def apply_change(record: dict[str, Any], change: dict[str, Any]) -> None:
    """Apply one journal change made by :func:`change_of` to a ``georgian-domino/1`` record
    in place (:func:`kva.storage.journal.assemble`): its move, the hand's result and score,
    the next hand's deal. Raises ValueError for a move or result with no hand to go to."""
    hands: list[dict[str, Any]] = record["hands"]
    if not hands and any(k in change for k in ("m", "r")):
        raise ValueError("a journal change with no hand to apply it to")
    if "m" in change:
        hands[-1]["moves"].append(change["m"])
    if "r" in change:
        hands[-1]["result"] = change["r"]
        hands[-1]["score"] = change["s"]
        record["score"] = list(change["s"])
    if "h" in change:
        hands.append({**change["h"], "moves": []})


def may_abort(match: rules.Match) -> bool:
    """Whether the match may still be aborted: it is in its first hand and at most one of the
    two players has made a move (played, drawn or passed) in it."""
    if len(match.hands) != 1:
        return False
    return len({entry[0] for entry in match.hands[0].state.log}) < 2


class GeorgianPlay:
    """:class:`~kva.games.live.LivePlay` of the Georgian game (see the module)."""

    journaled: Final = True

    def __init__(self, make_options: Callable[[int, rules.BazaarRule], GeorgianOptions]) -> None:
        #: Builds the game's options (the adapter's own type) from checked settings.
        self._make_options = make_options

    # ----------------------------------------------------------------- storage
    def options_from_stored(
        self, target: int, bazaar: str, record: Mapping[str, Any],
    ) -> GeorgianOptions:
        settings = rules.MatchSettings.parse(target, bazaar)
        return self._make_options(settings.target, settings.bazaar)

    def stored_columns(self, options: GeorgianOptions) -> tuple[int, str]:
        return options.target, options.bazaar

    def undealt_record(
        self, options: GeorgianOptions, players: list[dict[str, Any]], meta: dict[str, Any],
    ) -> dict[str, Any]:
        return {"format": rules.FORMAT, "target": options.target, "bazaar": options.bazaar,
                "players": players, "meta": meta, "hands": [], "winner": None,
                "score": [0, 0]}

    def record(
        self, state: rules.Match, options: GeorgianOptions, log: Sequence[Any],
        players: list[dict[str, Any]], meta: dict[str, Any],
    ) -> dict[str, Any]:
        return rules.write_record(state, players=players, meta=meta)

    def resume(
        self, options: GeorgianOptions, seats: int, record: Mapping[str, Any],
        seeds: DealSeeds | None, rng: random.Random,
    ) -> rules.Match:
        dealer = None if seeds is None else rules.FairDealer(seeds.server_seed,
                                                             seeds.client_seeds)
        return rules.read_record(record, complete=False, rng=rng, dealer=dealer)

    def dealt(self, record: Mapping[str, Any]) -> bool:
        return bool(record.get("hands"))

    def log_of(self, record: Mapping[str, Any]) -> list[Any]:
        return []  # the record itself holds every move

    def unseeded_match(
        self, options: GeorgianOptions, seats: int, rng: random.Random,
    ) -> rules.Match:
        return rules.Match(options.target, options.bazaar, rng)

    # ----------------------------------------------------------------- views
    def view(self, state: rules.Match, seat: int | None, *, active: bool) -> rules.PlayerView:
        view = rules.player_view(state, seat)
        if not active:
            view = replace(view, legal=())
        return view

    def undealt_view(
        self, options: GeorgianOptions, seats: int, seat: int | None,
    ) -> rules.PlayerView:
        return undealt_view(options.target, options.bazaar, seat)

    def view_json(self, view: rules.PlayerView) -> dict[str, Any]:
        return rules.view_to_json(view)

    def view_writer(self) -> ViewWriter:
        return ViewText()

    def bot_view(self, state: rules.Match, seat: int) -> rules.PlayerView:
        return rules.player_view(state, seat)

    # ----------------------------------------------------------------- changes
    def mark(self, state: rules.Match) -> int:
        return len(state.hands) - 1

    def action_event(
        self, state: rules.Match, mark: int, seat: int, action: int, view: rules.PlayerView,
    ) -> Event:
        return action_event(state, mark, view)

    def change(self, state: rules.Match, mark: int | None) -> dict[str, Any]:
        return change_of(state, mark)

    def apply_change(self, record: dict[str, Any], change: dict[str, Any]) -> None:
        apply_change(record, change)

    def new_hand(self, state: rules.Match, mark: int) -> bool:
        return len(state.hands) - 1 > mark

    def may_abort(self, state: rules.Match, log: Sequence[Any]) -> bool:
        return may_abort(state)  # the match's own log of moves says it

    def has_chosen(self, state: rules.Match, log: Sequence[Any], seat: int) -> bool:
        # an opening or a play: draws and passes are applied by the server when forced
        return any(entry[0] == seat and entry[1] not in (rules.DRAW, rules.PASS)
                   for hand in state.hands for entry in hand.state.log)
