"""Properties over random self-play: a seeded random player picks among the legal codes."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kva.rules import (
    DRAW,
    PASS,
    IllegalAction,
    Match,
    action_from_json,
    action_to_json,
    dumps_record,
    load_record_text,
    player_view,
    read_record,
    verify_record,
    write_record,
)
from kva.rules.codes import OPEN_BASE
from kva.rules.engine import HandState, determinize
from kva.rules.match import PlayedHand, highest_double
from kva.rules.tiles import (
    ALL_TILES,
    IS_DOUBLE,
    TILE_BIT,
    TILE_NAME,
    TOTAL_PIPS,
    mask_of,
    pips_of,
    round_up_to_five,
    tiles_of,
)
from kva.rules.view import _summarize, board_view, hand_moves
from kva.rules.view_json import view_to_json
from tests.rules.ruleshelp import random_match

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
BAZAAR = st.sampled_from(["draw", "pass-only"])
TARGET = st.sampled_from([75, 175])
FAST = settings(max_examples=100, deadline=None)


def _steps(seed: int, bazaar: str, target: int = 75) -> Iterator[Match]:
    """Yield the match before every action and once at the end."""
    chooser = random.Random(seed ^ 0x5EED)
    match = Match(target, bazaar, random.Random(seed))  # type: ignore[arg-type]
    while not match.over:
        yield match
        match.apply(chooser.choice(match.legal_codes()), player=match.turn)
    yield match


def _placed(code: int) -> int | None:
    if code >= DRAW:
        return None
    return (code - OPEN_BASE) >> 1 if code >= OPEN_BASE else code >> 2


def _board_mask(state: HandState) -> int:
    board = 0
    for _, code, *_ in state.log:
        tile = _placed(code)
        if tile is not None:
            assert not board & TILE_BIT[tile], "a tile placed twice"
            board |= TILE_BIT[tile]
    return board


# ------------------------------------------------------------------ conservation
@FAST
@given(seed=SEEDS, bazaar=BAZAAR)
def test_28_tiles_and_168_pips_are_conserved_at_every_step(seed: int, bazaar: str) -> None:
    for match in _steps(seed, bazaar):
        state = match.hand
        board = _board_mask(state)
        rest = mask_of(state.bazaar[state.draw_pos :])
        parts = [state.hands[0], state.hands[1], board, rest]
        assert sum(part.bit_count() for part in parts) == 28
        assert parts[0] | parts[1] | board | rest == ALL_TILES
        assert sum(pips_of(part) for part in parts) == TOTAL_PIPS
        assert state.pips == [pips_of(state.hands[0]), pips_of(state.hands[1])]
        # The protected tiles never leave the bazaar; nobody draws under pass only.
        assert state.draw_pos <= 12
        assert rest & mask_of(state.bazaar[12:]) == mask_of(state.bazaar[12:])
        if bazaar == "pass-only":
            assert state.draw_pos == 0


# ------------------------------------------------------------------ scores
@FAST
@given(seed=SEEDS, bazaar=BAZAAR, target=TARGET)
def test_every_score_is_a_multiple_of_five(seed: int, bazaar: str, target: int) -> None:
    match = random_match(seed, target, bazaar)
    before = (0, 0)
    for played in match.hands:
        state = played.state
        for _, code, _, points, ends_sum in state.log:
            assert points % 5 == 0 and 0 <= points <= 35
            if code < OPEN_BASE:
                assert points == (ends_sum if ends_sum % 5 == 0 and ends_sum <= 35 else 0)
        assert state.end_points % 5 == 0
        assert played.result is not None and played.score_after is not None
        gained = list(state.points)
        if played.result.winner is not None and played.result.end != "forfeit":
            gained[played.result.winner] += played.result.points
        assert played.score_after == (before[0] + gained[0], before[1] + gained[1])
        assert all(score % 5 == 0 for score in played.score_after)
        before = played.score_after
    assert match.scores[0] % 5 == 0 and match.scores[1] % 5 == 0


@FAST
@given(seed=SEEDS, bazaar=BAZAAR)
def test_hand_end_points_follow_the_domino_and_fish_rules(seed: int, bazaar: str) -> None:
    match = random_match(seed, 75, bazaar)
    for played in match.hands:
        state = played.state
        assert state.over and played.result is not None
        if state.end == "domino":
            assert state.winner is not None and state.hands[state.winner] == 0
            loser = state.hands[1 - state.winner]
            expected = 10 if loser == TILE_BIT[0] else round_up_to_five(pips_of(loser))
            assert state.end_points == expected
        else:
            assert state.end == "fish" and state.hands[0] and state.hands[1]
            available = state.hands[0] | state.hands[1]
            if bazaar == "draw":
                available |= mask_of(state.bazaar[state.draw_pos : 12])
            assert not available & _asked_tiles(state)
            a, b = pips_of(state.hands[0]), pips_of(state.hands[1])
            if a == b:
                assert state.winner is None and state.end_points == 0
            else:
                assert state.winner == (0 if a < b else 1)
                assert state.end_points == round_up_to_five(max(a, b))


def _asked_tiles(state: HandState) -> int:
    from kva.rules.tiles import NUMBER_MASK

    asked = 0
    for n in state.ask:
        if n >= 0:
            asked |= NUMBER_MASK[n]
    return asked


@FAST
@given(seed=SEEDS, bazaar=BAZAAR)
def test_openers_follow_the_rules_in_every_hand(seed: int, bazaar: str) -> None:
    match = random_match(seed, 175, bazaar)
    first = match.hands[0]
    found = highest_double(first.deal)
    assert found is not None
    double, holder = found
    assert first.opener == holder and first.state.log[0][:2] == (holder, OPEN_BASE + 2 * double)
    for previous, played in zip(match.hands, match.hands[1:], strict=False):
        assert previous.result is not None
        if previous.result.end == "domino":
            expected = previous.result.winner
        else:
            placers = [(p, _placed(code)) for p, code, *_ in previous.state.log if code < DRAW]
            nondouble = [p for p, tile in placers if tile is not None and not IS_DOUBLE[tile]]
            expected = nondouble[-1] if nondouble else placers[-1][0]
        assert played.opener == expected == played.state.log[0][0]


# ------------------------------------------------------------------ records
@FAST
@given(seed=SEEDS, bazaar=BAZAAR, target=TARGET)
def test_every_self_played_record_verifies(seed: int, bazaar: str, target: int) -> None:
    match = random_match(seed, target, bazaar)
    doc = write_record(match)
    replayed = verify_record(doc)
    assert replayed.scores == match.scores and replayed.winner == match.winner
    assert doc["score"] == match.scores and doc["winner"] == match.winner


@FAST
@given(seed=SEEDS, bazaar=BAZAAR)
def test_a_record_round_trips_write_json_read_write_unchanged(seed: int, bazaar: str) -> None:
    doc = write_record(random_match(seed, 75, bazaar), meta={"seed": seed})
    text = dumps_record(doc)
    again = write_record(read_record(load_record_text(text)), meta={"seed": seed})
    assert again == doc
    assert dumps_record(again) == text
    assert json.loads(text) == doc


@FAST
@given(seed=SEEDS, bazaar=BAZAAR, cut=st.integers(min_value=0, max_value=400))
def test_a_record_in_progress_reads_back_unchanged(seed: int, bazaar: str, cut: int) -> None:
    chooser = random.Random(seed)
    match = Match(175, bazaar, random.Random(seed))  # type: ignore[arg-type]
    for _ in range(cut):
        if match.over:
            break
        match.apply(chooser.choice(match.legal_codes()))
    doc = write_record(match)
    again = read_record(doc, complete=match.over, rng=random.Random(0))
    assert write_record(again) == doc


# ------------------------------------------------------------------ views
def _tile_names(value: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(value, str) and value in TILE_NAME:
        names.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            # Finished hands are revealed, their final board with them; the first hand's forced
            # opening double is public by the rules (whoever opens must hold it and plays it).
            if key not in ("previous", "last_board", "forced_opening"):
                names |= _tile_names(item)
    elif isinstance(value, list):
        for item in value:
            names |= _tile_names(item)
    return names


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, bazaar=BAZAAR)
def test_a_players_view_never_shows_the_opponents_tiles_or_the_undrawn_bazaar(
    seed: int, bazaar: str
) -> None:
    for match in _steps(seed, bazaar):
        if match.over:
            break
        state = match.hand
        undrawn = mask_of(state.bazaar[state.draw_pos :])
        for me in (0, 1):
            hidden = state.hands[1 - me] | undrawn
            view = player_view(match, me)
            assert mask_of(view.hand) == state.hands[me]
            assert view.unseen() == hidden
            assert view.hand_counts == (state.hands[0].bit_count(), state.hands[1].bit_count())
            for move in view.moves:
                if move.tile is not None:
                    assert not TILE_BIT[move.tile] & hidden
                    assert move.kind != "draw" or move.player == me
            if view.pending is not None:
                assert TILE_BIT[view.pending] & state.hands[me]
            for code in view.legal:
                tile = _placed(code)
                assert tile is None or TILE_BIT[tile] & state.hands[me]
            data = view_to_json(view)
            if data["forced_opening"] is not None:
                found = highest_double(match.hands[0].deal)
                assert len(match.hands) == 1 and found is not None and state.placed == 0
                assert data["forced_opening"] == TILE_NAME[found[0]] and state.turn == found[1]
            shown = _tile_names(data)
            hidden_names = {TILE_NAME[x] for x in tiles_of(hidden)}
            assert not shown & hidden_names, f"player {me} sees {shown & hidden_names}"
        spectator = view_to_json(player_view(match, None))
        assert spectator["hand"] == [] and spectator["legal"] == []
        assert not _tile_names(spectator) & {
            TILE_NAME[x] for x in tiles_of(state.hands[0] | state.hands[1] | undrawn)
        }


def _same_future(real: HandState, guess: HandState, chooser: random.Random) -> None:
    while True:
        assert guess.legal_codes() == real.legal_codes()
        assert guess.ends_sum() == real.ends_sum()
        assert guess.points == real.points and guess.turn == real.turn
        assert (guess.over, guess.end, guess.winner, guess.end_points) == (
            real.over,
            real.end,
            real.winner,
            real.end_points,
        )
        if real.over:
            assert guess.next_opener() == real.next_opener()
            return
        code = chooser.choice(real.legal_codes())
        real.apply(code)
        guess.apply(code)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, bazaar=BAZAAR)
def test_determinize_with_the_true_hidden_tiles_reproduces_the_real_state(
    seed: int, bazaar: str
) -> None:
    chooser = random.Random(seed)
    for step, match in enumerate(_steps(seed, bazaar)):
        if match.over:
            break
        state = match.hand
        for me in (0, 1):
            view = player_view(match, me)
            guess = determinize(view, state.hands[1 - me], list(state.bazaar[state.draw_pos :]))
            assert guess.legal_codes() == state.legal_codes()
            assert guess.ends_sum() == state.ends_sum()
            if me == state.turn:
                assert list(view.legal) == state.legal_codes()
            if step % 5 == 0:
                _same_future(state.copy(), guess, random.Random(chooser.random()))


def test_self_play_reaches_draws_passes_fish_and_domino() -> None:
    """The properties above see every kind of action and ending (a guard on the generator)."""
    kinds: set[str] = set()
    for seed in range(40):
        for bazaar in ("draw", "pass-only"):
            match = random_match(seed, 75, bazaar)
            for played in match.hands:
                for _, code, *_ in played.state.log:
                    kinds.add({DRAW: "draw", PASS: "pass"}.get(code, "place"))
                assert played.result is not None
                kinds.add(played.result.end)
                if played.result.winner is None:
                    kinds.add("drawn fish")
    assert kinds >= {"draw", "pass", "place", "fish", "domino", "drawn fish"}


ALL_CODES = [*range(OPEN_BASE + 2 * 28), DRAW, PASS]


def _snapshot(state: HandState) -> tuple[Any, ...]:
    return tuple(
        list(value) if isinstance(value, list) else value
        for value in (getattr(state, name) for name in HandState.__slots__)
    )


@FAST
@given(seed=SEEDS, bazaar=BAZAAR)
def test_an_illegal_action_is_refused_and_changes_nothing(seed: int, bazaar: str) -> None:
    probe = random.Random(seed)
    for match in _steps(seed, bazaar):
        if match.over:
            break
        state = match.hand
        legal = set(state.legal_codes())
        # legal_codes lists each opening once; the same tile written the other way is legal too.
        legal |= {code + 1 for code in legal if OPEN_BASE <= code < DRAW}
        before = _snapshot(state)
        for code in probe.sample(ALL_CODES, 12):
            if code in legal:
                continue
            try:
                state.apply(code)
            except IllegalAction as exc:
                assert str(exc)
            else:
                raise AssertionError(f"illegal code {code} was applied")
            assert _snapshot(state) == before


@FAST
@given(seed=SEEDS, bazaar=BAZAAR)
def test_every_legal_action_survives_its_json_form(seed: int, bazaar: str) -> None:
    for match in _steps(seed, bazaar):
        legal = match.legal_codes()
        for code in legal:
            assert action_from_json(action_to_json(code), legal) == code
        with pytest.raises(IllegalAction):
            action_from_json({"type": "play", "tile": "6-6", "end": "Q"}, legal)


def _fresh_moves(played: PlayedHand, viewer: int | None, reveal: bool) -> object:
    """``hand_moves`` computed from nothing: the hand's public log forgotten first."""
    kept, played.public = played.public, None
    try:
        return hand_moves(played, viewer, reveal_draws=reveal)
    finally:
        played.public = kept


