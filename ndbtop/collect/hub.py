"""The hub: runs every source in the background and builds snapshots from their results.

One task per source, each re-armed only after its previous poll finished, so
polls never overlap. Results arrive on the event loop; :meth:`Hub.snapshot`
folds the latest of each into an immutable :class:`ClusterSnapshot` (cached
until something changes).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ndbtop.aio import cancel_and_wait
from ndbtop.collect.backup_memory import BackupMemory
from ndbtop.collect.backups import DEFAULT_EVERY, BackupReporter
from ndbtop.collect.cluster_log import ClusterLogSource, TailReader
from ndbtop.collect.config import ConfigSource
from ndbtop.collect.events import BACKUP_FAILURES, STATE_EVENTS, TOLD_STATUS, EventSource
from ndbtop.collect.history_store import KEEP as HISTORY_KEEP
from ndbtop.collect.history_store import HistoryStore
from ndbtop.collect.host import HostReader, HostSource
from ndbtop.collect.hosts import HostSet
from ndbtop.collect.hub_log import HubClusterLog
from ndbtop.collect.hub_snapshot import build_snapshot, data_memory_known
from ndbtop.collect.memory_report import MemoryReporter
from ndbtop.collect.mgm import MgmSource
from ndbtop.collect.once import collect_once
from ndbtop.collect.replication import ReplicationSource
from ndbtop.collect.sample_rates import SampleRates
from ndbtop.collect.series import HISTORY_POINTS, THREAD_HISTORY_POINTS, SeriesRecorder
from ndbtop.collect.sql import NdbinfoReader, SqlSource
from ndbtop.eta.node_evidence import StartEtaKeeper
from ndbtop.findings import FindingsKeeper
from ndbtop.host.remote import SshOptions
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.backups import Backup, apply_backup_event, apply_status_report, running_backup
from ndbtop.model.clock import Clock
from ndbtop.model.config import ClusterConfig
from ndbtop.model.history import PastStart, cluster_key, past_start
from ndbtop.model.live import LiveFilter
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.phases import StartTimeline, apply_event, apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.model.start_evidence import apply_host
from ndbtop.model.statistics import NodeStatistics, apply_statistics
from ndbtop.replication.setup import ReplicationSetup

__all__ = ["EVENT_HISTORY", "HISTORY_POINTS", "THREAD_HISTORY_POINTS", "Hub"]

EVENT_HISTORY = 2000
"""Events kept for the Events view."""


class Hub:
    """Owns the sources and the state derived from them (read only from outside: its helpers
    see it as :class:`~ndbtop.collect.hub_face.HubFace`)."""

    def __init__(
        self,
        connectstring: ConnectString,
        clock: Clock,
        interval: float = 1.0,
        *,
        ndbinfo: tuple[NdbinfoReader, str] | None = None,
        host: HostReader | None = None,
        host_blocking: bool = True,
        events: bool = True,
        sql_disabled_reason: str = "--no-sql",
        history_dir: Path | None = None,
        cluster_name: str | None = None,
        backup_status_every: float = DEFAULT_EVERY,
        ssh: SshOptions | None = None,
        host_name: str | None = None,
        simulated_hosts: tuple[tuple[str, HostReader], ...] = (),
        host_via: str = "local",
        cluster_log: bool = True,
        log_readers: Mapping[str, TailReader] | None = None,
        history_writes: bool = True,
        replication: ReplicationSetup | None = None,
    ) -> None:
        self.clock = clock
        self.interval = interval
        self.connectstring = connectstring
        self._version = 0
        self._cached: ClusterSnapshot | None = None
        self._listeners: list[Callable[[], None]] = []
        self._states: tuple[SourceState, ...] = ()
        self.mgm = MgmSource(connectstring, clock, interval, self.on_mgm)
        self._backups: tuple[Backup, ...] = ()
        self._backup_failures = 0
        self.backup_reporter = BackupReporter(
            backup_status_every,
            lambda: running_backup(self._backups) is not None,
            self._on_backup_report,
            clock.monotonic,
        )
        self.backup_reporter.memory = self.backup_memory = BackupMemory(
            lambda: running_backup(self._backups), lambda: data_memory_known(self),
            self.configured_data_nodes, clock.wall)
        self.memory_reporter = MemoryReporter(self._memory_from_ndbinfo,
                                              self.configured_data_nodes, clock.wall,
                                              clock.monotonic)
        self.backup_memory.reported = lambda: self.memory_reporter.events
        self.mgm.after_status = self._after_status
        self.config = ConfigSource(self.mgm.client, self._on_config)
        self._data_node_ids: tuple[ClusterConfig, frozenset[int]] | None = None
        self.events: EventSource | None = None
        if events:
            self.events = EventSource(
                lambda: self.mgm.client.address if self.mgm.reading else None,
                lambda: self.mgm.log_levels,
                clock,
                self._on_event,
                self.changed,
                tls=connectstring.tls,
                data_nodes=self.configured_data_nodes,
            )
        self.sql: SqlSource | None = None
        if ndbinfo is not None:
            reader, target = ndbinfo
            bind = getattr(reader, "bind_cluster", None)
            if bind is not None:
                bind(lambda: self.mgm.reading.nodes if self.mgm.reading else ())
            self.sql = SqlSource(reader, target, interval, self._on_sample, self.changed)
        self._sql_disabled = sql_disabled_reason
        self.host: HostSource | None = None
        if host is not None:
            self.host = HostSource(host, interval, self._on_host, blocking=host_blocking)
        self.hosts = HostSet(self.host, ssh, interval, self._on_remote_host, host_name)
        self.hosts.local_via = host_via
        for name, reader in simulated_hosts:
            self.hosts.simulated[name] = HostSource(reader, interval, self._on_remote_host,
                                                    blocking=False, target=name)
            node_id = getattr(reader, "node_id", None)
            if isinstance(node_id, int):
                self.hosts.simulated_nodes[name] = (node_id,)
        self._events: deque[Event] = deque(maxlen=EVENT_HISTORY)
        self._events_total = 0
        self._timelines: dict[int, StartTimeline] = {}
        self._statistics: dict[int, NodeStatistics] = {}
        self._ndbinfo: NdbinfoSample | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._series = SeriesRecorder()
        self._rates = SampleRates(self._series)
        self.live_filter = LiveFilter()
        """Keeps the rows of the last refresh when the live nodes and the rows are the same."""
        self._history_dir = history_dir
        self._history_writes = history_writes
        """False: the start history is read, and the starts seen are added to it in memory
        only, for this run's estimates (a second hub on the same cluster, the fleet
        overview's, would save each start twice)."""
        self._cluster_name = cluster_name or ",".join(
            str(a) for a in connectstring.addresses)
        self._store: HistoryStore | None = None
        self._past: tuple[PastStart, ...] = ()
        self._recorded: dict[str, object] = {}
        self.threads_wanted = True
        """Whether every ndbinfo sample reads the per-thread CPU (see :meth:`want_threads`)."""
        self._panels_wanted: dict[str, frozenset[str]] = {}
        self._panels_held = False
        self.cluster_log: ClusterLogSource | None = None
        if cluster_log:
            self.cluster_log = ClusterLogSource(ssh, interval, self.hosts.remote.get,
                                                dict(log_readers or {}))
        self.log = HubClusterLog(self)
        self.replication: ReplicationSource | None = None
        if replication is not None:
            self.replication = ReplicationSource(replication, clock, interval,
                                                 self._on_replication)
        self._findings = FindingsKeeper()
        self._start_etas = StartEtaKeeper()
        self._urgent = False
        self._told: dict[int, tuple[str, float]] = {}
        """Node -> (state, when) an event told, newer than the last ``get status``."""
        """An event changed a node's state: the next ``get status`` is drawn at once."""

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on the event loop) whenever a source changes state: it
        connected, failed or recovered, a moment worth drawing at once."""
        self._listeners.append(callback)

    def changed(self, urgent: bool = False) -> None:
        """A source's reading changed: the next snapshot is built again, and the listeners
        are called when a source's state changed (always when ``urgent``)."""
        self._version += 1
        self._cached = None
        if urgent:
            for callback in self._listeners:
                callback()
        elif self._listeners:
            states = tuple(s.state for s in self.source_statuses())
            if states != self._states:
                self._states = states
                for callback in self._listeners:
                    callback()

    def _memory_from_ndbinfo(self) -> bool:
        """Whether ndbinfo gives DataMemory in use, or a SQL node not read yet may."""
        if self.sql is not None and self._ndbinfo is None and \
                self.sql.status.state is SourceState.CONNECTING:
            return True
        return data_memory_known(self)

    async def _after_status(self, client: MgmClient) -> str | None:
        """After a good ``get status``, on its session: the memory report when due and
        ndbinfo does not give it, then the backup status report when due (whose estimate
        takes its DataMemory figures from that memory report)."""
        why = await self.memory_reporter.poll(client)
        if self.memory_reporter.no_answer:
            # dump events went unanswered: the backup report waits, as after its own.
            self.backup_reporter.pause(why)
            return why
        return await self.backup_reporter.poll(client)

    def on_mgm(self) -> None:
        """A ``get status`` was read: the timelines, the history, the configuration and the
        hosts follow it."""
        reading = self.mgm.reading
        if reading is not None and self.mgm.status.state is SourceState.CONNECTED:
            if self._store is None and self._history_dir is not None:
                key = cluster_key(reading.nodes, self._cluster_name)
                self._store = HistoryStore(self._history_dir, key)
                self._past = self._store.load()
            self.set_timelines(apply_status(self._timelines, reading.nodes, reading.wall))
            self.log.date_starts()
            self._told = {k: v for k, v in self._told.items() if v[1] > reading.wall}
            self.config.observe(reading.nodes, self._ndbinfo)
            self.hosts.update(reading.nodes, self.cluster_config())
        urgent, self._urgent = self._urgent, False
        self.changed(urgent)

    def _on_config(self) -> None:
        # A configuration read names the hosts of nodes get status gives no address for.
        reading = self.mgm.reading
        if reading is not None:
            self.hosts.update(reading.nodes, self.cluster_config())
        # The live view reads the cluster log's history when it knows where it is.
        self.log.configured()
        self.changed()

    async def read_cluster_log(self) -> None:
        """Read the management servers' cluster log files (their last hour) and date the
        starts from them (:class:`HubClusterLog`)."""
        await self.log.read()

    def set_timelines(self, timelines: dict[int, StartTimeline]) -> None:
        """Adopt new timelines; starts that just finished go to the history."""
        for node_id, t in timelines.items():
            before = self._timelines.get(node_id)
            if before is None or t is before or t.active or self._store is None:
                continue
            done = past_start(t)
            if done is None:
                continue
            if not self._history_writes:
                if before.active:
                    self._past = (*self._past, done)[-HISTORY_KEEP:]
                continue
            if before.active:
                self._past = self._store.add(done)
            elif before.began_at == t.began_at and not before.aborted:
                # The start's last events arrived after get status showed it STARTED.
                saved = past_start(before)
                if saved != done:
                    self._past = self._store.add(done, replaces=saved)
        self._timelines = timelines

    def _on_event(self, event: Event) -> None:
        self._events.append(event)
        self._events_total += 1
        self.set_timelines(apply_event(self._timelines, event))
        self._statistics = apply_statistics(self._statistics, event)
        self._backups = apply_backup_event(self._backups, event)
        if event.type in BACKUP_FAILURES and not event.malformed:
            self._backup_failures += 1
        self.hosts.on_event(event, self.cluster_config())
        urgent = event.type in STATE_EVENTS and not event.malformed
        told = TOLD_STATUS.get(event.type) if urgent else None
        if told is not None:
            self._told[event.source_node] = (told, event.received_at)
        if urgent:
            self._urgent = True
            self.mgm.health.wake.set()
        self.changed(urgent)

    def _on_backup_report(self, raw: tuple[RawEvent, ...]) -> None:
        at = self.clock.wall()
        data_nodes = self.configured_data_nodes()
        events = tuple(decode_event(r, at, data_nodes) for r in raw)
        self._backups = apply_status_report(self._backups, events, at)
        # The report runs inside the management source's poll, whose end announces it.
        self._cached = None

    def _on_host(self) -> None:
        view = self.host.view if self.host else None
        if view is not None and view.interval_s:
            for d in view.disks:
                self._series.record(f"disk.w_s.{d.name}", d.w_s)
                self._series.record(f"disk.wkb_s.{d.name}", d.wkb_s)
                self._series.record(f"disk.util.{d.name}", d.util_pct)
                self._series.record(f"disk.await.{d.name}", d.await_ms)
        self.changed()

    def configured_data_nodes(self) -> frozenset[int] | None:
        """The data node ids of the configuration last read (None before one is read)."""
        config = self.config.config
        if config is None:
            return None
        if self._data_node_ids is None or self._data_node_ids[0] is not config:
            self._data_node_ids = (config, frozenset(d.node_id for d in config.data_nodes))
        return self._data_node_ids[1]

    def cluster_config(self) -> ClusterConfig | None:
        """The cluster configuration last read (hosts, DataDir, redo log size), if any."""
        return self.config.config

    def _on_remote_host(self) -> None:
        for source in (*self.hosts.sources(), *self.hosts.simulated.values()):
            view, host = source.view, source.status.target
            if view is None or not view.interval_s or source.status.state is not \
                    SourceState.CONNECTED or view is self._recorded.get(host):
                continue
            self._recorded[host] = view
            for d in view.disks:
                self._series.record(f"disk.w_s.{host}/{d.name}", d.w_s)
                self._series.record(f"disk.util.{host}/{d.name}", d.util_pct)
        self._note_redo_phases()
        self.changed()

    def _note_redo_phases(self) -> None:
        """A node seen initialising its redo log on its host: its phase in progress is the
        redo phase, whatever its number (it depends on the release)."""
        reading = self.mgm.reading
        if reading is None:
            return
        timelines = tuple(self._timelines.values())
        reports = self.hosts.reports(reading.nodes, timelines, self.cluster_config())
        for report in reports:
            for m in report.redo_init:
                t = self._timelines.get(m.node_id)
                if t is not None and t.active and t.redo_phase is None:
                    self._timelines = {**self._timelines,
                                       m.node_id: replace(t, redo_phase=t.current_phase)}
        self._timelines = apply_host(self._timelines,
                                     (m for r in reports for m in r.node_starts))

    def _on_replication(self) -> None:
        state = self.replication.state if self.replication is not None else None
        if state is not None:
            for channel in state.channels:
                self._series.record(f"repl.lag_s.{channel.key}", channel.lag.seconds)
        self.changed()

    def want_replication(self, owner: str, wanted: bool) -> None:
        """Read replication at every refresh while ``owner`` (a view, a report, the
        exporter) wants it; every 10 s otherwise."""
        if self.replication is not None:
            self.replication.want(owner, wanted)

    def _on_sample(self, sample: NdbinfoSample) -> None:
        self._rates.update(self._ndbinfo, sample)
        self._ndbinfo = sample

    def want_threads(self, wanted: bool) -> None:
        """Read the per-thread CPU at every refresh, or only now and then (while nothing
        shows or records the threads)."""
        if wanted == self.threads_wanted:
            return
        self.threads_wanted = wanted
        reader = self.sql.reader if self.sql is not None else None
        if hasattr(reader, "threads_wanted"):
            reader.threads_wanted = wanted  # type: ignore[union-attr]

    def want_panels(self, owner: str, panels: Iterable[str]) -> None:
        """Read the on-demand ndbinfo panels ``owner`` shows (a view, ``--once --section``, a
        bundle) at every refresh, until it asks for none; the reader reads the union of every
        owner's panels, and none while no one asks."""
        wanted = frozenset(panels)
        if wanted:
            self._panels_wanted[owner] = wanted
        else:
            self._panels_wanted.pop(owner, None)
        self._pass_panels()

    def hold_panels(self, held: bool) -> None:
        """Read no on-demand panel while ``held`` (the first of ``--once``'s two samples:
        the second reads them, once)."""
        self._panels_held = held
        self._pass_panels()

    def read_again(self, panels: frozenset[str]) -> None:
        """Read the slow ndbinfo ``panels`` at the next sample whatever the rotation (the
        second of ``--once``'s samples: the rates between two readings)."""
        reader = self.sql.reader if self.sql is not None else None
        if hasattr(reader, "again"):
            reader.again = panels  # type: ignore[union-attr]

    def _pass_panels(self) -> None:
        asked = self.panels_wanted()
        union = frozenset() if self._panels_held else asked
        reader = self.sql.reader if self.sql is not None else None
        if hasattr(reader, "wanted") and reader.wanted != union:  # type: ignore[union-attr]
            reader.wanted = union  # type: ignore[union-attr]
        if hasattr(reader, "transactions_asked"):
            # A full read of the transactions, even one held for a later sample, names the
            # oldest: no background read of it beside.
            reader.transactions_asked = "transactions" in asked  # type: ignore[union-attr]

    def want_txn_age(self, seconds: int) -> None:
        """Read the transactions idle at least ``seconds`` (``--txn-age``) when they are
        read at all."""
        reader = self.sql.reader if self.sql is not None else None
        if hasattr(reader, "txn_age_s"):
            reader.txn_age_s = seconds  # type: ignore[union-attr]

    def panels_wanted(self) -> frozenset[str]:
        """Every on-demand panel some owner asks for."""
        return frozenset().union(*self._panels_wanted.values())

    async def start(self) -> None:
        """Start one task per source."""
        sources: list[MgmSource | ConfigSource | EventSource | SqlSource | HostSource
                      | ReplicationSource | None] = [
            self.mgm,
            self.config,
            self.events,
            self.sql,
            self.host,
            self.replication,
            *self.hosts.simulated.values(),
        ]
        for source in sources:
            if source is not None:
                self._tasks.append(asyncio.create_task(source.run(), name=f"source-{source.name}"))
        self.hosts.start(self.cluster_config())

    async def stop(self) -> None:
        """Cancel the sources and close their connections."""
        await cancel_and_wait([*self._tasks, *([self.log.task] if self.log.task else [])])
        self._tasks.clear()
        if self.cluster_log is not None:
            await self.cluster_log.close()
        await self.hosts.stop()
        await self.mgm.close()
        if self.sql is not None:
            await self.sql.close()
        if self.replication is not None:
            await self.replication.close()

    async def collect_once(self) -> ClusterSnapshot:
        """Read every source once, without background tasks (:func:`collect_once`)."""
        return await collect_once(self)

    def set_interval(self, interval: float) -> None:
        """Change the refresh interval of every polling source."""
        self.interval = interval
        for source in (self.mgm, self.sql, self.host, self.replication,
                       *self.hosts.simulated.values()):
            if source is not None:
                source.interval = interval
        self.hosts.set_interval(interval)
        self.changed()

    def refresh_now(self) -> None:
        """Ask every polling source for a new sample without waiting for the interval
        (the cluster-log levels are read again too)."""
        self.mgm.levels_stale = True
        for source in (self.mgm, self.sql, self.host, self.replication,
                       *self.hosts.simulated.values()):
            if source is not None:
                source.health.wake.set()
        self.hosts.wake()

    def source_statuses(self) -> tuple[SourceStatus, ...]:
        """The status of every source, disabled ones included."""
        out = [self.mgm.status, self.config.status]
        out.append(
            self.events.status if self.events else SourceStatus("events", SourceState.DISABLED)
        )
        out.append(
            self.sql.status
            if self.sql
            else SourceStatus("ndbinfo", SourceState.DISABLED, error=self._sql_disabled)
        )
        out.append(
            self.host.status
            if self.host
            else SourceStatus("host", SourceState.DISABLED, error="no local data node host")
        )
        out.extend(s.status for s in self.hosts.sources())
        if self.cluster_log is not None:
            out.append(self.cluster_log.status)
        if self.replication is not None:
            out.append(self.replication.status)
        return tuple(out)

    def freshness_now(self) -> float:
        """The monotonic time source ages are measured against (real time, even in a demo)."""
        return time.monotonic()

    def snapshot(self) -> ClusterSnapshot:
        """The current picture of the cluster (:func:`build_snapshot`), kept until a source
        changes."""
        if self._cached is None:
            self._cached = build_snapshot(self)
        return self._cached

    @property
    def started(self) -> bool:
        """Whether :meth:`start` runs the sources as tasks (the live view; not ``--once``)."""
        return bool(self._tasks)

    @property
    def ndbinfo_sample(self) -> NdbinfoSample | None:
        """The last ndbinfo sample, whatever the nodes' states."""
        return self._ndbinfo

    @property
    def timelines(self) -> Mapping[int, StartTimeline]:
        """Each node's start timeline, by node id (changed by :meth:`set_timelines`)."""
        return self._timelines

    @property
    def told(self) -> Mapping[int, tuple[str, float]]:
        """Node -> (state, when) an event told, newer than the last ``get status``."""
        return self._told

    @property
    def event_history(self) -> Sequence[Event]:
        """The last :data:`EVENT_HISTORY` events, oldest first."""
        return self._events

    @property
    def events_total(self) -> int:
        """Every event received since the hub began."""
        return self._events_total

    @property
    def statistics(self) -> Mapping[int, NodeStatistics]:
        """Each data node's statistics from its events, by node id."""
        return self._statistics

    @property
    def rates(self) -> SampleRates:
        """The rates between the last two ndbinfo samples."""
        return self._rates

    @property
    def series(self) -> SeriesRecorder:
        """The recent history of the figures the charts draw."""
        return self._series

    @property
    def past_starts(self) -> tuple[PastStart, ...]:
        """The cluster's start history (the store's, and this run's starts)."""
        return self._past

    @property
    def backups(self) -> tuple[Backup, ...]:
        """The backups seen, from their events and status reports."""
        return self._backups

    @property
    def backup_failures(self) -> int:
        """Backups that failed to start or were aborted since the hub began."""
        return self._backup_failures

    @property
    def start_etas(self) -> StartEtaKeeper:
        """The estimates of each starting node's time to STARTED, kept between snapshots."""
        return self._start_etas

    @property
    def findings(self) -> FindingsKeeper:
        """The findings, kept between snapshots (since when each holds)."""
        return self._findings
