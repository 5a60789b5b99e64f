"""Leaving over the WebSocket: the opponent is told at once (with the grace period's
countdown), a claim too early is refused, a claim after it wins by abandonment, a returning
player is announced, and a player who never moves loses on time."""

from __future__ import annotations

import asyncio

from tests.helpers.community_help import make_user, next_message, signed_in, store_match


def _presence(seat: int, online: bool):  # type: ignore[no-untyped-def]
    return lambda m: (m.get("type") == "presence" and m["seat"] == seat
                      and m["online"] is online)


async def test_disconnect_countdown_then_claim_wins_by_abandonment(
        make_server, database, sessions) -> None:
    server = make_server(disconnect_grace=0.6)
    a, b = await make_user(sessions), await make_user(sessions)
    match_id = await store_match(database, [(a, None), (b, None)], rated=True)
    va, vb = await signed_in(server.base_url, a), await signed_in(server.base_url, b)
    sa, sb = await va.connect(match_id), await vb.connect(match_id)
    await sa.expect_error({"type": "claim_win"}, "illegal")  # b is here
    count = len(sa.messages)
    await sb.close()
    away = await next_message(sa, count, _presence(1, False))
    assert 0 < away["claim_in"] <= 0.6
    await sa.expect_error({"type": "claim_win"}, "illegal")  # too early
    # b comes back: a hears it; b leaves again.
    count = len(sa.messages)
    sb = await vb.connect(match_id)
    await next_message(sa, count, _presence(1, True))
    count = len(sa.messages)
    await sb.close()
    await next_message(sa, count, _presence(1, False))
    # A hello during the grace period tells how long is left.
    count = len(sa.messages)
    await sa.send({"type": "hello", "version": 0})
    told = await next_message(sa, count, _presence(1, False))
    assert told["claim_in"] <= 0.6
    await asyncio.sleep(0.7)
    await sa.send({"type": "claim_win"})
    end = await sa.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
    assert end["event"]["kind"] == "forfeit" and end["event"]["reason"] == "abandon"
    assert end["view"]["winner"] == 0 and end["view"]["forfeit_reason"] == "abandon"
    assert end["event"]["ratings"][0]["after"] > 1500
    await sa.close()
    await va.__aexit__(None, None, None)
    await vb.__aexit__(None, None, None)


async def test_a_player_who_never_moves_loses_on_time(make_server, database, sessions) -> None:
    server = make_server(first_move_timeout=0.5)
    a, b = await make_user(sessions), await make_user(sessions)
    match_id = await store_match(database, [(a, None), (b, None)], first_move_timeout=0.5)
    va = await signed_in(server.base_url, a)
    sa = await va.connect(match_id)  # the server learns of the match and deals it
    end = await sa.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"], 10.0)
    # The opener is the one the hand's record names: on a busy machine the limit may pass
    # before the socket is told the dealt state, so no state with a player on turn may come.
    opener = end["view"]["previous"][-1]["opener"]
    assert end["view"]["previous"][-1]["reason"] == "timeout"
    assert end["event"] == {"kind": "forfeit", "p": opener, "reason": "timeout",
                            "winner": 1 - opener}
    await sa.close()
    await va.__aexit__(None, None, None)
