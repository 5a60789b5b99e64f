"""The state text the play service publishes (:func:`kva.service.play.commit.encoded_state`,
the view written from kept fragments) is exactly the plain encoding of the ``state`` message,
for random matches at random points, for both seats and a spectator. No database: the live
match is built here as the service holds it."""

from __future__ import annotations

import functools
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kva.games.georgian import GEORGIAN, GeorgianOptions
from kva.games.georgian_live import action_event
from kva.rules import BAZAAR_RULES, FORFEIT_REASONS, TARGETS, Match
from kva.service.play.commit import encode_state, encoded_state, state_message
from kva.service.play.events import EventSource, join_event, public, resign_event
from kva.service.play.live import FairState, LiveMatch, Seat


def check(live: LiveMatch, event: EventSource | None, extra: dict[str, Any] | None) -> None:
    for seat in (0, 1, None):
        text = encoded_state(live, seat, event, extra)
        message = state_message(live, seat, event, extra)
        assert text == encode_state(message)
        assert json.loads(text) == message


def _live(target: int, bazaar: Any, fair: bool, names: tuple[str, str]) -> LiveMatch:
    seats = [Seat(user_id=1, nickname=names[0]), Seat(user_id=2, nickname=names[1])]
    return LiveMatch(
        id="m1", game=GEORGIAN, options=GeorgianOptions(target, bazaar), rated=False,
        match=None, version=1,
        status="waiting", seats=[seats[0], Seat()], created_at="2026-01-01T00:00:00Z",
        fair=FairState.new(seats) if fair else None,
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    target=st.sampled_from(TARGETS),
    bazaar=st.sampled_from(BAZAAR_RULES),
    forfeit_at=st.none() | st.integers(0, 120),
    reason=st.sampled_from(FORFEIT_REASONS),
    every=st.integers(1, 9),
    fair=st.booleans(),
    names=st.tuples(st.text(min_size=1, max_size=8), st.text(min_size=1, max_size=8)),
    extra=st.none() | st.just({"ratings": [{"before": 1500, "after": 1516}]}),
)
def test_encoded_state_is_the_plain_encoding(
    seed: int, target: int, bazaar: Any, forfeit_at: int | None, reason: str, every: int,
    fair: bool, names: tuple[str, str], extra: dict[str, Any] | None,
) -> None:
    """From the table waiting for its player to the end of the match (won on points or
    forfeited), with each change's event, for every viewer."""
    live = _live(target, bazaar, fair, names)
    check(live, None, None)
    live.seats[1] = Seat(user_id=2, nickname=names[1])
    live.status = "active"
    live.version += 1
    check(live, public(join_event(1)), None)
    live.match = match = Match(target, bazaar, random.Random(seed))
    rng = random.Random(seed)
    steps = 0
    while not match.over:
        event: EventSource
        if forfeit_at is not None and steps >= forfeit_at:
            loser = rng.randrange(2)
            match.forfeit(loser, reason)  # type: ignore[arg-type]
            event = public(resign_event(match.winner, loser))
        else:
            hand = len(match.hands) - 1
            match.apply(rng.choice(match.legal_codes()))
            event = functools.partial(action_event, match, hand)
        steps += 1
        live.version += 1
        if match.over:
            live.status = "finished"
        if steps % every == 0 or match.over:
            check(live, event, extra if match.over else None)
    check(live, None, None)


def test_an_undealt_or_cancelled_table() -> None:
    live = _live(175, "pass-only", True, ("ნიკა", 'a"b\\c'))
    check(live, None, None)
    live.status = "cancelled"
    live.version += 1
    check(live, public({"kind": "cancelled"}), None)
