"""Rematch over the WebSocket: the four client messages, the ``rematch`` message every viewer
gets, both players taken to the new match, and refusals as ``error`` frames."""

from __future__ import annotations

from tests.helpers.community_help import (
    finished_match,
    make_user,
    next_message,
    signed_in,
    store_match,
)


def _rematch(state: str):  # type: ignore[no-untyped-def]
    return lambda m: m.get("type") == "rematch" and m.get("state") == state


async def test_offer_accept_over_the_socket_takes_both_players_to_the_new_match(
    make_server, sessions
) -> None:
    server = make_server()
    a, b, watcher = [await make_user(sessions) for _ in range(3)]
    old = await finished_match(sessions, a, b, rated=True)
    va, vb, vw = [await signed_in(server.base_url, u) for u in (a, b, watcher)]
    sa, sb, sw = [await v.connect(old.id) for v in (va, vb, vw)]
    await sa.send({"type": "rematch_offer"})
    for sock in (sa, sb, sw):
        offered = await sock.wait_for(_rematch("offered"))
        assert offered == {"type": "rematch", "state": "offered", "by": 0, "match_id": None}
    # A late visitor hears where the rematch stands right after its hello.
    late = await vb.connect(old.id)
    await late.wait_for(_rematch("offered"))
    await late.close()
    await sw.expect_error({"type": "rematch_accept"}, "not_seated")
    await sa.expect_error({"type": "rematch_accept"}, "illegal")  # not one's own offer
    await sb.send({"type": "rematch_accept"})
    accepted = [await sock.wait_for(_rematch("accepted")) for sock in (sa, sb, sw)]
    new_id = accepted[0]["match_id"]
    assert new_id and all(m["match_id"] == new_id for m in accepted)
    na, nb = await va.connect(new_id), await vb.connect(new_id)
    assert (na.state["you"], nb.state["you"]) == (1, 0)  # seats swapped
    assert na.state["status"] == "active"
    for sock in (sa, sb, sw, na, nb):
        await sock.close()
    for v in (va, vb, vw):
        await v.__aexit__(None, None, None)


async def test_decline_withdraw_and_refusals_over_the_socket(
        make_server, database, sessions) -> None:
    server = make_server()
    a, b = await make_user(sessions), await make_user(sessions)
    old = await finished_match(sessions, a, b, rated=False)
    va, vb = await signed_in(server.base_url, a), await signed_in(server.base_url, b)
    sa, sb = await va.connect(old.id), await vb.connect(old.id)

    async def step(sender, message, state):  # type: ignore[no-untyped-def]
        start = len(sa.messages), len(sb.messages)
        await sender.send(message)
        for sock, first in zip((sa, sb), start, strict=True):
            await next_message(sock, first, _rematch(state))

    await sb.expect_error({"type": "rematch_decline"}, "illegal")  # nothing to decline
    await step(sa, {"type": "rematch_offer"}, "offered")
    await step(sb, {"type": "rematch_decline"}, "declined")
    await step(sb, {"type": "rematch_offer"}, "offered")
    await sa.expect_error({"type": "rematch_withdraw"}, "illegal")  # not a's offer
    await step(sb, {"type": "rematch_withdraw"}, "withdrawn")
    # A match still being played has no rematch.
    live = await store_match(database, [(a, None), (b, None)])
    la = await va.connect(live)
    await la.expect_error({"type": "rematch_offer"}, "illegal")
    for sock in (sa, sb, la):
        await sock.close()
    await va.__aexit__(None, None, None)
    await vb.__aexit__(None, None, None)


async def test_a_bot_accepts_a_rematch_at_once(make_server, sessions) -> None:
    server = make_server()
    me = await make_user(sessions, kind="guest")
    old = await finished_match(sessions, me, None, bots=(None, "easy"), rated=False)
    visitor = await signed_in(server.base_url, me)
    sock = await visitor.connect(old.id)
    await sock.send({"type": "rematch_offer"})
    accepted = await sock.wait_for(_rematch("accepted"))
    new = await visitor.connect(accepted["match_id"])
    assert new.state["you"] == 1 and new.state["players"][0]["bot"] == "easy"
    await sock.close()
    await new.close()
    await visitor.__aexit__(None, None, None)
