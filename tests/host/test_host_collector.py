"""HostCollector against this machine: /proc/diskstats, real child processes, psutil errors."""

from __future__ import annotations

import dataclasses
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

import ndbtop.host.collector as collector_module
from ndbtop.host.collector import HostCollector
from ndbtop.host.devices import block_devices
from ndbtop.host.processes import is_data_node_process, thread_name
from ndbtop.host.samples import SECTOR_SIZE, DiskCounters, HostSample

PYTHON = os.path.realpath(sys.executable)

# A child with a worker thread that names itself "ldm", reports its tid, burns about
# 50 ms of CPU when told "go", reports "done" and stays alive until its stdin closes.
WORKER = r"""
import sys, threading, time
go = threading.Event()

def work():
    tid = threading.get_native_id()
    with open(f"/proc/self/task/{tid}/comm", "w") as f:
        f.write("ldm")
    print("ready", tid, flush=True)
    go.wait()
    start = time.thread_time()
    x = 0
    while time.thread_time() - start < 0.05:
        x += sum(range(1000))
    print("done", flush=True)
    threading.Event().wait()

threading.Thread(target=work, daemon=True).start()
for line in sys.stdin:
    if line.strip() == "go":
        go.set()
"""

# An angel in the style of ndbmtd: it starts WORKER under its own argv[0] with the
# arguments the real angel appends, and waits for it.
ANGEL = f"""
import os, subprocess
argv0 = open("/proc/self/cmdline", "rb").read().split(b"\\0")[0].decode()
child = subprocess.Popen(
    [argv0, "-c", {WORKER!r}, "--allocated-nodeid=42", f"--angel-pid={{os.getpid()}}"],
    executable={PYTHON!r},
)
child.wait()
"""


