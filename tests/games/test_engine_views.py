"""The adapters' views are the engines' own JSON views, byte for byte: the play service can
move onto :class:`kva.games.Game` without a client seeing one byte change."""

from __future__ import annotations

import json
import random

from kva import kozel, rules
from kva.games import DealSeeds, get

#: How the play service encodes a state (kva/service/play/viewtext.py's ``encode_json``).
encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def test_the_georgian_views_are_kva_rules_view_to_json_byte_for_byte() -> None:
    game = get("georgian")
    match = game.new_match(game.parse_options({"target": 75}), 2,
                           DealSeeds.from_rng(random.Random(3), 2))
    chooser = random.Random(4)
    positions = 0
    while game.to_act(match):
        for seat in (0, 1):
            assert encode(game.seat_view(match, seat)) == encode(
                rules.view_to_json(rules.player_view(match, seat)))
        assert encode(game.spectator_view(match)) == encode(
            rules.view_to_json(rules.player_view(match, None)))
        seat = game.to_act(match)[0]
        game.apply(match, seat, chooser.choice(game.legal_actions(match, seat)))
        positions += 1
    assert positions > 20
    assert encode(game.seat_view(match, 0)) == encode(
        rules.view_to_json(rules.player_view(match, 0)))


def test_the_georgian_actions_are_kva_rules_own() -> None:
    game = get("georgian")
    match = game.new_match(game.parse_options({}), 2, DealSeeds.from_rng(random.Random(5), 2))
    seat = game.to_act(match)[0]
    legal = game.legal_actions(match, seat)
    assert list(legal) == match.legal_codes()
    assert [game.action_to_json(a) for a in legal] == [rules.action_to_json(a) for a in legal]
    assert game.write_record(match) == rules.write_record(match)


def test_the_kozel_views_are_kva_kozel_view_to_json_byte_for_byte() -> None:
    game = get("kozel")
    match = game.new_match(game.parse_options({"fish": "one", "pairs": True}), 4,
                           DealSeeds.from_rng(random.Random(6), 4))
    chooser = random.Random(7)
    while game.to_act(match):
        for seat in range(4):
            assert encode(game.seat_view(match, seat)) == encode(
                kozel.view_to_json(kozel.seat_view(match, seat)))
        assert encode(game.spectator_view(match)) == encode(
            kozel.view_to_json(kozel.spectator_view(match)))
        seat = game.to_act(match)[0]
        game.apply(match, seat, chooser.choice(game.legal_actions(match, seat)))
    result = game.match_result(match)
    assert result is not None
    # Partners share their pair's score and their place.
    assert result.scores[0] == result.scores[2] and result.scores[1] == result.scores[3]
    assert {0, 2} <= set(result.losers) or {1, 3} <= set(result.losers)


def test_the_forced_actions_are_the_ones_the_play_service_plays() -> None:
    """The Georgian game: a lone draw or pass (kva/service/play/turns.py); Kozel: the
    engine's own forced draw or knock."""
    for name, seats, seed in (("georgian", 2, 8), ("kozel", 3, 9)):
        game = get(name)
        match = game.new_match(game.parse_options({}), seats,
                               DealSeeds.from_rng(random.Random(seed), seats))
        chooser = random.Random(seed)
        forced = 0
        while game.to_act(match):
            seat = game.to_act(match)[0]
            legal = game.legal_actions(match, seat)
            if name == "georgian":
                expected = legal[0] if list(legal) in ([rules.DRAW], [rules.PASS]) else None
            else:
                expected = match.forced_action(seat)
            assert game.forced_action(match, seat) == expected
            forced += expected is not None
            game.apply(match, seat, chooser.choice(legal))
        assert forced > 0
