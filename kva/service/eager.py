"""Run a coroutine at once, in the caller, until it first has to wait; only then give it a task.

Python 3.12 has this as ``asyncio.eager_task_factory``; kva runs on 3.11 too. The broker uses
it to deliver a state to a socket from the task that committed the change
(:class:`kva.service.cluster.broker.Subscription` with a handler): the send almost never waits (the
transport takes the bytes), so no task is woken, no queue and no iterator are involved, and
nothing is left behind per socket between two messages. A send that does wait (a client that
stops reading fills its buffer) continues in a task of its own, so it never holds up the
caller or the other sockets.

>>> import asyncio
>>> async def quick() -> str:
...     return "done"
>>> async def main() -> tuple[object, str]:
...     finished = run_eagerly(quick())
...     slow = run_eagerly(asyncio.sleep(0, "later"))
...     assert slow is not None
...     return finished, await slow
>>> asyncio.run(main())
(None, 'later')
"""

from __future__ import annotations

import asyncio
import logging
import types
from collections.abc import Coroutine, Generator
from typing import Any

log = logging.getLogger(__name__)


def run_eagerly(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
    """Run ``coro`` now, up to its first wait; None if it finished without waiting (an
    exception it raised is logged), else the task that runs the rest of it."""
    try:
        waiting_on = coro.send(None)
    except StopIteration:
        return None
    except Exception:
        log.exception("an eagerly run coroutine failed")
        return None
    return asyncio.ensure_future(_rest_of(coro, waiting_on))


async def _rest_of(coro: Coroutine[Any, Any, Any], waiting_on: Any) -> Any:
    return await _continue(coro, waiting_on)


@types.coroutine
def _continue(coro: Coroutine[Any, Any, Any], waiting_on: Any) -> Generator[Any, Any, Any]:
    """Hand what ``coro`` waits on (a future, or None for a bare yield) to the running task,
    then let the task drive ``coro`` on: a task wakes a coroutine with ``send(None)`` (the
    future's own ``__await__`` reads its result), which is what ``yield from`` does; an
    exception thrown in while it waits (a cancellation) is thrown into ``coro``."""
    while True:
        try:
            yield waiting_on
        except BaseException as exc:  # noqa: BLE001 - every throw goes on to the coroutine
            try:
                waiting_on = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
            continue
        return (yield from coro)