def read_line(proc: subprocess.Popen[str], timeout: float = 30.0) -> str:
    """The child's next line; fails instead of hanging if it never comes."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "child did not answer"
    return proc.stdout.readline().strip()


def spawn(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, executable=PYTHON, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def stop(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


@pytest.fixture
def worker() -> Iterator[tuple[subprocess.Popen[str], int]]:
    proc = spawn([PYTHON, "-c", WORKER])
    status, tid = read_line(proc).split()
    assert status == "ready"
    yield proc, int(tid)
    stop(proc)


def go(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert read_line(proc) == "done"


# Field positions after major, minor and name, per the kernel's
# Documentation/admin-guide/iostats.rst (1-based there, 0-based here).
FIELDS = {
    "reads": 0,
    "read_merged": 1,
    "read_sectors": 2,
    "read_time_ms": 3,
    "writes": 4,
    "write_merged": 5,
    "write_sectors": 6,
    "write_time_ms": 7,
    "busy_time_ms": 9,
}


def read_diskstats() -> dict[str, dict[str, int]]:
    path = Path("/proc/diskstats")
    if not path.exists():
        return {}
    stats: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 14:
            continue  # Linux 2.6 short partition lines carry no times
        values = [int(v) for v in parts[3:]]
        stats[parts[2]] = {k: values[i] for k, i in FIELDS.items()}
    return stats


def expected_counters(name: str, raw: dict[str, int]) -> DiskCounters:
    return DiskCounters(
        name=name,
        reads=raw["reads"],
        writes=raw["writes"],
        read_bytes=raw["read_sectors"] * SECTOR_SIZE,
        write_bytes=raw["write_sectors"] * SECTOR_SIZE,
        read_time_ms=raw["read_time_ms"],
        write_time_ms=raw["write_time_ms"],
        busy_time_ms=raw["busy_time_ms"],
        read_merged=raw["read_merged"],
        write_merged=raw["write_merged"],
    )


def test_disk_counters_agree_with_proc_diskstats() -> None:
    collector = HostCollector(pids=[])
    devices = block_devices(read_diskstats())
    if not devices:
        collector.sample()
        view = collector.view()
        assert view is not None
        assert view.disks == ()
        return
    # The busiest device, read between two direct reads of /proc/diskstats; a quiet
    # moment (both direct reads equal) gives an exact comparison, otherwise each
    # counter must lie between them.
    name = max(devices, key=lambda n: sum(read_diskstats()[n].values()))
    for _ in range(50):
        before = read_diskstats()[name]
        sample = collector.sample()
        after = read_diskstats()[name]
        if before == after:
            break
    got = sample.disk(name)
    assert got is not None
    low, high = expected_counters(name, before), expected_counters(name, after)
    for field in [f.name for f in dataclasses.fields(DiskCounters)][1:]:
        assert getattr(low, field) <= getattr(got, field) <= getattr(high, field), field
    if before == after:
        assert got == low
    assert got.read_bytes % SECTOR_SIZE == 0
    assert got.write_bytes % SECTOR_SIZE == 0
    view = collector.view()
    assert view is not None
    assert [d.name for d in view.disks] == list(block_devices(d.name for d in sample.disks))
    assert name in [d.name for d in view.disks]


def test_rates_from_this_machine_are_sane() -> None:
    ticks = iter(range(10_000))
    collector = HostCollector(pids=[], clock=lambda: float(next(ticks)))
    assert collector.view() is None
    collector.sample()
    # Two readings within one clock tick have equal CPU times (no rate); the kernel's
    # tick is 1-10 ms, so a few hundred samples always cross one.
    for _ in range(1_000):
        collector.sample()
        view = collector.view()
        assert view is not None
        if view.cpu is not None:
            break
    assert view.interval_s == 1.0
    assert view.threads == ()
    assert view.cpu is not None
    parts = (
        view.cpu.user,
        view.cpu.nice,
        view.cpu.system,
        view.cpu.iowait,
        view.cpu.steal,
        view.cpu.idle,
    )
    assert all(p is None or 0 <= p <= 100 for p in parts)
    if None not in parts:
        assert sum(parts) == pytest.approx(100)
    for d in view.disks:
        assert d.util_pct is None or 0 <= d.util_pct <= 100
        assert d.w_s is None or d.w_s >= 0


def test_override_pid_reads_threads_and_cpu_of_any_process(
    worker: tuple[subprocess.Popen[str], int],
) -> None:
    proc, ldm_tid = worker
    process_name = psutil.Process(proc.pid).name()
    assert not is_data_node_process(process_name, psutil.Process(proc.pid).cmdline())

    discovered = HostCollector()
    discovered.sample()
    assert proc.pid not in [p.pid for p in discovered.processes]

    collector = HostCollector(pids=[proc.pid])
    first = collector.sample()
    assert ldm_tid in [t.tid for t in first.threads]
    go(proc)
    second = collector.sample()
    view = collector.view()
    assert view is not None
    assert [p.pid for p in collector.processes] == [proc.pid]
    assert collector.processes[0].ppid == os.getpid()

    threads = {t.tid: t for t in view.threads}
    assert proc.pid in threads  # the main thread's tid is the pid
    ldm = threads[ldm_tid]
    assert (ldm.pid, ldm.node_id, ldm.process_name, ldm.thread_name) == (
        proc.pid,
        None,
        process_name,
        "ldm",
    )
    assert ldm.cpu_pct is not None
    assert ldm.cpu_pct > 0
    burned = {t.tid: t.cpu_s for t in second.threads}[ldm_tid] - {
        t.tid: t.cpu_s for t in first.threads
    }[ldm_tid]
    assert burned > 0
    assert ldm.cpu_pct == pytest.approx(100 * burned / view.interval_s)


def test_discovery_by_argv0_flags_the_angel_and_reads_the_node_id() -> None:
    angel = spawn(["/opt/mysql/bin/ndbmtd", "-c", ANGEL, "--ndb-nodeid=42"])
    try:
        status, ldm_tid = read_line(angel).split()
        assert status == "ready"
        collector = HostCollector()
        sample = collector.sample()
        ours = {p.pid: p for p in collector.processes if p.pid == angel.pid or p.ppid == angel.pid}
        assert len(ours) == 2
        assert ours[angel.pid].angel
        assert ours[angel.pid].node_id == 42
        (child,) = (p for p in ours.values() if not p.angel)
        assert child.node_id == 42
        threads = [t for t in sample.threads if t.pid in ours]
        assert threads
        assert {t.pid for t in threads} == {child.pid}  # the angel's threads are not read
        ldm = next(t for t in threads if t.tid == int(ldm_tid))
        assert (ldm.node_id, ldm.thread_name) == (42, "ldm")
    finally:
        stop(angel)


def test_vanished_process_is_dropped_and_triggers_discovery(
    worker: tuple[subprocess.Popen[str], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, _ = worker
    calls: list[object] = []
    real = collector_module.discover

    def counting(pids: object = None) -> object:
        calls.append(pids)
        return real(pids)

    monkeypatch.setattr(collector_module, "discover", counting)
    collector = HostCollector(pids=[proc.pid], rediscover_every=100)
    assert collector.sample().threads
    assert len(calls) == 1
    stop(proc)
    gone = collector.sample()
    assert gone.threads == ()
    assert len(calls) == 1
    collector.sample()
    assert len(calls) == 2
    assert collector.processes == ()
    view = collector.view()
    assert view is not None
    assert view.threads == ()


def test_rediscovers_every_n_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    monkeypatch.setattr(collector_module, "discover", lambda pids=None: calls.append(pids) or ())
    collector = HostCollector(pids=[], rediscover_every=3)
    for _ in range(7):
        collector.sample()
    assert len(calls) == 3  # samples 1, 4 and 7
    with pytest.raises(ValueError):
        HostCollector(rediscover_every=0)


def test_access_denied_and_vanishing_threads_never_raise(
    worker: tuple[subprocess.Popen[str], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, _ = worker
    collector = HostCollector(pids=[proc.pid, 2**22 + 12345, -1])
    assert [p.pid for p in collector.processes] == []
    sample = collector.sample()
    assert [p.pid for p in collector.processes] == [proc.pid]
    assert {t.pid for t in sample.threads} == {proc.pid}

    def denied(self: psutil.Process) -> list[object]:
        raise psutil.AccessDenied(self.pid)

    monkeypatch.setattr(psutil.Process, "threads", denied)
    assert collector.sample().threads == ()

    def gone(self: psutil.Process) -> list[object]:
        raise psutil.NoSuchProcess(self.pid)

    monkeypatch.setattr(psutil.Process, "threads", gone)
    assert collector.sample().threads == ()


def test_unreadable_sources_give_empty_values(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise OSError("no /proc in this container")

    monkeypatch.setattr(psutil, "disk_io_counters", broken)
    monkeypatch.setattr(psutil, "cpu_times", broken)
    monkeypatch.setattr(psutil, "process_iter", broken)
    collector = HostCollector()
    sample = collector.sample()
    assert sample == HostSample(sample.monotonic)
    monkeypatch.setattr(psutil, "disk_io_counters", lambda **kwargs: {})
    assert collector.sample().disks == ()


def test_thread_name_of_missing_thread_is_none() -> None:
    assert thread_name(os.getpid(), 2**22 + 12345) is None
    assert thread_name(os.getpid(), os.getpid()) == Path("/proc/self/comm").read_text().strip()


def test_headless_import() -> None:
    code = (
        "import sys, ndbtop.host, ndbtop.host.collector;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stdout + result.stderr
