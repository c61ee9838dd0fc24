"""The host a simulated data node runs on: its disks, its CPUs and the node's threads.

It offers the same ``sample()``/``view()`` pair as the live host collector, so
the same rate functions turn its counters into an iostat-like view. Samples
are stamped in simulated seconds: rates are per simulated second, as they
would be on the real host.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.host.samples import (
    CpuTimes,
    DiskCounters,
    DiskFree,
    HostSample,
    ProcessSeen,
    ThreadSample,
)
from ndbtop.host.view import HostView, host_view
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.ndbinfo_rows import process_id, thread_tid
from ndbtop.sim.workload import noise


@dataclass(frozen=True, **SLOTS)
class DiskLoad:
    """What a disk is doing: requests and kilobytes per second, latency and busy share."""

    reads: float = 0.0
    read_kb: float = 0.0
    writes: float = 0.0
    write_kb: float = 0.0
    await_ms: float = 0.5
    util: float = 0.0
    iowait_pct: float = 0.2
    jitter: float = 0.04
    """Relative spread of the request rates from one interval to the next."""


PAGE_KB = 32.0
"""SPARSE initialisation writes one 32 KiB page at every MiB of log (redo-init.md §4)."""
SYNC_EXTRA_WRITES = 50.0 / 18.49 - 1.0
"""Writes each fsync adds to a page's (the file system's journal): S1's disk took about
50 writes/s while 18.49 MB of log, one page each, were initialised per second."""
SYNC_EXTRA_KB = (1025.0 - 18.49 * PAGE_KB) / (18.49 * SYNC_EXTRA_WRITES)
"""Kilobytes of each of those writes: S1's disk wrote about 1,025 kB/s in all."""


def redo_init_load(log_mb_per_s: float, synced: bool) -> DiskLoad:
    """The disk while a node initialises its redo log at ``log_mb_per_s`` MB of log per
    second: one page per MB, each followed by an fsync in the old release (``synced``).

    The disk's w/s and kB/s, the events' MB/s and their ETA then all come from the one
    rate: S1's 18.49 MB/s of log is 50 w/s and about 1,025 kB/s on the disk.
    """
    pages = log_mb_per_s
    writes, kb = pages, pages * PAGE_KB
    if synced:
        extra = pages * SYNC_EXTRA_WRITES
        writes, kb = writes + extra, kb + extra * SYNC_EXTRA_KB
        return DiskLoad(writes=writes, write_kb=kb, await_ms=36.5, util=1.0, iowait_pct=18.5,
                        jitter=0.02)
    return DiskLoad(writes=writes, write_kb=kb, await_ms=4.6, util=min(writes * 0.005, 0.97),
                    iowait_pct=6.0)


