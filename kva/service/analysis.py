"""Post-game analysis as a service: a queue of finished matches, analysed one decision at a
time in a worker process of its own, stored in ``match_analyses`` once done.

Live bot turns come first: they think in the play service's bot pool, while analysis has a
single separate worker process that lowers its own CPU priority (``nice`` 10), so on a busy
machine the operating system gives the live bots' workers the CPU first; and analysis sends
one decision at a time, so a long queue never holds a block of work. Requests for the same
match share one job; a request for an analysed match is served from the database. Progress
(decisions done of the total, place in the queue) is kept per job for the replay page.

The queue is bounded: at most ``max_queue`` matches wait or run (:class:`QueueFull` past it),
and each requester key has at most one match of its own in it (:class:`AlreadyPending`): a
request names the player (if registered) and the client address, so neither one address with
several free accounts nor one account from several addresses holds more than one place. Asking
for a match already queued joins it and costs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.analysis.engine import ANALYSIS_PLAYOUTS, Evaluation, evaluate
from kva.analysis.match import VERSION, decision_json, decisions, finish
from kva.rules import PlayerView
from kva.settings.caps import DEFAULT_ANALYSIS_QUEUE
from kva.storage import learn as learn_store

#: Lower CPU priority of the analysis worker (live bots think at the normal priority).
NICE = 10


def _analysis_worker_init(parent: int) -> None:
    """Analysis worker: yield the CPU to live bots, and leave when the server is gone."""
    with contextlib.suppress(OSError):
        os.nice(NICE)
    from kva.service.play.bot_moves import exit_with_parent

    exit_with_parent(parent)


def make_analysis_executor() -> ProcessPoolExecutor:
    """One spawned worker process at lower priority."""
    return ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn"),
        initializer=_analysis_worker_init, initargs=(os.getpid(),))


def _evaluate(view: PlayerView, seed: int, playouts: int) -> Evaluation:
    return evaluate(view, seed, playouts)


class QueueFull(Exception):
    """The queue holds ``max_queue`` matches: a new one must wait until one is done."""


class AlreadyPending(Exception):
    """The requester already has another match of their own waiting or being analysed."""


@dataclass
class Job:
    match_id: str
    doc: dict[str, Any]
    requesters: tuple[str, ...] = ()
    total: int = 0
    done: int = 0
    state: str = "queued"  # queued, running, done, failed
    finished: asyncio.Event = field(default_factory=asyncio.Event)


class AnalysisService:
    """The queue, its one consumer, and the stored results."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession],
                 executor: Executor | None = None, playouts: int = ANALYSIS_PLAYOUTS,
                 max_queue: int = DEFAULT_ANALYSIS_QUEUE) -> None:
        self._sessions = sessions
        self.max_queue = max_queue
        self._executor = executor
        self.playouts = playouts
        self._queue: asyncio.Queue[Job] = asyncio.Queue()
        self._jobs: dict[str, Job] = {}
        self._order: list[str] = []
        self._pending_of: dict[str, str] = {}  # requester key -> the match it queued
        self._task: asyncio.Task[None] | None = None

    async def stored(self, match_id: str) -> dict[str, Any] | None:
        """The stored analysis of ``match_id`` (None if none of this version)."""
        async with self._sessions() as session:
            row = await learn_store.stored_analysis(session, match_id)
        if row is None or row.version != VERSION:
            return None
        body: dict[str, Any] = json.loads(row.body)
        return body

    def status(self, match_id: str) -> dict[str, Any]:
        """Progress of a queued or running job (``none`` when there is none)."""
        job = self._jobs.get(match_id)
        if job is None:
            return {"status": "none"}
        ahead = self._order.index(match_id) if match_id in self._order else 0
        return {"status": job.state, "done": job.done, "total": job.total, "ahead": ahead}

    def pending(self) -> int:
        """How many matches wait or are being analysed."""
        return len(self._order)

    def request(self, match_id: str, doc: dict[str, Any],
                requesters: tuple[str, ...] = ()) -> dict[str, Any]:
        """Queue ``match_id`` (its finished record ``doc``) unless it is already queued.

        A new job for ``requesters`` (keys naming who asks, such as ``user:7`` and
        ``address:203.0.113.9``; none: nobody in particular) is refused with
        :class:`AlreadyPending` while another job of any of those keys waits or runs, and with
        :class:`QueueFull` when ``max_queue`` matches do; joining a queued job never is."""
        old = self._jobs.get(match_id)
        if old is not None and old.state == "failed":
            del self._jobs[match_id]
        if match_id not in self._jobs:
            for requester in requesters:
                if requester in self._pending_of:
                    raise AlreadyPending(self._pending_of[requester])
            if self.pending() >= self.max_queue:
                raise QueueFull(match_id)
            job = Job(match_id, doc, requesters)
            self._jobs[match_id] = job
            self._order.append(match_id)
            for requester in requesters:
                self._pending_of[requester] = match_id
            self._queue.put_nowait(job)
            if self._task is None or self._task.done():
                self._task = asyncio.get_running_loop().create_task(self._consume())
        return self.status(match_id)

    async def wait(self, match_id: str) -> None:
        job = self._jobs.get(match_id)
        if job is not None:
            await job.finished.wait()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if isinstance(self._executor, ProcessPoolExecutor):
            self._executor.shutdown(wait=False, cancel_futures=True)

    async def _consume(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                await self._run(job)
                job.state = "done"
            except Exception:  # a broken record must not stop the queue
                job.state = "failed"
            finally:
                if job.match_id in self._order:
                    self._order.remove(job.match_id)
                for requester in job.requesters:
                    if self._pending_of.get(requester) == job.match_id:
                        del self._pending_of[requester]
                job.finished.set()
                if job.state == "done":
                    self._jobs.pop(job.match_id, None)

    async def _run(self, job: Job) -> None:
        if await self.stored(job.match_id) is not None:
            return
        loop = asyncio.get_running_loop()
        if self._executor is None:
            self._executor = make_analysis_executor()
        found = list(decisions(job.doc))
        job.total = len(found)
        job.state = "running"
        rows = []
        for decision in found:
            ev = await loop.run_in_executor(self._executor, _evaluate, decision.view,
                                            decision.seed, self.playouts)
            rows.append(decision_json(decision, ev))
            job.done += 1
        analysis = finish(job.doc, rows, (0, 1), self.playouts)
        async with self._sessions() as session:
            if await learn_store.stored_analysis(session, job.match_id) is None:
                learn_store.add_analysis(session, job.match_id, VERSION, json.dumps(analysis))
                await session.commit()
