"""The immutable picture of the cluster that every view renders.

The TUI, the ``--once`` report, the recorder and the wait command consume the
same :class:`ClusterSnapshot`; nothing in it holds a socket or changes after
it is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.host.view import HostView
from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import Backup
from ndbtop.model.config import ClusterConfig
from ndbtop.model.derive import ActivityRate, HitRatio, IoLagRate, LinkRate, RedoFillRate
from ndbtop.model.eta import EtaResult
from ndbtop.model.findings import Finding
from ndbtop.model.history import PastStart
from ndbtop.model.hosts import HostReport
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.phases import StartTimeline
from ndbtop.model.replication import ReplicationState
from ndbtop.model.series import SeriesSet
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.model.statistics import NodeStatistics


@dataclass(frozen=True, **SLOTS)
class ClusterSnapshot:
    """Everything known about the cluster at one moment.

    ``taken_at`` is monotonic (for ages and rates), ``wall`` the matching
    epoch time (for display). ``events`` are the most recent events, oldest
    first; ``events_total`` counts every event received so far, so a view can
    tell which ones it has not shown yet.
    """

    taken_at: float
    wall: float
    interval: float
    sources: tuple[SourceStatus, ...]
    mgm_address: str | None = None
    mgm_version: str | None = None
    nodes: tuple[NodeStatus, ...] = ()
    cluster_log_levels: tuple[tuple[str, int], ...] = ()
    events: tuple[Event, ...] = ()
    events_total: int = 0
    timelines: tuple[StartTimeline, ...] = ()
    statistics: tuple[NodeStatistics, ...] = ()
    ndbinfo: NdbinfoSample | None = None
    hit_ratios: tuple[HitRatio, ...] = ()
    link_rates: tuple[LinkRate, ...] = ()
    activity_rates: tuple[ActivityRate, ...] = ()
    io_lag_rates: tuple[IoLagRate, ...] = ()
    """Seconds each data node's redo writes were slowed down for I/O lag between the last
    two readings of ``disk_write_speed``."""
    redo_fill_rates: tuple[RedoFillRate, ...] = ()
    """How fast each redo log part filled between the last two readings of ``logspaces``."""
    host: HostView | None = None
    history: tuple[tuple[str, tuple[float | None, ...]], ...] | SeriesSet = ()
    """Recent values of a few time series (``hit.interval.<node>``, ``disk.w_s.<disk>``...):
    ``(key, values)`` pairs, a tuple or a :class:`~ndbtop.model.series.SeriesSet` that reads
    as one."""
    past_starts: tuple[PastStart, ...] = ()
    """Starts of this cluster's nodes remembered from earlier runs (and this one)."""
    config: ClusterConfig | None = None
    """The last cluster configuration decoded (its source is ``config``)."""
    backups: tuple[Backup, ...] = ()
    """Backups seen (events and status reports), oldest first."""
    backup_failures: int = 0
    """Backups that aborted or failed to start since ndbtop started (BackupAborted and
    BackupFailedToStart events received), however many ``backups`` still holds."""
    backup_data_in_use: tuple[tuple[int, float], ...] = ()
    """Bytes of DataMemory in use per data node, asked of the data nodes (``REPORT
    MEMORYUSAGE``) for the running backup when ndbinfo does not give them."""
    hosts: tuple[HostReport, ...] = ()
    """Every data node host read: the local one (``via`` local) and those over SSH."""
    findings: tuple[Finding, ...] = ()
    """What is wrong or about to go wrong, most severe first, as the hub judged it
    (:mod:`ndbtop.findings`), each with the time it first held."""
    memory_reports: tuple[Event, ...] = ()
    """The data nodes' last MemoryUsage report (``REPORT MEMORYUSAGE``), asked when ndbinfo
    does not give DataMemory in use, each event stamped when the answer came."""
    cluster_log: tuple[LogLine, ...] = ()
    """The cluster log's recent history read from the management servers' files (their
    last hour), oldest first, each line with its own time (``origin`` ``file``)."""
    start_etas: tuple[tuple[int, EtaResult], ...] = ()
    """(node id, estimate of its time to STARTED or why there is none) for every data node
    that is starting (:mod:`ndbtop.eta.node`)."""
    replication: ReplicationState | None = None
    """The replication channels between this cluster and its replica, when a replica side
    is named (:mod:`ndbtop.collect.replication`)."""

    def source(self, name: str) -> SourceStatus | None:
        """The status of one source (``mgm``, ``events``, ``ndbinfo``, ``host``)."""
        return next((s for s in self.sources if s.name == name), None)

    def live_ndbinfo(self) -> NdbinfoSample | None:
        """The ndbinfo sample while the SQL node answers, else None (its figures may be old)."""
        src = self.source("ndbinfo")
        if src is None or src.state is not SourceState.CONNECTED:
            return None
        return self.ndbinfo

    def node(self, node_id: int) -> NodeStatus | None:
        """The ``get status`` entry of a node."""
        return next((n for n in self.nodes if n.node_id == node_id), None)

    def data_nodes(self) -> tuple[NodeStatus, ...]:
        """The data nodes, by id."""
        return tuple(sorted((n for n in self.nodes if n.type == "NDB"), key=lambda n: n.node_id))

    def timeline(self, node_id: int) -> StartTimeline | None:
        """The current or last start of a data node."""
        return next((t for t in self.timelines if t.node_id == node_id), None)

    def start_eta(self, node_id: int) -> EtaResult | None:
        """The estimate of a starting data node's time to STARTED (None: not starting)."""
        return next((e for n, e in self.start_etas if n == node_id), None)

    def host_of(self, node_id: int) -> HostReport | None:
        """The report of the host data node ``node_id`` runs on, if it is read."""
        return next((h for h in self.hosts if node_id in h.node_ids), None)

    def series(self, key: str) -> tuple[float | None, ...]:
        """The recent values of one time series, oldest first."""
        history = self.history
        if isinstance(history, SeriesSet):
            return history.get(key)
        return next((v for k, v in history if k == key), ())

    @property
    def cluster_log_level(self) -> dict[str, int]:
        """Cluster-log level per category name (empty until read)."""
        return dict(self.cluster_log_levels)
