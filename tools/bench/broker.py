"""Micro-benchmark of the broker alone: CPU per published match state, one process.

A broker publishes ``--messages`` messages shaped like a change's states (three encoded
states, ~5 KB on the wire) on one topic, and a local subscriber takes each one before the next
is published (as a socket's relay does). Prints this process's CPU per message and redis-server's
(the whole server's CPU over the run, from /proc: other clients' work counts too).
``--broker``: ``memory``, or a Redis URL; ``--no-echo`` never subscribes the Redis pub/sub
connection to the topic (no echo comes back at all: a lower bound, not a correct broker);
``--remote`` adds a second Redis broker with its own subscriber, as another process.

    nice -n 10 .venv/bin/python -m tools.bench.broker --broker redis://127.0.0.1:6379/15
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import time
from typing import Any

from kva.service.cluster.broker import RedisBroker, make_broker

STATE = json.dumps({
    "type": "state", "version": 60, "event": {"kind": "play", "seat": 0},
    "view": {"board": [[i, i + 1, "x" * 8] for i in range(60)], "hand": list(range(12)),
             "score": [40, 33]}})


def redis_server_cpu() -> float:
    """Seconds of CPU redis-server has used (0 when it is not on this machine)."""
    found = subprocess.run(["pgrep", "-x", "redis-server"], capture_output=True, text=True)
    pids = found.stdout.split()
    if not pids:
        return 0.0
    with open(f"/proc/{pids[0]}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace) -> None:
    broker = make_broker(args.broker)
    await broker.start()
    if args.no_echo and isinstance(broker, RedisBroker):
        async def not_on_redis(topic: str) -> None:
            return None

        broker._first_subscriber = not_on_redis  # type: ignore[method-assign]
    remote = RedisBroker(args.broker) if args.remote else None
    if remote is not None:
        await remote.start()
    topic = f"bench:{secrets.token_hex(4)}"
    sub = await broker.subscribe(topic)
    far = await remote.subscribe(topic) if remote is not None else None
    await asyncio.sleep(0.1)
    message: dict[str, Any] = {"version": 0, "status": "live",
                               "states": {"0": STATE, "1": STATE, "s": STATE}}
    for count in (200, args.messages):  # a warm-up, then the measure
        cpu, server, wall = time.process_time(), redis_server_cpu(), time.perf_counter()
        for version in range(count):
            await broker.publish(topic, {**message, "version": version})
            assert (await sub.get())["version"] == version
            if far is not None:
                await far.get()
        cpu = time.process_time() - cpu
        server = redis_server_cpu() - server
        wall = time.perf_counter() - wall
    size = len(json.dumps(message, ensure_ascii=False))
    print(f"{args.messages} messages of {size} B: process CPU {cpu * 1e3 / args.messages:.3f} "
          f"ms/message, redis-server {server * 1e3 / args.messages:.3f} ms/message, "
          f"wall {wall * 1e3 / args.messages:.3f} ms/message")
    await sub.close()
    await broker.stop()
    if remote is not None:
        await remote.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--no-echo", action="store_true")
    parser.add_argument("--remote", action="store_true")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
