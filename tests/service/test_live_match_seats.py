"""The play core's live match at more than two seats, in memory (storing and playing one
over the socket is tests/web/test_test_game_ws.py): the tests' race game for three is dealt
from its seeds, each seat's state shows its own secret and a spectator's none, the clock runs
for each seat in turn, and the stored record of a game with no journal of its own resumes the
same match by replaying its log."""

from __future__ import annotations

import json
import random

from kva.games import live_play_of
from kva.service.play.clock import Clock
from kva.service.play.commit import advance_clock, encoded_state, record_of, state_message
from kva.service.play.events import action_source
from kva.service.play.live import FairState, LiveMatch, Seat
from kva.service.play.seeds import deal_if_ready
from kva.service.play.watchers import RemoteWatchers
from kva.status import MatchStatus
from tests.helpers.race_game import RACE


def _race_for_three() -> LiveMatch:
    seats = [Seat(1, "ana"), Seat(2, "beso"), Seat(bot="easy")]
    live = LiveMatch("m3", RACE, RACE.parse_options({"target": 6}), False, None, 1,
                     MatchStatus.ACTIVE, seats, "2026-12-04T00:00:00+00:00",
                     fair=FairState.new(seats),
                     clock=Clock.new("blitz", lambda: 0, seats=3))
    assert live.fair is not None
    for seat in range(3):
        live.fair.fill(seat)
    assert deal_if_ready(live)
    return live


def test_three_seats_are_dealt_and_each_sees_only_its_own_secret() -> None:
    live = _race_for_three()
    assert live.keys == ("0", "1", "2", "s")
    secrets = live.match.secrets
    for key in live.keys:
        seat = None if key == "s" else int(key)
        text = encoded_state(live, seat, None)
        assert json.loads(text) == state_message(live, seat, None)
        shown = {s for s in secrets if s in text}
        assert shown == (set() if seat is None else {secrets[seat]})


def test_each_seat_acts_in_turn_with_its_event_and_clock() -> None:
    live = _race_for_three()
    game, play, clock = live.game, live.play, live.clock
    assert clock is not None and clock.left == [clock.reserve_ms] * 3
    now = 0
    while game.to_act(live.match):
        seat = game.to_act(live.match)[0]
        advance_clock(live, clock, now)
        assert clock.seat == (seat if live.seats[seat].bot is None
                              and game.forced_action(live.match, seat) is None else None)
        action = game.legal_actions(live.match, seat)[-1]
        mark = play.mark(live.match)
        game.apply(live.match, seat, action)
        live.logged(seat, action)
        event = action_source(play, live.match, mark, seat, action)(None)
        assert event["p"] == seat and event["action"] == {"type": "add", "amount": action}
        now += 1000
    assert event["kind"] == "match_end" and live.over


def test_a_plain_games_record_resumes_the_same_match() -> None:
    live = _race_for_three()
    game = live.game
    for _ in range(3):
        seat = game.to_act(live.match)[0]
        action = game.legal_actions(live.match, seat)[0]
        game.apply(live.match, seat, action)
        live.logged(seat, action)
    record = record_of(live)
    assert record["meta"]["options"] == {"target": 6} and len(record["meta"]["log"]) == 3
    assert live.fair is not None
    resumed = live_play_of(game).resume(live.options, 3, record, live.fair.seeds(),
                                        random.Random(1))
    assert resumed == live.match


def test_a_plain_game_may_be_aborted_until_two_seats_have_acted() -> None:
    live = _race_for_three()
    game = live.game
    assert live.play.may_abort(live.match, live.log)
    for acted in (1, 2):
        seat = game.to_act(live.match)[0]
        action = game.legal_actions(live.match, seat)[0]
        game.apply(live.match, seat, action)
        live.logged(seat, action)
        assert live.play.may_abort(live.match, live.log) == (acted < 2)


def test_a_seat_has_chosen_once_it_acted_and_not_by_a_forfeit() -> None:
    """What presence asks before it times out a first move, answered from the kept log."""
    live = _race_for_three()
    game, play = live.game, live.play
    seat = game.to_act(live.match)[0]
    assert not play.has_chosen(live.match, live.log, seat)
    action = game.legal_actions(live.match, seat)[0]
    game.apply(live.match, seat, action)
    live.logged(seat, action)
    assert play.has_chosen(live.match, live.log, seat)
    other = game.to_act(live.match)[0]
    live.logged_forfeit(other, "abandon")
    assert not play.has_chosen(live.match, live.log, other)


def test_another_process_may_watch_any_seat_of_a_larger_match() -> None:
    watchers = RemoteWatchers()
    watchers.note("m3", "other", ["2", "s", "x", "99"], until=10.0)
    assert watchers.keys("m3", now=1.0) == {"2", "s"}
    watchers.grace("m4", until=10.0)
    assert {"0", "1", "2", "3", "s"} <= watchers.keys("m4", now=1.0)
