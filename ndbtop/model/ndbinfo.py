"""What one ``ndbinfo`` sample holds: frozen values, one type per panel.

Counters are kept raw (as the data nodes report them); rates and ratios over
an interval are computed from two samples by :mod:`ndbtop.model.derive`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ndbtop.compat import SLOTS
from ndbtop.model.locks import DEFAULT_TXN_AGE_S, LockRow, Transaction
from ndbtop.model.membership_rows import MembershipRow
from ndbtop.model.table_memory import TableMemory


@dataclass(frozen=True, **SLOTS)
class NdbinfoNode:
    """A row of ``ndbinfo.nodes``: a started data node's uptime and state."""

    node_id: int
    uptime_s: int
    status: str
    start_phase: int
    config_generation: int


class ThreadCpu(NamedTuple):
    """One data-node thread: name, blocks and its CPU over the last second (``cpustat``).

    OS figures are percentages reported by the OS; ``exec_pct`` ... ``buffer_full_pct`` are
    measured by the thread itself (None where the version has no ``cpustat``, in which case
    the OS figures come from ``threadstat`` deltas).

    A named tuple rather than a frozen dataclass like the other values: one is built per
    thread of the cluster at every refresh, and a named tuple is several times cheaper to
    build.
    """

    node_id: int
    thr_no: int
    thread_name: str
    blocks: tuple[str, ...] = ()
    os_user_pct: float | None = None
    os_system_pct: float | None = None
    exec_pct: float | None = None
    spin_pct: float | None = None
    send_pct: float | None = None
    buffer_full_pct: float | None = None
    os_tid: int | None = None

    @property
    def cpu_pct(self) -> float:
        """Busy percentage as ndb_top ranks threads: max(thread-measured, OS-measured)."""
        measured = (
            (self.exec_pct or 0.0)
            + (self.send_pct or 0.0)
            + (self.buffer_full_pct or 0.0)
            + (self.spin_pct or 0.0)
        )
        os_busy = (self.os_user_pct or 0.0) + (self.os_system_pct or 0.0)
        return measured if measured >= os_busy else os_busy


@dataclass(frozen=True, **SLOTS)
class DiskPageBuffer:
    """``diskpagebuffer`` summed over a node's PGMAN instances (counters since node start)."""

    node_id: int
    page_requests_direct_return: int
    page_requests_wait_queue: int
    page_requests_wait_io: int
    pages_read: int
    pages_written: int
    pages_written_lcp: int
    log_waits: int


@dataclass(frozen=True, **SLOTS)
class DiskWriteSpeed:
    """``disk_write_speed_aggregate_node``: bytes/s written for LCP+backup and redo."""

    node_id: int
    backup_lcp_last_sec: int
    redo_last_sec: int
    backup_lcp_last_10sec: int
    redo_last_10sec: int
    backup_lcp_last_60sec: int
    redo_last_60sec: int
    slowdowns_io_lag: int | None = None
    """Seconds of slowdown for redo I/O lag since the node started, over its LDM threads
    (``disk_write_speed_aggregate.slowdowns_due_to_io_lag``; None when not read)."""


@dataclass(frozen=True, **SLOTS)
class DiskStat:
    """``diskstat`` summed per node: disk data page I/O per second over the last second."""

    node_id: int
    reads_completed: int
    writes_completed: int
    log_writes_completed: int
    get_page_reqs_issued: int


@dataclass(frozen=True, **SLOTS)
class LogSpace:
    """``logspaces``/``logbuffers``: one redo log part or undo log group (bytes)."""

    node_id: int
    log_type: str
    log_id: int
    log_part: int
    total: int
    used: int

    @property
    def used_pct(self) -> float | None:
        """Percent used; None when the total is unknown."""
        return None if self.total <= 0 else 100.0 * self.used / self.total


@dataclass(frozen=True, **SLOTS)
class MemoryUse:
    """``memoryusage``: one memory type of one node (bytes and pages)."""

    node_id: int
    memory_type: str
    used: int
    used_pages: int
    total: int
    total_pages: int

    @property
    def used_pct(self) -> float | None:
        """Percent used; None when the total is unknown."""
        return None if self.total <= 0 else 100.0 * self.used / self.total


@dataclass(frozen=True, **SLOTS)
class RestartInfo:
    """``restart_info``: the phase durations of a node's last restart (seconds)."""

    node_id: int
    status: str
    status_int: int
    phases: tuple[tuple[str, int], ...]
    """(column name, seconds) for every ``secs_*`` column except the total, in table order."""
    total_s: int


