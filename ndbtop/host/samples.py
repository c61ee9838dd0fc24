"""Raw host samples: cumulative OS counters, stamped with a monotonic time.

A sample holds counters exactly as the kernel reports them (through psutil);
nothing here is a rate. Rates are pure functions of two samples
(:mod:`ndbtop.host.rates`), so a recorded sequence of samples replays to the
same figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS

SECTOR_SIZE = 512
"""Bytes per sector in ``/proc/diskstats``: always 512, whatever the device's block size."""


@dataclass(frozen=True, **SLOTS)
class DiskCounters:
    """Cumulative I/O counters of one block device since boot (``/proc/diskstats`` on Linux).

    ``read_bytes``/``write_bytes`` are sectors times :data:`SECTOR_SIZE`. Times are in
    milliseconds: ``read_time_ms``/``write_time_ms`` sum the time every request of that
    kind spent queued and in service; ``busy_time_ms`` is the wall time the device had at
    least one request in flight. Fields a platform does not report are ``None``.
    """

    name: str
    reads: int
    writes: int
    read_bytes: int
    write_bytes: int
    read_time_ms: int
    write_time_ms: int
    busy_time_ms: int | None = None
    read_merged: int | None = None
    write_merged: int | None = None


@dataclass(frozen=True, **SLOTS)
class CpuTimes:
    """Cumulative host CPU time in seconds, summed over all CPUs (``/proc/stat``).

    On Linux ``user`` already includes ``guest`` and ``nice`` includes ``guest_nice``.
    Fields a platform does not report are 0.
    """

    user: float = 0.0
    nice: float = 0.0
    system: float = 0.0
    idle: float = 0.0
    iowait: float = 0.0
    irq: float = 0.0
    softirq: float = 0.0
    steal: float = 0.0
    guest: float = 0.0
    guest_nice: float = 0.0

    @property
    def total(self) -> float:
        """All CPU time, counting guest time once (it is already part of user and nice)."""
        return (
            self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
        )


@dataclass(frozen=True, **SLOTS)
class ThreadSample:
    """Cumulative CPU time of one thread of a local data node process.

    ``node_id`` comes from the process's command line and is ``None`` when it does not
    say; ``thread_name`` is the kernel's ``comm`` of the thread (``None`` if unreadable).
    """

    pid: int
    node_id: int | None
    process_name: str
    tid: int
    thread_name: str | None
    user_s: float
    system_s: float

    @property
    def cpu_s(self) -> float:
        """User plus system CPU seconds."""
        return self.user_s + self.system_s


@dataclass(frozen=True, **SLOTS)
class RedoFiles:
    """What one data node process shows of its redo log on its host.

    ``open_files`` holds ``(part, file_no)`` for each ``FragLog`` file the process has
    open (``ndb_<id>_fs/D<8+part>/DBLQH/S<file_no>.FragLog``); ``write_bytes`` is the
    process's ``/proc/<pid>/io`` counter (``None`` when unreadable).
    """

    pid: int
    node_id: int | None
    write_bytes: int | None
    open_files: tuple[tuple[int, int], ...] = ()
    started_at: float | None = None
    """When the process started, epoch seconds on the host's clock (``btime`` plus
    ``/proc/<pid>/stat`` field 22); ``None`` when not read."""
    log_dirs: tuple[str, ...] = ()
    """The ``DBLQH`` directories of the FragLog files it has open, as the host names them."""


@dataclass(frozen=True, **SLOTS)
class DiskFree:
    """The file system holding a path, as ``df -P -k`` gives it."""

    path: str
    mount: str
    total_bytes: int
    available_bytes: int
    used_pct: int

    @property
    def full(self) -> bool:
        """No space left for the data node to write (``df`` shows 100% or nothing available)."""
        return self.available_bytes == 0 or self.used_pct >= 100


@dataclass(frozen=True, **SLOTS)
class ProcessSeen:
    """A data node process on the host: its pid, node id (``None`` when nothing says) and
    whether it is an angel (the process that starts and restarts the worker)."""

    pid: int
    node_id: int | None
    angel: bool


@dataclass(frozen=True, **SLOTS)
class MemInfo:
    """Host memory in bytes (``/proc/meminfo`` MemTotal and MemAvailable)."""

    total: int | None = None
    available: int | None = None


@dataclass(frozen=True, **SLOTS)
class HostSample:
    """One reading of the host: every disk, the CPU times and the data node threads.

    ``monotonic`` is ``time.monotonic()`` when the reading started. ``disks`` lists every
    device the OS reports (loop devices and partitions included; see
    :func:`ndbtop.host.devices.block_devices`). ``cpu`` is ``None`` when it could not be
    read. ``threads`` is empty on a host without local data node processes. ``redo`` and
    ``memory`` are read on remote hosts (see :mod:`ndbtop.host.procfs`).
    """

    monotonic: float
    disks: tuple[DiskCounters, ...] = ()
    cpu: CpuTimes | None = None
    threads: tuple[ThreadSample, ...] = ()
    redo: tuple[RedoFiles, ...] = ()
    memory: MemInfo | None = None
    processes: tuple[ProcessSeen, ...] = ()

    def disk(self, name: str) -> DiskCounters | None:
        """The counters of device ``name``, or ``None`` if this sample does not have it."""
        for d in self.disks:
            if d.name == name:
                return d
        return None
