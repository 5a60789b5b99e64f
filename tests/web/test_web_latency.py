"""Action-to-broadcast latency over the WebSocket on localhost: from a player sending an action
to the opponent receiving the resulting state (committed to the database first), over several
whole matches. It checks that every one of 200 actions reaches the opponent, and prints p50/p95
as a benchmark (``pytest -s tests/web/test_web_latency.py``); speed is reported, not asserted, so
a loaded machine cannot make it fail."""

from __future__ import annotations

import asyncio
import statistics
import time

from webhelp import ServerThread, Visitor

SAMPLES = 200


async def test_action_to_broadcast_latency(server: ServerThread) -> None:
    samples: list[float] = []
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        while len(samples) < SAMPLES:
            match_id = await host.new_match("friend", target=75)
            token = await host.share_token(match_id)
            await guest.http.get(f"/t/{token}")
            a, b = await host.connect(match_id), await guest.connect(match_id)
            while not a.state["view"]["over"] and len(samples) < SAMPLES:
                mover, other = (a, b) if a.my_turn() else (b, a)
                if not mover.my_turn():
                    await asyncio.sleep(0.001)
                    continue
                s = mover.state
                start = time.perf_counter()
                await mover.send({"type": "action", "version": s["version"],
                                  "action": s["view"]["legal"][0]})
                await other.wait_state(s["version"] + 1)
                samples.append(time.perf_counter() - start)
                await mover.wait_state(s["version"] + 1)
                target = max(a.state["version"], b.state["version"])
                await a.wait_state(target)
                await b.wait_state(target)
            await a.close()
            await b.close()
    samples.sort()
    p50 = statistics.median(samples)
    p95 = samples[int(0.95 * len(samples)) - 1]
    print(f"\naction->broadcast over {len(samples)} actions: p50 {p50 * 1000:.1f} ms, "
          f"p95 {p95 * 1000:.1f} ms, max {samples[-1] * 1000:.1f} ms "
          f"({server.settings.database_url.split(':')[0]})")
    assert len(samples) == SAMPLES