class SimHost:
    """Counters of one simulated data-node host, grown in simulated time."""

    def __init__(self, cluster: SimCluster, node_id: int | None = None) -> None:
        self.cluster = cluster
        self.node_id = node_id if node_id is not None else next(iter(cluster.data_nodes))
        self.cpus = cluster.config.host_cpus
        self._last = cluster.now
        self._disks = {
            "sda": [0.0] * 7,
            "sdb": [0.0] * 7,
        }
        self._cpu = {"user": 0.0, "system": 0.0, "iowait": 0.0, "idle": 0.0}
        self._prev: HostSample | None = None
        self._cur: HostSample | None = None

    def _load(self) -> tuple[DiskLoad, float]:
        node = self.cluster.data_nodes[self.node_id]
        busy = sum(node.loads) / 100.0
        if node.activity() == "redo_init":
            rate = node.redo_total_mb / node.redo_init_seconds if node.redo_init_seconds else 0.0
            return redo_init_load(rate, self.cluster.disk_profile != "fast_redo"), busy
        if not node.serving:
            return DiskLoad(writes=0.4, write_kb=6.0, util=0.002), busy
        redo_kb = node.redo_write_bps / 1024.0
        lcp_kb = node.lcp_write_bps / 1024.0
        write_kb = redo_kb + lcp_kb
        writes = max(write_kb / 64.0, 1.0)
        rates = list(node.dpb_rate.values())
        page_reads = sum(r["pages_read"] for r in rates)
        util = min(0.02 + writes * 0.0015 + page_reads * 0.004, 0.97)
        return DiskLoad(
            reads=page_reads,
            read_kb=page_reads * 32.0,
            writes=writes,
            write_kb=write_kb,
            await_ms=0.9 + page_reads * 0.01,
            util=util,
            iowait_pct=min(page_reads * 0.05, 15.0),
        ), busy

    def _grow(self) -> None:
        now = self.cluster.now
        dt = now - self._last
        self._last = now
        if dt <= 0:
            return
        load, busy_cpus = self._load()
        jitter = 1.0 + load.jitter * noise(self.cluster.seed, int(now), self.node_id, 7)
        data = self._disks["sdb"]
        data[0] += load.reads * dt * jitter
        data[1] += load.writes * dt * jitter
        data[2] += load.read_kb * 1024 * dt * jitter
        data[3] += load.write_kb * 1024 * dt * jitter
        data[4] += load.reads * dt * load.await_ms
        data[5] += load.writes * dt * load.await_ms * jitter
        # A saturated device is busy the whole interval, whatever the request rate.
        data[6] += (1.0 if load.util >= 1.0 else min(load.util * jitter, 1.0)) * dt * 1000
        system = self._disks["sda"]
        system[1] += 1.5 * dt
        system[3] += 24 * 1024 * dt
        system[5] += 1.5 * dt * 0.4
        system[6] += 0.004 * dt * 1000
        total = self.cpus * dt
        iowait = total * load.iowait_pct / 100.0
        user = min(busy_cpus * 0.84 * dt, total - iowait)
        sys_ = min(busy_cpus * 0.16 * dt + 0.01 * total, total - iowait - user)
        self._cpu["user"] += user
        self._cpu["system"] += sys_
        self._cpu["iowait"] += iowait
        self._cpu["idle"] += max(total - user - sys_ - iowait, 0.0)

    def sample(self) -> HostSample:
        """The host's counters now (disks, CPU times, the data node's threads)."""
        self._grow()
        disks = tuple(
            DiskCounters(
                name, int(c[0]), int(c[1]), int(c[2]), int(c[3]), int(c[4]), int(c[5]), int(c[6])
            )
            for name, c in self._disks.items()
        )
        c = self._cpu
        cpu = CpuTimes(c["user"], 0.0, c["system"], c["idle"], c["iowait"], 0.0, 0.0, 0.0, 0.0, 0.0)
        node = self.cluster.data_nodes[self.node_id]
        threads: tuple[ThreadSample, ...] = ()
        if node.alive:
            pid = process_id(node.node_id)
            threads = tuple(
                ThreadSample(
                    pid,
                    node.node_id,
                    "ndbmtd",
                    thread_tid(node.node_id, t.thr_no),
                    # ndbmtd never names its threads (NdbThread_Create keeps the name to
                    # itself): every one's comm is the process's.
                    "ndbmtd",
                    node.cpu_user_us[i] / 1e6,
                    node.cpu_sys_us[i] / 1e6,
                )
                for i, t in enumerate(node.threads)
            )
        sample = HostSample(self.cluster.now, disks, cpu, threads)
        self._prev, self._cur = self._cur, sample
        return sample

    def read_file(self, path: str) -> str | None:
        """The node's error log, when ``path`` names it and the host holds one."""
        node = self.cluster.data_nodes[self.node_id]
        wanted = f"{node.cfg.datadir.rstrip('/') or '/'}/ndb_{self.node_id}_error.log"
        return self.cluster.error_logs.get(self.node_id) if path == wanted else None

    def disk_free(self, path: str) -> DiskFree | None:
        """The file system of the node's DataDir: a 500 GiB disk, its file system mostly
        the data node's files."""
        node = self.cluster.data_nodes[self.node_id]
        if path != node.cfg.datadir:
            return None
        total = 500 << 30
        used = min(self.cluster.config.data_memory_mb * (1 << 20) * 2 + (40 << 30), total)
        if self.node_id in self.cluster.full_data_dirs:
            used = total
        return DiskFree(path, "/var/lib/mysql-cluster", total, total - used,
                        -(-used * 100 // total))

    def processes(self) -> tuple[ProcessSeen, ...]:
        """The node's angel and worker while it runs; none once it has failed."""
        node = self.cluster.data_nodes[self.node_id]
        if not node.alive:
            return ()
        pid = process_id(self.node_id)
        return (ProcessSeen(pid - 1, self.node_id, True), ProcessSeen(pid, self.node_id, False))

    def view(self) -> HostView | None:
        """Rates between the last two samples."""
        if self._cur is None:
            return None
        return host_view(self._prev, self._cur)
