"""The host as ndbtop shows it: rates between the last two samples."""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.host.devices import MAX_DEVICES, block_devices
from ndbtop.host.rates import (
    CpuPercent,
    DiskRates,
    ThreadRates,
    cpu_percent,
    disk_rates,
    thread_rates,
)
from ndbtop.host.samples import DiskCounters, HostSample, ThreadSample

MAX_THREADS = 4096
"""Most data node threads shown for one host (a data node runs at most a few hundred)."""


@dataclass(frozen=True, **SLOTS)
class HostView:
    """Disk, CPU and data node thread rates over one interval.

    ``interval_s`` is ``None`` for the first sample (no rates yet: every disk and
    thread is listed with ``None`` figures). ``disks`` holds the block devices only
    (:func:`ndbtop.host.devices.block_devices`); ``threads`` is empty on a host
    without local data node processes. ``disk_counters`` are the raw counters of the same
    devices in the current sample (what a time-series database takes rates of itself).
    ``hidden_disks`` counts the block devices left out beyond
    :data:`~ndbtop.host.devices.MAX_DEVICES`.
    """

    monotonic: float
    interval_s: float | None
    disks: tuple[DiskRates, ...]
    cpu: CpuPercent | None
    threads: tuple[ThreadRates, ...]
    disk_counters: tuple[DiskCounters, ...] = ()
    hidden_disks: int = 0

    @property
    def node_ids(self) -> tuple[int, ...]:
        """The data node ids of the local threads whose node id is known, ascending."""
        return tuple(sorted({t.node_id for t in self.threads if t.node_id is not None}))

    def disk(self, name: str) -> DiskRates | None:
        """The rates of disk ``name``, or ``None`` if it is not shown."""
        for d in self.disks:
            if d.name == name:
                return d
        return None


def host_view(prev: HostSample | None, cur: HostSample) -> HostView:
    """The rates between ``prev`` and ``cur`` (``prev`` ``None``: the first sample)."""
    elapsed: float | None = None
    if prev is not None:
        elapsed = cur.monotonic - prev.monotonic
        if elapsed <= 0:
            elapsed = None
    prev_disks = _first_of_each(prev.disks) if prev is not None and elapsed else {}
    # A name listed twice is one device: its first line counts.
    current = _first_of_each(cur.disks)
    devices = block_devices(current, limit=None)
    counters = tuple(current[name] for name in devices[:MAX_DEVICES])
    disks = tuple(disk_rates(prev_disks.get(d.name), d, elapsed) for d in counters)
    cpu = None
    if elapsed and prev is not None and prev.cpu is not None and cur.cpu is not None:
        cpu = cpu_percent(prev.cpu, cur.cpu)
    prev_threads = _threads_of(prev) if prev is not None and elapsed else {}
    threads = tuple(thread_rates(prev_threads.get(key), t, elapsed)
                    for key, t in _threads_of(cur).items())
    hidden = len(devices) - len(counters)
    return HostView(cur.monotonic, elapsed, disks, cpu, threads, counters, hidden)


def _threads_of(sample: HostSample) -> dict[tuple[int, int], ThreadSample]:
    """The sample's threads by (pid, tid), each once (its first line), at most MAX_THREADS."""
    out: dict[tuple[int, int], ThreadSample] = {}
    for t in sample.threads:
        if len(out) == MAX_THREADS:
            break
        out.setdefault((t.pid, t.tid), t)
    return out


def _first_of_each(disks: tuple[DiskCounters, ...]) -> dict[str, DiskCounters]:
    out: dict[str, DiskCounters] = {}
    for d in disks:
        out.setdefault(d.name, d)
    return out
