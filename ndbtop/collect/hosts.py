"""Every data node host as one set of sources: the local one and those read over SSH.

The host of a data node is its configured ``HostName``, or else the address ``get
status`` gives; a host with several data nodes is read once, and the host of a node that
is down is read too. New hosts get a source as they appear. For every data node that is
not STARTED when ndbtop first sees it, and whenever a data node fails (NDBStopForced,
NodeFailCompleted, or NO_CONTACT after STARTED), the newest entry of its
``ndb_<id>_error.log`` and the free space of its DataDir are read over its host's
connection (:mod:`ndbtop.collect.node_files`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Iterable

from ndbtop.collect.host import HostSource
from ndbtop.collect.node_files import (
    NodeFiles,
    SimulatedFiles,
    error_log_path,
    process_state,
    read_node_files,
)
from ndbtop.collect.ssh import SshHost, report_state
from ndbtop.compat import AsyncEvent
from ndbtop.host.remote import SshOptions
from ndbtop.host.samples import DiskFree, ProcessSeen
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from ndbtop.model.hosts import (
    ErrorLogEntry,
    HostReport,
    NodeOnHost,
    NodeStart,
    RedoSize,
    redo_measure,
)
from ndbtop.model.phases import INITIAL_NODE_RESTART, INITIAL_START, StartTimeline
from ndbtop.model.sources import SourceState

FAILURE_EVENTS = {59: "source", 27: "failed_node"}
"""NDBStopForced (the failing node sends it) and NodeFailCompleted (names the node)."""


def node_hosts(
    nodes: Iterable[NodeStatus], config: ClusterConfig | None
) -> dict[str, tuple[int, ...]]:
    """Host -> data node ids: the configured HostName, else the ``get status`` address."""
    out: dict[str, list[int]] = {}
    for n in nodes:
        if n.type != "NDB":
            continue
        cfg = config.data_node(n.node_id) if config is not None else None
        host = cfg.host if cfg is not None and cfg.host else n.address
        if host:
            out.setdefault(host, []).append(n.node_id)
    return {h: tuple(sorted(ids)) for h, ids in out.items()}


def redo_size(config: ClusterConfig | None, node_id: int) -> RedoSize | None:
    """The redo log of a node as the configuration sets it, ``None`` without one."""
    cfg = config.data_node(node_id) if config is not None else None
    if cfg is None:
        return None
    return RedoSize(cfg.fragment_log_parts, cfg.fragment_log_files, cfg.redo_log_bytes,
                    not cfg.redo_init_full)


class HostSet:
    """The local host source (if any) and one :class:`SshHost` per remote host."""

    def __init__(
        self,
        local: HostSource | None,
        ssh: SshOptions | None,
        interval: float,
        on_update: Callable[[], None],
        local_name: str | None = None,
    ) -> None:
        self.local = local
        self.ssh = ssh
        self.interval = interval
        self.on_update = on_update
        self.remote: dict[str, SshHost] = {}
        self.simulated: dict[str, HostSource] = {}
        """Hosts of a simulated cluster (the demo), by name."""
        self.simulated_nodes: dict[str, tuple[int, ...]] = {}
        self._reported: dict[str, HostReport] = {}
        self.local_via = "local"
        """How the ``local`` source reads its host: ``local`` (psutil) or ``simulated``."""
        self.assigned: dict[str, tuple[int, ...]] = {}
        self.error_logs: dict[int, ErrorLogEntry] = {}
        self.disk_free: dict[int, tuple[DiskFree | None, str | None]] = {}
        """The file system of each down node's DataDir, or why it could not be read."""
        self._wanted: set[int] = set()
        """Down nodes whose host is to be read once its source and the configuration are
        known."""
        self._tasks: list[asyncio.Task[None]] = []
        self._reads: set[asyncio.Task[None]] = set()
        self._running = False
        self._sampling = False
        self._wake = AsyncEvent()
        self._last_status: dict[int, str] = {}
        self._local_name = local_name or socket.gethostname()

    def update(self, nodes: tuple[NodeStatus, ...], config: ClusterConfig | None) -> list[SshHost]:
        """Take a new ``get status``; returns the remote sources created for new hosts."""
        created: list[SshHost] = []
        if self.ssh is not None:
            self.assigned = node_hosts(nodes, config)
            for host in self.assigned:
                if host not in self.remote:
                    source = SshHost(host, self.ssh, self.interval, self.on_update)
                    self.remote[host] = source
                    created.append(source)
                    if self._sampling:
                        self._wake.set()
        for n in nodes:
            if n.type != "NDB":
                continue
            before = self._last_status.get(n.node_id)
            self._last_status[n.node_id] = n.status
            first_seen_down = before is None and n.status != "STARTED"
            if first_seen_down or (before == "STARTED" and n.status == "NO_CONTACT"):
                self._wanted.add(n.node_id)
        self._read_wanted(config)
        return created

    def on_event(self, event: Event, config: ClusterConfig | None) -> None:
        """Read the error log of a node an event says failed."""
        key = FAILURE_EVENTS.get(event.type)
        if key is None:
            return
        node = event.source_node if key == "source" else dict(event.fields).get(key)
        if node and int(node) in self._last_status:
            self.node_failed(int(node), config)

    def _files(self, node_id: int) -> NodeFiles | None:
        """The host of ``node_id`` whose files can be read, if ndbtop reads it."""
        source = next((self.remote[h] for h, ids in self.assigned.items()
                       if node_id in ids and h in self.remote), None)
        if source is not None:
            return source
        for name, ids in self.simulated_nodes.items():
            reader = self.simulated[name].reader if name in self.simulated else None
            if node_id in ids and hasattr(reader, "read_file"):
                return SimulatedFiles(reader)
        return None

    def node_failed(self, node_id: int, config: ClusterConfig | None) -> None:
        """Read the newest error-log entry and the DataDir of ``node_id`` on its host."""
        self._wanted.add(node_id)
        self._read_wanted(config)

    def _read_wanted(self, config: ClusterConfig | None) -> None:
        """Start the reads of the down nodes whose host and configuration are known; with
        no way to read a node's host, say why."""
        if not self._running or not self._wanted:
            return
        for node_id in sorted(self._wanted):
            cfg = config.data_node(node_id) if config is not None else None
            if cfg is None:
                continue
            files = self._files(node_id)
            if files is None:
                if self.ssh is None and not self.simulated:
                    self._wanted.discard(node_id)
                    self.error_logs[node_id] = ErrorLogEntry(
                        node_id, error_log_path(cfg), problem="no --ssh connection to its host")
                    self.on_update()
                continue
            self._wanted.discard(node_id)
            task = asyncio.create_task(self._read_node(files, cfg))
            self._reads.add(task)
            task.add_done_callback(self._reads.discard)

    async def _read_node(self, files: NodeFiles, cfg: DataNodeConfig) -> None:
        entry, free, why = await read_node_files(files, cfg)
        self.error_logs[cfg.node_id] = entry
        self.disk_free[cfg.node_id] = (free, why)
        self.on_update()

    async def read_error_logs(self, node_ids: Iterable[int], config: ClusterConfig | None) -> None:
        """Read the error logs of ``node_ids`` now and wait for them (the report bundle)."""
        self._running = True
        for node_id in node_ids:
            if node_id not in self.error_logs:
                self._wanted.add(node_id)
        self._read_wanted(config)
        if self._reads:
            await asyncio.gather(*self._reads, return_exceptions=True)

    def start(self, config: ClusterConfig | None = None) -> None:
        """Start sampling the remote hosts (the local source is started by the hub)."""
        self._running = True
        self._read_wanted(config)
        if self.ssh is not None:
            self._sampling = True
            self._tasks.append(asyncio.create_task(self._tick(), name="source-ssh-hosts"))

    async def _tick(self) -> None:
        """Every interval, ask every host that is not still answering for a sample.

        One task paces all the hosts and the snapshot changes once per interval, not once
        per host. A host that does not answer within its time has its ``ssh`` ended (and
        is retried with backoff); it never holds up the others.
        """
        inflight: dict[str, tuple[asyncio.Task[float], float]] = {}
        try:
            while True:
                began = time.monotonic()
                for host, source in list(self.remote.items()):
                    entry = inflight.get(host)
                    if entry is not None:
                        task, since = entry
                        if not task.done():
                            limit = source.answer_timeout + (
                                0.0 if source.pid is not None and source.status.last_ok
                                else self.ssh.connect_timeout + 2.0 if self.ssh else 0.0)
                            if began - since > limit:
                                source.abort(f"no answer from {host} within {limit:.0f} s")
                            continue
                        inflight.pop(host)
                    retry = source.status.retry_at
                    if retry is not None and retry > began:
                        continue
                    inflight[host] = (asyncio.create_task(
                        source.attempt(notify=False, bounded=False)), began)
                pending = [t for t, _ in inflight.values() if not t.done()]
                if pending:
                    await asyncio.wait(pending, timeout=self.interval * 0.8)
                self.on_update()
                self._wake.clear()
                left = self.interval - (time.monotonic() - began)
                if left > 0:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), left)
        finally:
            tasks = [t for t, _ in inflight.values()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def allow_reads(self, config: ClusterConfig | None = None) -> None:
        """Let error-log reads start without the sampling tasks (``--once`` and bundles),
        and start those that wait."""
        self._running = True
        self._read_wanted(config)

    async def reads_done(self) -> None:
        """Wait for the error-log and DataDir reads under way (``--once``)."""
        if self._reads:
            await asyncio.gather(*self._reads, return_exceptions=True)

    async def stop(self) -> None:
        """Cancel every remote task and close their ``ssh`` processes."""
        from ndbtop.aio import cancel_and_wait

        await cancel_and_wait([*self._tasks, *self._reads])
        self._tasks.clear()
        self._running = self._sampling = False
        await asyncio.gather(*(s.close() for s in self.remote.values()))

    async def sample_once(self, deadline: float) -> None:
        """Two samples ``interval`` apart of every remote host, all within ``deadline`` s."""

        async def two(source: SshHost) -> None:
            for i in range(2):
                await source.attempt()
                if source.status.state is not SourceState.CONNECTED:
                    return
                if i == 0:
                    await asyncio.sleep(source.interval)

        async def bounded(source: SshHost) -> None:
            try:
                await asyncio.wait_for(two(source), deadline)
            except asyncio.TimeoutError:
                source.health.failed(f"no answer within {deadline:.0f} s")
                await source.close()

        await asyncio.gather(*(bounded(s) for s in self.remote.values()))

    def set_interval(self, interval: float) -> None:
        """Change every source's refresh interval."""
        self.interval = interval
        for s in self.remote.values():
            s.interval = interval

    def wake(self) -> None:
        """Sample every remote host now."""
        self._wake.set()

    def reports(
        self,
        nodes: tuple[NodeStatus, ...],
        timelines: tuple[StartTimeline, ...],
        config: ClusterConfig | None,
    ) -> tuple[HostReport, ...]:
        """One report per host: the local one first, then the remote ones by name."""
        out: list[HostReport] = []
        logs = self.error_logs
        if self.local is not None:
            view = self.local.view
            ids = view.node_ids if view is not None else ()
            local = self.local.status
            out.append(HostReport(self._local_name, self.local_via, ids,
                                  report_state(local.state), local.error, local.last_ok, view,
                                  (), tuple(logs[i] for i in ids if i in logs)))
        for name in sorted(self.simulated):
            sim = self.simulated[name]
            view = sim.view
            ids = tuple(sorted({*self.simulated_nodes.get(name, ()),
                                *(view.node_ids if view is not None else ())}))
            procs = getattr(sim.reader, "processes", None)
            out.append(HostReport(name, "simulated", ids, report_state(sim.status.state),
                                  sim.status.error, sim.status.last_ok, view,
                                  error_logs=tuple(logs[i] for i in ids if i in logs),
                                  down_nodes=self._down(ids, procs() if procs else None)))
        starting = {n.node_id for n in nodes if n.type == "NDB" and n.status == "STARTING"}
        not_initial = {t.node_id for t in timelines if t.active and t.start_type is not None
                       and t.start_type not in (INITIAL_START, INITIAL_NODE_RESTART)}
        for host in sorted(self.remote):
            s = self.remote[host]
            ids = self.assigned.get(host, ())
            redo = []
            starts: list[NodeStart] = []
            if s.sample is not None and s.status.state is SourceState.CONNECTED:
                starts = [NodeStart(r.node_id, r.started_at, s.redo_began(r))
                          for r in s.sample.redo if r.node_id is not None
                          and r.started_at is not None and (not ids or r.node_id in ids)]
                for r in s.sample.redo:
                    if (r.node_id in starting and r.node_id not in not_initial
                            and r.open_files and (not ids or r.node_id in ids)):
                        redo.append(redo_measure(r.node_id, r, s.redo_rates.get(r.pid),
                                                 redo_size(config, r.node_id)))
            sampled = (s.sample.processes if s.sample is not None
                       and s.status.state is SourceState.CONNECTED else None)
            out.append(HostReport(host, "ssh", ids, s.state, s.status.error, s.status.last_ok,
                                  s.view, tuple(redo), tuple(logs[i] for i in ids if i in logs),
                                  down_nodes=self._down(ids, sampled),
                                  node_starts=tuple(starts)))
        return tuple(self._same(r) for r in out)

    def _down(self, ids: tuple[int, ...],
              processes: tuple[ProcessSeen, ...] | None) -> tuple[NodeOnHost, ...]:
        """What the host shows of each of its data nodes that is not STARTED."""
        out = []
        for node_id in ids:
            if self._last_status.get(node_id, "STARTED") == "STARTED":
                continue
            free, why = self.disk_free.get(node_id, (None, None))
            state = None if processes is None else process_state(processes, node_id,
                                                                 len(ids) == 1)
            out.append(NodeOnHost(node_id, state, free, why))
        return tuple(out)

    def _same(self, report: HostReport) -> HostReport:
        # An unchanged host keeps its object: the recorder writes only what changed, by
        # identity, and the views redraw only what changed.
        before = self._reported.get(report.host)
        if before == report:
            return before
        self._reported[report.host] = report
        return report

    def sources(self) -> list[SshHost]:
        """The remote sources, by host name."""
        return [self.remote[h] for h in sorted(self.remote)]

    def now(self) -> float:
        """The monotonic clock host ages are measured against."""
        return time.monotonic()
