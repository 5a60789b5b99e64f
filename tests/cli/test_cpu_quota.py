"""``kva bench server --cpu-share``: a started server limited to a share of one CPU by a cgroup
of its own (tools/bench/cpu_quota.py), on either cgroup version, and a clear refusal where
there is no cgroup cpu controller to write to."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kva.cli import main
from tools.bench.cpu_quota import CGROUP_ROOT, CpuQuotaError, limit_share


def _v1(root: Path) -> Path:
    """A cgroup v1 layout with its cpu hierarchy (what mkdir would show there)."""
    cpu = root / "cpu"
    cpu.mkdir(parents=True)
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    (cpu / "cpu.cfs_period_us").write_text("100000\n")
    return cpu


def _v2(root: Path, subtree: str = "") -> Path:
    """A cgroup v2 layout whose root offers the cpu controller."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text(subtree)
    return root


def test_v1_half_a_cpu_is_a_5_ms_quota_in_every_10_ms(tmp_path: Path) -> None:
    cpu = _v1(tmp_path)
    quota = limit_share("bench-1", 0.5, root=tmp_path)
    assert quota.version == 1 and quota.path == cpu / "bench-1"
    assert (quota.path / "cpu.cfs_period_us").read_text() == "10000\n"
    assert (quota.path / "cpu.cfs_quota_us").read_text() == "5000\n"
    quota.add(4242)
    assert (quota.path / "cgroup.procs").read_text() == "4242\n"


def test_v2_enables_the_cpu_controller_for_children_and_writes_cpu_max(tmp_path: Path) -> None:
    root = _v2(tmp_path / "unified")
    quota = limit_share("bench-2", 0.25, root=root)
    assert quota.version == 2
    assert (root / "cgroup.subtree_control").read_text() == "+cpu\n"
    assert (quota.path / "cpu.max").read_text() == "2500 10000\n"


def test_v2_leaves_subtree_control_alone_when_cpu_is_already_enabled(tmp_path: Path) -> None:
    root = _v2(tmp_path / "unified", subtree="cpu memory\n")
    limit_share("bench-3", 1.5, root=root)
    assert (root / "cgroup.subtree_control").read_text() == "cpu memory\n"
    assert (root / "bench-3" / "cpu.max").read_text() == "15000 10000\n"


def test_a_share_too_small_for_the_shortest_quota_gets_a_longer_period(tmp_path: Path) -> None:
    """The kernel takes no quota under 1 ms: 5 % of a CPU is 1 ms in every 20 ms."""
    _v1(tmp_path)
    quota = limit_share("small", 0.05, root=tmp_path)
    assert (quota.path / "cpu.cfs_quota_us").read_text() == "1000\n"
    assert (quota.path / "cpu.cfs_period_us").read_text() == "20000\n"


def test_no_cpu_controller_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CpuQuotaError, match="no cgroup cpu controller"):
        limit_share("none", 0.5, root=tmp_path)
    (tmp_path / "cgroup.controllers").write_text("memory pids\n")
    with pytest.raises(CpuQuotaError, match="has no cpu controller"):
        limit_share("none", 0.5, root=tmp_path)


def test_a_share_must_be_positive(tmp_path: Path) -> None:
    _v1(tmp_path)
    with pytest.raises(CpuQuotaError, match="more than 0"):
        limit_share("zero", 0.0, root=tmp_path)


def test_remove_is_harmless_when_the_cgroup_is_gone(tmp_path: Path) -> None:
    _v1(tmp_path)
    quota = limit_share("gone", 0.5, root=tmp_path)
    for child in quota.path.iterdir():
        child.unlink()
    quota.remove()
    assert not quota.path.exists()
    quota.remove()


@pytest.mark.parametrize("value", ["0", "-1", "half", "65"])
def test_the_bench_refuses_a_share_that_is_not_one(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "server", "--cpu-share", value])
    assert exited.value.code == 2
    assert "--cpu-share takes a share of one CPU" in capsys.readouterr().err


def test_the_bench_refuses_a_share_for_servers_it_does_not_start(
    capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["bench", "server", "--url", "http://127.0.0.1:9", "--cpu-share", "0.5"])
    assert status == 2
    assert "limits the servers the bench starts" in capsys.readouterr().err


def _writable_cgroups() -> bool:
    if os.geteuid() != 0:
        return False
    try:
        limit_share(f"kva-test-probe-{os.getpid()}", 0.5).remove()
    except CpuQuotaError:
        return False
    return True


@pytest.mark.skipif(not _writable_cgroups(), reason="needs root and a writable cgroup cpu "
                                                    "controller (the development machines have)")
def test_a_busy_process_limited_to_a_fifth_of_a_cpu_uses_no_more() -> None:
    """A real cgroup on this machine: a loop that would use a whole core gets at most ~20 % of
    one (less when the suite's other processes keep the cores busy: the quota is a cap)."""
    quota = limit_share(f"kva-test-{os.getpid()}", 0.2, root=CGROUP_ROOT)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        quota.add(busy.pid)
        start_ticks = _ticks(busy.pid)
        started = time.monotonic()
        time.sleep(1.5)
        used = (_ticks(busy.pid) - start_ticks) / os.sysconf("SC_CLK_TCK")
        share = used / (time.monotonic() - started)
    finally:
        busy.kill()
        busy.wait()
        quota.remove()
    assert 0.0 < share < 0.3, share
    assert not quota.path.exists()


def _ticks(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])