@given(SEEDS, BAZAAR)
@FAST
def test_the_kept_public_log_matches_a_replay_from_the_deal(seed: int, bazaar: str) -> None:
    """hand_moves keeps its replay between calls (and views keep finished hands'
    summaries); asked after every action, for every viewer (and the revealed replay), it says
    what a replay from the deal says."""
    for match in _steps(seed, bazaar):
        for played in match.hands:
            for viewer, reveal in ((0, False), (1, False), (None, False), (None, True)):
                kept = hand_moves(played, viewer, reveal_draws=reveal)
                assert kept == _fresh_moves(played, viewer, reveal)
        finished = [(i + 1, h) for i, h in enumerate(match.hands) if h.result is not None]
        assert player_view(match, 0).previous == tuple(_summarize(n, h) for n, h in finished)


def _a_hand_that_could_have_gone_another_way(
        *, plays_only: bool) -> tuple[Match, PlayedHand, HandState, list[int]]:
    """A match, its current hand, a state of that hand replayed up to (not with) its last
    action, and the other actions (only plays, if ``plays_only``) that state allows there."""
    match = Match(75, "draw", random.Random(11))
    chooser = random.Random(3)
    while True:
        match.apply(chooser.choice(match.legal_codes()))
        played = match.hands[-1]
        log = played.state.log
        if len(log) >= 4 and not played.state.over:
            branch = HandState.from_deal(played.deal, played.opener,
                                         forced_opening=played.state.forced_opening)
            for entry in log[:-1]:
                branch.apply_unchecked(entry[1])
            others = [c for c in branch.legal_codes()
                      if c != log[-1][1] and (c < OPEN_BASE or not plays_only)]
            if others:
                return match, played, branch, others


