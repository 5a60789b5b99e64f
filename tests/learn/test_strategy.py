"""The strategy guide's worked positions say what the engine does, and the counting aid counts
from the player's own view only."""

from __future__ import annotations

import random

import pytest

from kva.learn.counting import aid_allowed, unseen_by_number
from kva.learn.positions import parse_action
from kva.learn.strategy import BY_SLUG, EXAMPLES
from kva.rules import DRAW, Match, parse_tile, player_view
from kva.rules.engine import TILE_BIT, TILE_HIGH, TILE_LOW, TILE_PIPS, HandState


def _pips(mask: int) -> int:
    return sum(TILE_PIPS[t] for t in range(28) if mask & TILE_BIT[t])


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.move], ids=lambda e: e.slug)
def test_each_recommended_move_is_legal_and_scores_what_the_text_says(example) -> None:  # type: ignore[no-untyped-def]
    before = example.position.state()
    assert before.turn == 0
    code = parse_action(example.move, before)
    assert code in before.legal_codes()
    after = before.copy()
    after.apply(code)
    assert after.points[0] - before.points[0] == example.points
    assert after.end == example.end
    if example.end is not None:
        assert after.winner == 0 and after.end_points == example.end_points


def test_the_guides_claims() -> None:
    # Count: three of the seven 6s are unseen (0-6, 4-6, 5-6).
    count = BY_SLUG["count"].position
    assert unseen_by_number(count.view())[6] == 3
    # Block: before the opponent's draws the ends asked 0, 2 and 5; after 2-6 U they ask
    # 0, 2, 2, 5, and the opponent really holds none of them.
    block = BY_SLUG["block"]
    state = block.position.state()
    replay = HandState.from_deal(block.position.deal(), block.position.opener)
    log = state.log
    assert [e[1] for e in log[-3:-1]] == [DRAW, DRAW] and log[-1][0] == 1
    last_me = max(i for i in range(len(log) - 1) if log[i][0] == 0)
    for entry in log[: last_me + 1]:
        replay.apply_unchecked(entry[1])
    assert {n for n in replay.ask if n >= 0} == {0, 2, 5}
    after = block.after()
    assert sorted(n for n in after.ask if n >= 0) == [0, 2, 2, 5]
    assert not after.hands[1] & after.ends_mask
    # Score first: 5-5 on the left would score nothing.
    sf = BY_SLUG["score_first"].position.state()
    alt = sf.copy()
    alt.apply(parse_action("5-5 L", sf))
    assert alt.points[0] == sf.points[0]
    # Fish: 26 pips against 42.
    fish = BY_SLUG["fish"].after()
    assert (_pips(fish.hands[0]), _pips(fish.hands[1])) == (26, 42)
    assert parse_tile("1-3") >= 0


def test_counting_aid_counts_the_players_own_view_only() -> None:
    rng = random.Random(5)
    for seed in range(20):
        match = Match(target=75, rng=random.Random(seed))
        while not match.over:
            view = player_view(match, match.turn)
            seen = set(view.hand)
            for m in view.moves:
                if m.kind in ("open", "play") and m.tile is not None:
                    seen.add(m.tile)
            expected = [sum(1 for t in range(28) if t not in seen
                            and n in (TILE_LOW[t], TILE_HIGH[t])) for n in range(7)]
            assert unseen_by_number(view) == expected
            match.apply(rng.choice(match.legal_codes()))
    assert aid_allowed(rated=False) and not aid_allowed(rated=True)
