"""Simulated backups: what the data nodes do for ``start backup`` and ``abort backup``.

The master data node takes the request, reports BackupStarted once the
backup files are created, and every started data node writes its share of
the data (its ``DataMemory`` in use) at ``bytes_per_s``, plus the redo of the
transactions that run meanwhile (the backup log). When every node is done,
the master reports BackupCompleted with the totals. A participant that stops
aborts the backup (BackupAborted, 1326); ``abort backup`` of the running id
aborts it too (1321). A second start while one runs is refused with 1302.
Each node's progress is what ``REPORT BACKUPSTATUS`` returns (BackupStatus), summed over
its LDM threads as BackupProxy sums it: low and high words apart, the carry lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ndbtop.compat import SLOTS
from ndbtop.mgm import errorcodes as ec
from ndbtop.sim.workload import noise

if TYPE_CHECKING:
    from ndbtop.sim.cluster.datanode import SimDataNode
    from ndbtop.sim.cluster.state import ClusterState

BACKUP_STARTED = 54
BACKUP_FAILED_TO_START = 55
BACKUP_COMPLETED = 56
BACKUP_ABORTED = 57

START_SECONDS = 2.0
"""From the request to BackupStarted (files created, start GCP)."""
STOP_SECONDS = 1.5
"""From the last node's data to BackupCompleted (stop GCP, files closed)."""
CHECK_EVERY = 1.0
ROW_BYTES = 212
"""Average bytes a row takes in the backup files."""
DATA_SHARE = 0.8
"""Share of the pages in use that holds row data (the rest is free space in pages)."""
LOG_BYTES_PER_TXN = 96.0
"""Backup-log bytes per transaction spread over the nodes while the data is written."""
LOG_RECORD_BYTES = 48


@dataclass(**SLOTS)
class SimBackup:
    """A backup in progress (or ended: ``outcome`` set)."""

    backup_id: int
    starting_node: int
    master: int
    requested_at: float
    data_bytes: dict[int, int]
    rates: dict[int, float]
    """Data bytes per second of each node (its disks differ a little)."""
    started: bool = False
    started_at: float | None = None
    start_gci: int = 0
    outcome: tuple[str, int] | None = None
    """("completed", 0) or ("aborted", error code)."""
    log_bytes: dict[int, float] = field(default_factory=dict)

    def data_written(self, node_id: int, now: float) -> int:
        """Data bytes ``node_id`` has written by ``now``."""
        if self.started_at is None:
            return 0
        total = self.data_bytes.get(node_id, 0)
        return min(total, int(self.rates[node_id] * max(now - self.started_at, 0.0)))

    def done_at(self) -> float | None:
        """When the slowest node has written its data."""
        if self.started_at is None:
            return None
        longest = max((b / self.rates[n] for n, b in self.data_bytes.items()), default=0.0)
        return self.started_at + longest