@given(SEEDS, BAZAAR)
@FAST
def test_the_kept_board_is_the_board_of_the_state_now_and_shared_by_every_viewer(
        seed: int, bazaar: str) -> None:
    """Views keep the current hand's board with its public log: after every action it is the
    board made afresh from the state, and one object for both players and the spectators."""
    for match in _steps(seed, bazaar):
        views = [player_view(match, viewer) for viewer in (0, 1, None)]
        assert views[0].board == board_view(match.hands[-1].state)
        assert views[1].board is views[0].board and views[2].board is views[0].board


def test_a_board_left_behind_by_another_state_is_made_again() -> None:
    """A hand whose state was replaced by one of the same log length gets its own board."""
    match, played, branch, others = _a_hand_that_could_have_gone_another_way(plays_only=True)
    before = player_view(match, 0).board
    branch.apply_unchecked(others[0])
    played.state = branch
    after = player_view(match, 0).board
    assert after == board_view(branch) and after != before


def test_a_public_log_left_behind_by_another_state_starts_again() -> None:
    """A hand whose state was replaced by one that went another way at the last action (a log
    of the same length) is replayed afresh."""
    _match, played, branch, others = _a_hand_that_could_have_gone_another_way(plays_only=False)
    before = hand_moves(played, 0)
    branch.apply_unchecked(others[0])
    played.state = branch
    after = hand_moves(played, 0)
    assert len(after) == len(before)
    assert after != before
    assert after == _fresh_moves(played, 0, False)


def test_a_match_and_its_views_leave_no_cyclic_garbage() -> None:
    """Views keep their moves with each hand (PublicLog) without a reference back, so a
    finished match is freed by reference counting: nothing for the garbage collector, whose
    pauses grow with what it must walk (docs/performance.md)."""
    import gc

    gc.collect()
    gc.disable()
    try:
        for seed in range(5):
            match = Match(75, "draw", random.Random(seed))
            chooser = random.Random(seed)
            while not match.over:
                player_view(match, 0)
                player_view(match, None)
                hand_moves(match.hands[-1], 1, reveal_draws=True)
                match.apply(chooser.choice(match.legal_codes()))
            del match
        assert gc.collect() == 0
    finally:
        gc.enable()
