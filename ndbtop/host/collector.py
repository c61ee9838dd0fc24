"""The live host collector: psutil readings of disks, CPU and local data node threads.

Each :meth:`HostCollector.sample` costs one psutil call for all disks, one for the CPU
times and one thread listing per local data node process. Finding those processes
scans every process, so it is done on the first sample, then every
``rediscover_every`` samples, and on the sample after a known process vanished.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import psutil

from ndbtop.host.processes import NdbProcess, discover, read_threads
from ndbtop.host.samples import CpuTimes, DiskCounters, HostSample, ThreadSample
from ndbtop.host.view import HostView, host_view

__all__ = ["HostCollector", "HostView", "cpu_times_from_psutil", "disk_counters_from_psutil"]

_CPU_FIELDS = (
    "user",
    "nice",
    "system",
    "idle",
    "iowait",
    "irq",
    "softirq",
    "steal",
    "guest",
    "guest_nice",
)


def disk_counters_from_psutil(name: str, io: Any) -> DiskCounters:
    """Convert one ``psutil.disk_io_counters(perdisk=True)`` entry."""
    return DiskCounters(
        name=name,
        reads=io.read_count,
        writes=io.write_count,
        read_bytes=io.read_bytes,
        write_bytes=io.write_bytes,
        read_time_ms=io.read_time,
        write_time_ms=io.write_time,
        busy_time_ms=getattr(io, "busy_time", None),
        read_merged=getattr(io, "read_merged_count", None),
        write_merged=getattr(io, "write_merged_count", None),
    )


def cpu_times_from_psutil(times: Any) -> CpuTimes:
    """Convert ``psutil.cpu_times()``; fields the platform lacks are 0."""
    return CpuTimes(**{f: float(getattr(times, f, 0.0)) for f in _CPU_FIELDS})


def _read_disks() -> tuple[DiskCounters, ...]:
    try:
        # nowrap=False: raw kernel counters; rates treat a counter going back as unknown.
        per_disk = psutil.disk_io_counters(perdisk=True, nowrap=False)
    except (OSError, NotImplementedError, ValueError, RuntimeError):
        return ()
    if not per_disk:
        return ()
    return tuple(disk_counters_from_psutil(n, io) for n, io in per_disk.items())


def _read_cpu() -> CpuTimes | None:
    try:
        return cpu_times_from_psutil(psutil.cpu_times())
    except (OSError, NotImplementedError, RuntimeError):
        return None


class HostCollector:
    """Blocking sampler of this host; keeps the last two samples for :meth:`view`.

    ``pids`` replaces process discovery with a fixed list of processes, whatever their
    names (for tests and for data nodes started under another name). ``clock`` stamps
    the samples.
    """

    def __init__(
        self,
        *,
        pids: Iterable[int] | None = None,
        rediscover_every: int = 10,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rediscover_every < 1:
            raise ValueError("rediscover_every must be at least 1")
        self._pids = None if pids is None else tuple(pids)
        self._rediscover_every = rediscover_every
        self._clock = clock
        self._processes: tuple[NdbProcess, ...] = ()
        self._handles: dict[int, psutil.Process] = {}
        self._until_discovery = 0
        self._prev: HostSample | None = None
        self._last: HostSample | None = None

    @property
    def processes(self) -> tuple[NdbProcess, ...]:
        """The data node processes found by the latest discovery (angels included)."""
        return self._processes

    def _discover(self) -> None:
        self._processes = discover(self._pids)
        handles: dict[int, psutil.Process] = {}
        for p in self._processes:
            if p.angel:
                continue
            try:
                handles[p.pid] = psutil.Process(p.pid)
            except (psutil.Error, OSError):
                continue
        self._handles = handles
        self._until_discovery = self._rediscover_every

    def _read_threads(self) -> tuple[ThreadSample, ...]:
        threads: list[ThreadSample] = []
        for info in self._processes:
            handle = self._handles.get(info.pid)
            if handle is None:
                continue
            read = read_threads(handle, info)
            if read is None:
                self._until_discovery = 0
                continue
            threads.extend(read)
        return tuple(threads)

    def sample(self) -> HostSample:
        """Read the host now; never raises for vanished processes or unreadable entries."""
        if self._until_discovery <= 0:
            self._discover()
        self._until_discovery -= 1
        stamp = self._clock()
        sample = HostSample(
            monotonic=stamp,
            disks=_read_disks(),
            cpu=_read_cpu(),
            threads=self._read_threads(),
        )
        self._prev, self._last = self._last, sample
        return sample

    def view(self) -> HostView | None:
        """Rates between the last two samples; ``None`` before the first sample."""
        if self._last is None:
            return None
        return host_view(self._prev, self._last)
