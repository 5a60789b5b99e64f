"""The view as text (:class:`kva.games.georgian_viewtext.ViewText`) is exactly the plain encoding
of its dict form: the play service sends it to every viewer after every action, so one byte
off is a client that reads something else than the contract says."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kva.games.georgian_viewtext import ViewText
from kva.rules import Match, PlayerView, player_view
from kva.rules.match import FORFEIT_REASONS
from kva.rules.settings import BAZAAR_RULES, TARGETS
from kva.rules.view_json import view_to_json


def plain(view: PlayerView) -> str:
    """The text the play service would write for ``view`` the plain way."""
    return json.dumps(view_to_json(view), ensure_ascii=False, separators=(",", ":"))


#: One writer for every view in this module, as one match's writer sees all of its views (and
#: here views of many matches too: what it keeps must never be taken for another view's).
WRITER = ViewText()


def view_json_text(view: PlayerView) -> str:
    return WRITER.text(view)


def check(view: PlayerView) -> None:
    text = view_json_text(view)
    assert text == plain(view)
    assert json.loads(text) == view_to_json(view)


def views(match: Match) -> Iterator[PlayerView]:
    """Every viewer's view of ``match`` now, and the players' views with no legal action (as
    the service shows a match that is not active)."""
    for seat in (0, 1, None):
        view = player_view(match, seat)
        yield view
        if view.legal:
            yield replace(view, legal=())


def played(seed: int, target: int, bazaar: Any, forfeit_at: int | None,
           reason: str) -> Iterator[Match]:
    """A random match, yielded after every action (and once dealt); forfeited by a random
    player after ``forfeit_at`` actions if that comes first."""
    rng = random.Random(seed)
    match = Match(target, bazaar, random.Random(seed))
    yield match
    steps = 0
    while not match.over:
        if forfeit_at is not None and steps >= forfeit_at:
            match.forfeit(rng.randrange(2), reason)  # type: ignore[arg-type]
        else:
            match.apply(rng.choice(match.legal_codes()))
        steps += 1
        yield match


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    target=st.sampled_from(TARGETS),
    bazaar=st.sampled_from(BAZAAR_RULES),
    forfeit_at=st.none() | st.integers(0, 150),
    reason=st.sampled_from(FORFEIT_REASONS),
    every=st.integers(1, 7),
    order=st.permutations([0, 1, 2]),
)
def test_view_text_is_the_plain_encoding(
    seed: int, target: int, bazaar: Any, forfeit_at: int | None, reason: str, every: int,
    order: list[int],
) -> None:
    """At points of random matches (every target and bazaar rule, forfeits), for both seats
    and a spectator, in any order (the board's text is kept between views)."""
    for step, match in enumerate(played(seed, target, bazaar, forfeit_at, reason)):
        if step % every == 0 or match.over:
            all_views = list(views(match))
            for i in order:
                for view in all_views[i::3]:
                    check(view)


def test_interleaved_matches_never_share_a_text() -> None:
    """Views of two matches in turn (the kept board of one must never stand for the other's),
    and the cases the fast path has tables for: a stavka open and closed, a pending draw, a
    forced opening, finished hands, the end of the match."""
    seen: dict[str, bool] = dict.fromkeys(
        ["stavka", "closed", "pending", "forced", "previous", "over", "pass-only"], False)
    matches = [
        played(seed, TARGETS[seed % 4], BAZAAR_RULES[seed % 2], None, "resign")
        for seed in range(12)
    ]
    for pair in zip(matches[0::2], matches[1::2], strict=True):
        for a, b in zip(*pair, strict=False):
            for match in (a, b, a):
                for view in views(match):
                    check(view)
                    seen["stavka"] |= view.board.stavka >= 0
                    seen["closed"] |= view.board.stavka_closed
                    seen["pending"] |= view.pending is not None
                    seen["forced"] |= view.forced_opening is not None
                    seen["previous"] |= len(view.previous) > 1
                    seen["over"] |= view.over
                    seen["pass-only"] |= view.bazaar == "pass-only"
    assert all(seen.values()), seen


def test_a_view_the_tables_do_not_cover_is_encoded_the_plain_way() -> None:
    """Data no engine makes (a tile on a half it lacks, a code with no action, a stavka of no
    number) gives the plain text, or the plain error, never a different text."""
    match = Match(75, "draw", random.Random(1))
    view = player_view(match, match.turn)
    board = view.board
    odd = [
        replace(view, board=replace(board, lines=(((27, 3),), (), (), ()))),
        replace(view, board=replace(board, stavka=-2, lines=(((0, 0),), (), (), ()))),
        replace(view, board=replace(board, stavka=9)),
        replace(view, legal=(199,)),
        replace(view, legal=(-1,)),
    ]
    for case in odd:
        try:
            expected = plain(case)
        except Exception as error:  # noqa: BLE001 - the same error either way
            with pytest.raises(type(error)):
                view_json_text(case)
        else:
            assert view_json_text(case) == expected


def test_a_kept_text_is_used_only_for_the_very_move_it_was_written_for() -> None:
    """Each move and finished hand is written once while its hand is played and its text
    kept for the next views; an equal copy or a changed copy (``dataclasses.replace``) is
    written afresh, never read from another move's kept text."""
    match = next(m for m in played(3, 75, "draw", None, "resign")
                 if len(m.hands) > 1 and len(player_view(m, 0).moves) > 2)
    writer = ViewText()
    view = player_view(match, 0)
    assert writer.text(view) == plain(view)
    move, summary = view.moves[1], view.previous[0]
    other = replace(move, points=move.points + 5)
    changed = replace(view, moves=(other,), previous=(replace(summary, points=99),))
    assert writer.text(changed) == plain(changed)
    assert writer.text(view) == plain(view)
    assert player_view(match, 0).moves is view.moves  # no new action: the same moves
