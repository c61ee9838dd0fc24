"""What the hub's helpers need from it: its cluster log (:mod:`.hub_log`), its snapshot
(:mod:`.hub_snapshot`) and ``--once`` (:mod:`.once`, :mod:`.once_redo`).

The hub (:class:`~ndbtop.collect.hub.Hub`) gives each helper itself; they name here only
the hub's public face, so none of them imports the hub (the hub imports them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ndbtop.collect.backup_memory import BackupMemory
    from ndbtop.collect.backups import BackupReporter
    from ndbtop.collect.cluster_log import ClusterLogSource
    from ndbtop.collect.config import ConfigSource
    from ndbtop.collect.events import EventSource
    from ndbtop.collect.host import HostSource
    from ndbtop.collect.hosts import HostSet
    from ndbtop.collect.memory_report import MemoryReporter
    from ndbtop.collect.mgm import MgmSource
    from ndbtop.collect.replication import ReplicationSource
    from ndbtop.collect.sample_rates import SampleRates
    from ndbtop.collect.series import SeriesRecorder
    from ndbtop.collect.sql import SqlSource
    from ndbtop.eta.node_evidence import StartEtaKeeper
    from ndbtop.findings import FindingsKeeper
    from ndbtop.mgm.events.decode import Event
    from ndbtop.model.backups import Backup
    from ndbtop.model.clock import Clock
    from ndbtop.model.config import ClusterConfig
    from ndbtop.model.history import PastStart
    from ndbtop.model.live import LiveFilter
    from ndbtop.model.ndbinfo import NdbinfoSample
    from ndbtop.model.phases import StartTimeline
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.model.sources import SourceStatus
    from ndbtop.model.statistics import NodeStatistics


class HubFace(Protocol):
    """The hub as its helpers see it: its sources, its state (read only) and the calls that
    change it."""

    clock: Clock
    interval: float
    mgm: MgmSource
    config: ConfigSource
    events: EventSource | None
    sql: SqlSource | None
    host: HostSource | None
    hosts: HostSet
    cluster_log: ClusterLogSource | None
    replication: ReplicationSource | None
    backup_reporter: BackupReporter
    backup_memory: BackupMemory
    memory_reporter: MemoryReporter
    live_filter: LiveFilter

    @property
    def started(self) -> bool:
        """Whether the sources run as tasks (the live view; not ``--once``)."""

    @property
    def ndbinfo_sample(self) -> NdbinfoSample | None:
        """The last ndbinfo sample, whatever the nodes' states."""

    @property
    def timelines(self) -> Mapping[int, StartTimeline]:
        """Each node's start timeline, by node id."""

    @property
    def told(self) -> Mapping[int, tuple[str, float]]:
        """Node -> (state, when) an event told, newer than the last ``get status``."""

    @property
    def event_history(self) -> Sequence[Event]:
        """The last events, oldest first."""

    @property
    def events_total(self) -> int:
        """Every event received since the hub began."""

    @property
    def statistics(self) -> Mapping[int, NodeStatistics]:
        """Each data node's statistics from its events, by node id."""

    @property
    def rates(self) -> SampleRates:
        """The rates between the last two ndbinfo samples."""

    @property
    def series(self) -> SeriesRecorder:
        """The recent history of the figures the charts draw."""

    @property
    def past_starts(self) -> tuple[PastStart, ...]:
        """The cluster's start history."""

    @property
    def backups(self) -> tuple[Backup, ...]:
        """The backups seen."""

    @property
    def backup_failures(self) -> int:
        """Backups that failed to start or were aborted since the hub began."""

    @property
    def start_etas(self) -> StartEtaKeeper:
        """The estimates of each starting node's time to STARTED."""

    @property
    def findings(self) -> FindingsKeeper:
        """The findings, kept between snapshots."""

    def cluster_config(self) -> ClusterConfig | None:
        """The cluster configuration last read, if any."""

    def source_statuses(self) -> tuple[SourceStatus, ...]:
        """The status of every source, disabled ones included."""

    def changed(self, urgent: bool = False) -> None:
        """A source's reading changed."""

    def on_mgm(self) -> None:
        """A ``get status`` was read."""

    def set_timelines(self, timelines: dict[int, StartTimeline]) -> None:
        """Adopt new timelines."""

    def hold_panels(self, held: bool) -> None:
        """Read no on-demand panel while ``held``."""

    def read_again(self, panels: frozenset[str]) -> None:
        """Read the slow ndbinfo ``panels`` at the next sample."""

    async def read_cluster_log(self) -> None:
        """Read the management servers' cluster log files."""

    def snapshot(self) -> ClusterSnapshot:
        """The current picture of the cluster."""
