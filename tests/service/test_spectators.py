"""The spectator count: spectator sockets only, summed over processes, never left behind."""

from __future__ import annotations

import asyncio
from typing import Any

from kva.service.cluster.broker import MemoryBroker
from kva.service.play import topic
from kva.service.play.spectators import Spectators


async def _published(broker: MemoryBroker, match_id: str) -> Any:
    """A subscription to ``match_id``'s topic (its ``_queue`` holds what was published)."""
    await broker.start()
    return await broker.subscribe(topic(match_id))


def _notes(sub: Any) -> list[dict[str, Any]]:
    out = []
    while not sub._queue.empty():
        out.append(sub._queue.get_nowait())
    return out


async def test_each_spectator_socket_counts_and_each_change_is_published() -> None:
    broker = MemoryBroker()
    sub = await _published(broker, "m1")
    here = Spectators(broker, "a")
    await here.joined("m1")
    await here.joined("m1")
    await here.left("m1")
    assert here.count("m1") == 1
    assert [n["spectators"] for n in _notes(sub)] == [
        {"origin": "a", "count": 1}, {"origin": "a", "count": 2}, {"origin": "a", "count": 1}]
    assert here.message("m1") == {"type": "spectators", "count": 1}


async def test_the_count_sums_what_every_process_said() -> None:
    broker = MemoryBroker()
    here, there = Spectators(broker, "a"), Spectators(broker, "b")
    await here.joined("m1")
    here.note("m1", {"origin": "b", "count": 3})
    assert here.count("m1") == 4
    here.note("m1", {"origin": "b", "count": 0})  # that process's spectators all left
    assert here.count("m1") == 1 and there.count("m1") == 0


async def test_a_process_ignores_its_own_note_and_malformed_ones() -> None:
    here = Spectators(MemoryBroker(), "a")
    for junk in (None, "x", {"origin": "a", "count": 5}, {"origin": 1, "count": 1},
                 {"origin": "b", "count": -1}, {"origin": "b", "count": True},
                 {"origin": "b", "count": "2"}):
        here.note("m1", junk)
    assert here.count("m1") == 0 and here.tracked() == 0


async def test_nothing_is_kept_for_a_match_nobody_watches() -> None:
    here = Spectators(MemoryBroker(), "a")
    await here.joined("m1")
    here.note("m2", {"origin": "b", "count": 2})
    await here.left("m1")
    here.note("m2", {"origin": "b", "count": 0})
    assert here.tracked() == 0


async def test_leaving_more_often_than_joining_never_goes_below_zero() -> None:
    here = Spectators(MemoryBroker(), "a")
    await here.left("m1")
    assert here.count("m1") == 0 and here.tracked() == 0


async def test_a_process_answers_an_ask_once_with_its_count() -> None:
    broker = MemoryBroker()
    sub = await _published(broker, "m1")
    here = Spectators(broker, "a")
    await here.joined("m1")
    _notes(sub)
    for _ in range(3):  # every socket of the process sees the same ask
        here.note("m1", {"origin": "b", "count": 0, "ask": "n1"})
    await asyncio.sleep(0.01)
    assert [n["spectators"] for n in _notes(sub)] == [{"origin": "a", "count": 1}]


async def test_a_process_with_no_spectators_does_not_answer() -> None:
    broker = MemoryBroker()
    sub = await _published(broker, "m1")
    here = Spectators(broker, "a")
    here.note("m1", {"origin": "b", "count": 0, "ask": "n1"})
    await asyncio.sleep(0.01)
    assert _notes(sub) == []
