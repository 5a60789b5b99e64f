"""Match ids that nginx's consistent hash sends to the process that created them
(kva.settings.routing; the ring itself is checked against a real nginx in
tests/multiproc/test_multiproc_match_routing.py)."""

from __future__ import annotations

import random

import pytest

from kva.settings.routing import HashRing, match_ids_for

SERVERS = ["127.0.0.1:8001", "127.0.0.1:8002", "10.0.0.5:8001"]


@pytest.mark.parametrize("me", SERVERS)
def test_every_id_drawn_for_a_process_is_routed_to_it(me: str) -> None:
    ring = HashRing(SERVERS)
    ids = match_ids_for(SERVERS, me)
    drawn = [ids() for _ in range(200)]
    assert all(ring.server_of(i) == me for i in drawn)
    assert len(set(drawn)) == 200


def test_plain_ids_spread_over_every_process() -> None:
    """Without the choice, new matches would land on every process (hence the handovers)."""
    rng = random.Random(5)
    ring = HashRing(SERVERS)
    keys = [f"{rng.getrandbits(72):x}" for _ in range(600)]
    assert {ring.server_of(k) for k in keys} == set(SERVERS)


def test_a_process_missing_from_the_upstreams_is_refused() -> None:
    with pytest.raises(ValueError, match="not among"):
        match_ids_for(SERVERS, "127.0.0.1:9999")
    with pytest.raises(ValueError, match="host:port"):
        HashRing(["nohost"])


def test_an_unlucky_draw_falls_back_to_a_plain_id() -> None:
    fixed = iter(["a", "a", "a", "b"])
    ring = HashRing(SERVERS)
    me = next(s for s in SERVERS if ring.server_of("a") != s)
    assert match_ids_for(SERVERS, me, draw=lambda: next(fixed), tries=3)() == "b"