@dataclass(frozen=True, **SLOTS)
class NodeLinks:
    """``transporters`` summed per data node: its links to every other configured node.

    Byte counters restart when a link connects again, so their sums can go back.
    """

    node_id: int
    links: int
    connects: int
    """``connect_count`` summed over the links (0 before 7.5)."""
    bytes_sent: int
    bytes_received: int
    down: tuple[int, ...] = ()
    """Nodes the link to which is not ``CONNECTED`` (an API slot nobody uses among them)."""
    overloaded: tuple[int, ...] = ()
    """Nodes whose send buffer is past ``OverloadLimit``: transactions over it fail (1218)."""
    slowdown: tuple[int, ...] = ()
    """Nodes whose send buffer is past 60% of the overload limit."""
    pressure: tuple[tuple[int, int, int], ...] = ()
    """(remote node, overload_count, slowdown_count) of each link that was ever overloaded
    or slowed down since it connected."""


@dataclass(frozen=True, **SLOTS)
class NodeActivity:
    """``counters`` summed per data node: what its transaction coordinators (DBTC) and
    local query handlers (DBLQH) did since the node started."""

    node_id: int
    transactions: int
    commits: int
    aborts: int
    reads: int
    """Primary and unique key reads."""
    writes: int
    """Primary and unique key writes."""
    scans: int
    """Table and range scans."""
    operations: int
    """Operations the node's LDM threads executed (its share of the data)."""


@dataclass(frozen=True, **SLOTS)
class ApiProcess:
    """An API or SQL node's process as ``ndbinfo.processes`` names it (its view gives NULL
    for a pid of 0, and an API node on Linux has no angel)."""

    node_id: int
    node_version: str
    process_id: int | None
    angel_process_id: int | None
    process_name: str
    service_uri: str


@dataclass(frozen=True, **SLOTS)
class NdbinfoSample:
    """Everything read from ``ndbinfo`` in one refresh, stamped with a monotonic time.

    A panel whose table could not be read (missing privilege, missing table in this
    version) is absent from its tuple and named in ``unavailable`` with the reason.
    Panels not refreshed this time keep the values of the previous sample.
    """

    taken_at: float
    ndb_version: int | None
    nodes: tuple[NdbinfoNode, ...] = ()
    threads: tuple[ThreadCpu, ...] = ()
    disk_page_buffer: tuple[DiskPageBuffer, ...] = ()
    disk_write_speed: tuple[DiskWriteSpeed, ...] = ()
    disk_stat: tuple[DiskStat, ...] = ()
    config_values: tuple[tuple[int, int, str], ...] = ()
    """(node id, parameter id, value as text) of ``ndbinfo.config_values``: the
    configuration each data node runs with, for the parameters ndbtop compares."""
    log_spaces: tuple[LogSpace, ...] = ()
    log_buffers: tuple[LogSpace, ...] = ()
    memory: tuple[MemoryUse, ...] = ()
    restart_info: tuple[RestartInfo, ...] = ()
    links: tuple[NodeLinks, ...] = ()
    activity: tuple[NodeActivity, ...] = ()
    processes: tuple[ApiProcess, ...] = ()
    """The API and SQL nodes' processes: read only while something asks for them."""
    membership: tuple[MembershipRow, ...] = ()
    """How each started data node sees the membership (``ndbinfo.membership``): read only
    while something asks for it."""
    tables: tuple[TableMemory, ...] = ()
    """The largest tables' memory per node (``memory_per_fragment``): read only while
    something asks for them."""
    transactions: tuple[Transaction, ...] = ()
    """Transactions idle at least ``txn_age_s``, the oldest first: read only while
    something asks for them."""
    txn_age_s: int = DEFAULT_TXN_AGE_S
    """The age ``transactions`` were read with."""
    locks: tuple[LockRow, ...] = ()
    """The lock waits and the locks they wait for: read only while something asks."""
    transactions_more: bool = False
    """The read gave more transactions than are kept (:data:`~ndbtop.model.locks.MAX_TRANSACTIONS`,
    read with one more): ``transactions`` are the first of at least one more."""
    locks_more: bool = False
    """The read gave more lock rows than are kept (:data:`~ndbtop.model.locks.MAX_LOCKS`)."""
    oldest_transaction: tuple[Transaction, ...] = ()
    """The transaction idle longest when it passed 60 s (one row at most): read in the
    background while ``transactions`` is not asked for."""
    unavailable: tuple[tuple[str, str], ...] = field(default=())
    """(panel, reason) for every panel that could not be read."""
    read_at: tuple[tuple[str, float], ...] = field(default=())
    """(panel, when it was last read) on the clock of ``taken_at``: panels read in rotation
    are older than the sample."""
    queries: int = 0
    """Queries this refresh sent (each one scans every data node)."""
    rows: int = 0
    """Rows those queries returned."""

    def panel_read_at(self, panel: str) -> float | None:
        """When a panel was last read (None if never)."""
        return dict(self.read_at).get(panel)
