"""A probe for where a latency tail comes from, loaded into `kva serve` processes started by
`kva bench server` (they inherit the bench's environment), not part of kva itself:

    PYTHONPATH=scripts/stall_probe kva bench server ... --trace /tmp/trace.txt

Each server process (and each bot worker) writes ``$KVA_TEST_PROBE_DIR/probe-<pid>.log``
(default: the temporary folder; a ``KVA_TEST_`` name, which ``kva serve`` leaves to the tools
around it), one line per event, stamped with ``time.perf_counter()`` (the machine's monotonic
clock, the one the bench's ``--trace`` uses):

- ``gc <t> gen<N> <ms>``: a garbage collection over 3 ms;
- ``lag <t> <ms>``: the event loop came back from a 5 ms sleep more than 15 ms late (the loop
  was busy or blocked);
- ``append <t> <ms>``: a journal append (``kva.storage.journal_writer``) took over 30 ms;
- ``checkpoint <t> <ms> <busy> <log pages> <checkpointed>``: every periodic checkpoint of a
  SQLite write-ahead log (``kva.storage.sqlite_direct``), with SQLite's answer: a log that
  grows from one to the next is one the checkpoints do not keep up with;
- ``held <t> <ms> <stack>``: the loop has not come back for ``<ms>`` (over 25 ms) since ``<t>``,
  and this is what its thread is running now (innermost frame first, ``file:line function``
  joined by ``<``): a watchdog thread looks every 5 ms, and writes one line per stall and
  per doubling of its length, so the code that holds the loop is named while it holds it.

A burst of slow actions in the trace with a ``lag`` at the same time is the loop held (a
collection, a synchronous call); with slow ``append`` lines and no ``lag``, the loop was free
and the database was slow to commit (docs/performance.md, "Where a tail comes from").
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import threading
import time
from typing import Any

_PROBED = os.environ.get("KVA_DATA_DIR", "").startswith(
    os.path.join(tempfile.gettempdir(), "kva-bench-"))
_out: Any = None
_gc_started = 0.0


def _write(line: str) -> None:
    global _out
    if _out is None:
        folder = os.environ.get("KVA_TEST_PROBE_DIR", tempfile.gettempdir())
        _out = open(os.path.join(folder, f"probe-{os.getpid()}.log"), "w", buffering=1)  # noqa: SIM115
    _out.write(line + "\n")


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
        return
    ms = (time.perf_counter() - _gc_started) * 1000
    if ms > 3:
        _write(f"gc {_gc_started:.4f} gen{info['generation']} {ms:.1f}")


def _install() -> None:
    import asyncio

    import kva.storage.journal_writer as journal_writer
    import kva.web.app as app
    import kva.web.runtime as runtime

    async def lag() -> None:
        global _tick
        _start_watchdog(threading.get_ident())
        while True:
            started = _tick = time.perf_counter()
            await asyncio.sleep(0.005)
            late = (time.perf_counter() - started - 0.005) * 1000
            if late > 15:
                _write(f"lag {started:.4f} {late:.1f}")

    real_tune = runtime.tune_gc

    def tune_gc(*args: Any, **kwargs: Any) -> None:  # called once, in the app's lifespan
        real_tune(*args, **kwargs)
        _tasks.append(asyncio.get_running_loop().create_task(lag()))

    runtime.tune_gc = tune_gc
    app.tune_gc = tune_gc  # type: ignore[attr-defined]
    writers = [journal_writer.JournalWriter]
    for writer in writers:  # every writer class, each with an append of its own
        writers.extend(writer.__subclasses__())
        if "append" in vars(writer):
            writer.append = _timed_append(writer.append)  # type: ignore[method-assign]

    import kva.storage.sqlite_direct as sqlite_direct

    real_checkpoint = sqlite_direct._checkpoint_now

    def checkpoint_now(conn: Any) -> tuple[int, int, int]:  # on the checkpoint's thread
        started = time.perf_counter()
        busy, pages, done = real_checkpoint(conn)
        ms = (time.perf_counter() - started) * 1000
        _write(f"checkpoint {started:.4f} {ms:.1f} {busy} {pages} {done}")
        return busy, pages, done

    sqlite_direct._checkpoint_now = checkpoint_now


def _timed_append(real: Any) -> Any:
    """``real`` (a journal writer's ``append``), with an ``append`` line when it is slow."""

    async def append(*args: Any, **kwargs: Any) -> bool:
        started = time.perf_counter()
        try:
            return bool(await real(*args, **kwargs))
        finally:
            ms = (time.perf_counter() - started) * 1000
            if ms > 30:
                _write(f"append {started:.4f} {ms:.1f}")

    return append


#: When the loop last came round (the ``lag`` task's clock), for the watchdog.
_tick = 0.0


def _start_watchdog(loop_thread: int) -> None:
    def stack_of(frame: Any) -> str:
        parts = []
        while frame is not None and len(parts) < 14:
            code = frame.f_code
            name = code.co_filename.rsplit("site-packages/", 1)[-1].rsplit("/main/", 1)[-1]
            parts.append(f"{name}:{frame.f_lineno} {code.co_name}")
            frame = frame.f_back
        return "<".join(parts)

    def watch() -> None:
        reported_for = 0.0
        next_at = 25.0
        while True:
            time.sleep(0.005)
            tick = _tick
            held = (time.perf_counter() - tick) * 1000
            if tick != reported_for:
                reported_for, next_at = tick, 25.0
            if held < next_at:
                continue
            frame = sys._current_frames().get(loop_thread)
            _write(f"held {tick:.4f} {held:.1f} {stack_of(frame)}")
            next_at *= 2

    threading.Thread(target=watch, name="stall-watchdog", daemon=True).start()


_tasks: list[Any] = []
if _PROBED:
    gc.callbacks.append(_on_gc)
    _install()
