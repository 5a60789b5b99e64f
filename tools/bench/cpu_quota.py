"""A share of one CPU for a process: a Linux cgroup of its own with a CPU quota.

``kva bench server --cpu-share 0.5`` uses it to give each server process it starts half a core.
A machine with two cores cannot otherwise show how capacity grows with processes: the load
generator needs a core of its own, which leaves one core for the servers. Two processes limited
to half a core each on that core, against one process limited to half a core, is the same
comparison as two cores against one, at half the scale (docs/performance.md, "Sixteenth
session"). If anything it is unkind to the two processes: they take turns on one core's caches
and scheduler, where two real cores would not.

The quota is enforced over a short period (:data:`PERIOD_US`, 10 ms): a process that spends its
quota early in a period waits for the next one, so with the kernel's default period (100 ms) a
half-core process could stand still for 50 ms at a time, a stall no real core has.

Both cgroup versions are handled: v2 (``cpu.max`` in the unified hierarchy, with the ``cpu``
controller enabled for the children of the root) and v1 (``cpu.cfs_quota_us`` and
``cpu.cfs_period_us`` under the ``cpu`` hierarchy). It needs root, as the bench's machines
have; anything else is a :class:`CpuQuotaError` that says what is missing.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

#: The period over which the quota is enforced, in microseconds.
PERIOD_US = 10_000
#: Where the cgroup file systems are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")


class CpuQuotaError(RuntimeError):
    """The process could not be limited (no cgroup cpu controller, or not allowed)."""


@dataclass(frozen=True)
class CpuQuota:
    """A cgroup that limits its processes to ``share`` of one CPU."""

    path: Path
    #: The cgroup version: 2 (``cpu.max``) or 1 (``cpu.cfs_quota_us``).
    version: int
    share: float

    def add(self, pid: int) -> None:
        """Move ``pid`` (all its threads) into the cgroup; its children are born there."""
        try:
            (self.path / "cgroup.procs").write_text(f"{pid}\n")
        except OSError as exc:
            raise CpuQuotaError(f"cannot move process {pid} into {self.path}: "
                                f"{exc.strerror or exc}") from exc

    def remove(self, wait: float = 5.0) -> None:
        """Delete the cgroup once its processes have ended (a server's bot workers may
        outlive it by a moment: waits up to ``wait`` seconds for them); harmless if it is
        gone. One still busy after that is left: an empty cgroup limits nothing."""
        deadline = time.monotonic() + wait
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.1)


def _hierarchy(root: Path) -> tuple[int, Path]:
    """The cgroup version and the directory to create cgroups in."""
    controllers = root / "cgroup.controllers"
    if controllers.is_file():
        if "cpu" not in controllers.read_text().split():
            raise CpuQuotaError(f"the cgroup v2 hierarchy at {root} has no cpu controller")
        return 2, root
    for name in ("cpu", "cpu,cpuacct"):
        v1 = root / name
        if (v1 / "cpu.cfs_quota_us").is_file():
            return 1, v1
    raise CpuQuotaError(f"no cgroup cpu controller under {root}")


def limit_share(name: str, share: float, root: Path = CGROUP_ROOT,
                period_us: int = PERIOD_US) -> CpuQuota:
    """A new cgroup ``name`` whose processes together use at most ``share`` of one CPU."""
    if not share > 0:
        raise CpuQuotaError("a CPU share must be more than 0")
    quota_us = max(1_000, round(share * period_us))  # the kernel's smallest quota is 1 ms
    period = period_us if quota_us == round(share * period_us) else round(quota_us / share)
    version, parent = _hierarchy(root)
    path = parent / name
    try:
        if version == 2:
            control = parent / "cgroup.subtree_control"
            if "cpu" not in control.read_text().split():
                control.write_text("+cpu\n")
            path.mkdir(exist_ok=True)
            (path / "cpu.max").write_text(f"{quota_us} {period}\n")
        else:
            path.mkdir(exist_ok=True)
            (path / "cpu.cfs_period_us").write_text(f"{period}\n")
            (path / "cpu.cfs_quota_us").write_text(f"{quota_us}\n")
    except OSError as exc:
        raise CpuQuotaError(f"cannot set a CPU quota in {path}: {exc.strerror or exc} "
                            "(root and a writable cgroup file system are needed)") from exc
    return CpuQuota(path, version, share)


def process_share_name(pid: int) -> str:
    """The cgroup name the bench gives a started server."""
    return f"kva-bench-{os.getpid()}-{pid}"