class SimBackups:
    """The backups of one simulated cluster."""

    def __init__(self, cluster: ClusterState, bytes_per_s: float = 64 * 1024 * 1024) -> None:
        self.cluster = cluster
        self.bytes_per_s = bytes_per_s
        """Bytes a data node writes per second (data), as its disks and
        ``MaxDiskWriteSpeed`` allow."""
        self.current: SimBackup | None = None
        self.ended: dict[int, SimBackup] = {}
        self.next_id = 1

    def _serving(self) -> list[SimDataNode]:
        return [n for n in self.cluster.data_nodes.values() if n.serving]

    def start(self, starting_node: int, backup_id: int | None = None) -> tuple[int | None, int]:
        """A ``start backup`` request: (error code or None, backup id)."""
        master = self.cluster.master()
        if master is None:
            # MgmtSrvr::startBackup has no 5030 check: the request finds no started node
            # to go to and the send fails.
            return ec.SEND_OR_RECEIVE_FAILED, 0
        if self.current is not None:
            return ec.BACKUP_ALREADY_RUNNING, 0
        bid = backup_id or self.next_id
        self.next_id = max(self.next_id, bid + 1)
        nodes = self._serving()
        # Each node writes the fragments it is primary for: its share of one replica.
        replicas = max(self.cluster.config.no_of_replicas, 1)
        data = {n.node_id: int(n.data_pages_used * 32768 * DATA_SHARE) // replicas for n in nodes}
        seed = self.cluster.seed
        rates = {n: self.bytes_per_s * (1 + 0.08 * noise(seed, bid, n)) for n in data}
        backup = SimBackup(bid, starting_node, master.node_id, self.cluster.now, data, rates)
        self.current = backup
        self.cluster.after(START_SECONDS, lambda: self._started(backup))
        return None, bid

    def _started(self, backup: SimBackup) -> None:
        if backup.outcome is not None:
            return
        backup.started = True
        backup.started_at = self.cluster.now
        backup.start_gci = self._gci()
        self.cluster.emit(BACKUP_STARTED, backup.master, backup.starting_node, backup.backup_id)
        self.cluster.after(CHECK_EVERY, lambda: self._check(backup))

    def _gci(self) -> int:
        return int(self.cluster.now / 2) + 1000

    def _log_rate(self, backup: SimBackup) -> float:
        return self.cluster.workload.tps * LOG_BYTES_PER_TXN / max(len(backup.data_bytes), 1)

    def log_written(self, backup: SimBackup, now: float) -> int:
        """Backup-log bytes one node has written by ``now`` (until its data is done)."""
        done = backup.done_at()
        if backup.started_at is None or done is None:
            return 0
        return int(self._log_rate(backup) * max(min(now, done) - backup.started_at, 0.0))

    def _check(self, backup: SimBackup) -> None:
        if backup.outcome is not None:
            return
        failed = [
            nid for nid in backup.data_bytes if not self.cluster.data_nodes[nid].serving
        ]
        if failed:
            self._abort(backup, ec.BACKUP_ABORTED_NODE_FAILURE)
            return
        done = backup.done_at()
        if done is not None and self.cluster.now >= done:
            self.cluster.after(STOP_SECONDS, lambda: self._completed(backup))
            return
        self.cluster.after(CHECK_EVERY, lambda: self._check(backup))

    def _completed(self, backup: SimBackup) -> None:
        if backup.outcome is not None:
            return
        if any(not self.cluster.data_nodes[n].serving for n in backup.data_bytes):
            self._abort(backup, ec.BACKUP_ABORTED_NODE_FAILURE)
            return
        now = self.cluster.now
        n_bytes = sum(backup.data_bytes.values())
        n_records = n_bytes // ROW_BYTES
        log_bytes = self.log_written(backup, now) * len(backup.data_bytes)
        log_records = log_bytes // LOG_RECORD_BYTES
        master = self.cluster.master()
        source = master.node_id if master is not None else backup.master
        b, r = _split(n_bytes), _split(n_records)
        lb, lr = _split(log_bytes), _split(log_records)
        self.cluster.emit(
            BACKUP_COMPLETED, source, backup.starting_node, backup.backup_id,
            backup.start_gci, self._gci(), b[0], r[0], lb[0], lr[0], 0, 0,
            b[1], r[1], lb[1], lr[1],
        )
        self._end(backup, ("completed", 0))

    def _abort(self, backup: SimBackup, error: int) -> None:
        master = self.cluster.master()
        if master is not None:
            self.cluster.emit(
                BACKUP_ABORTED, master.node_id, backup.starting_node, backup.backup_id, error
            )
        self._end(backup, ("aborted", error))

    def _end(self, backup: SimBackup, outcome: tuple[str, int]) -> None:
        backup.outcome = outcome
        self.ended[backup.backup_id] = backup
        if self.current is backup:
            self.current = None

    def abort(self, backup_id: int) -> int | None:
        """An ``abort backup`` request: an error code, or None (the order was sent).

        The server answers Ok for any id once a data node is reachable; only the
        running backup with that id is aborted.
        """
        if not self._serving():
            return ec.NO_CONTACT_WITH_DB_NODES
        backup = self.current
        if backup is not None and backup.backup_id == backup_id:
            self.cluster.after(0.5, lambda: self._user_abort(backup))
        return None

    def _user_abort(self, backup: SimBackup) -> None:
        if backup.outcome is None:
            self._abort(backup, ec.BACKUP_ABORTED_BY_USER)

    def status_words(self, node: SimDataNode) -> tuple[int, ...]:
        """The BackupStatus words ``node`` reports (all 0: "Backup not started")."""
        backup = self.current
        if backup is None or not backup.started or node.node_id not in backup.data_bytes:
            return (0,) * 10
        now = self.cluster.now
        data = backup.data_written(node.node_id, now)
        log = self.log_written(backup, now)
        # Each BACKUP instance (one per LDM thread) counts its share; BackupProxy adds
        # their low words and their high words apart, without a carry.
        workers = max(sum(1 for t in node.threads if ("BACKUP", t.instance) in t.blocks), 1)
        data_parts, log_parts = _shares(data, workers), _shares(log, workers)
        b = _proxy_sum(data_parts)
        r = _proxy_sum([d // ROW_BYTES for d in data_parts])
        lb = _proxy_sum(log_parts)
        lr = _proxy_sum([x // LOG_RECORD_BYTES for x in log_parts])
        return (backup.starting_node, backup.backup_id, *b, *r, *lb, *lr)

    def outcome(self, backup_id: int) -> tuple[str, int] | None:
        """How a backup ended, or None while it runs."""
        ended = self.ended.get(backup_id)
        return None if ended is None else ended.outcome

    def has_started(self, backup_id: int) -> bool:
        """True once BackupStarted was reported (or the backup already ended)."""
        current = self.current
        if current is not None and current.backup_id == backup_id:
            return current.started
        return backup_id in self.ended


def _split(value: int) -> tuple[int, int]:
    """(low, high) 32-bit words of a 64-bit count."""
    return value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF


def _shares(value: int, workers: int) -> list[int]:
    """``value`` spread over ``workers`` as evenly as whole numbers go."""
    return [value // workers + (1 if i < value % workers else 0) for i in range(workers)]


def _proxy_sum(counts: list[int]) -> tuple[int, int]:
    """The (low, high) words ``BackupProxy::sendSUM_EVENT_REP`` reports for the workers'
    64-bit ``counts``: each word summed as a Uint32, the low words' carry lost."""
    low = sum(c & 0xFFFFFFFF for c in counts) & 0xFFFFFFFF
    high = sum(c >> 32 for c in counts) & 0xFFFFFFFF
    return low, high
