"""Metric families from one :class:`ClusterSnapshot`, by the definitions of the catalogue.

Only what the servers filled becomes a series: a node that is not STARTING
has no start phase, a hit ratio without enough requests has none, and the
series of a source that is not up are left out altogether (its
``ndbtop_source_up`` says 0), so a graph shows a gap rather than the last
values repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from ndbtop.export.backup_metrics import backup_group
from ndbtop.export.familyset import Families, Group, rows_group, source_up
from ndbtop.export.host_metrics import host_groups
from ndbtop.export.lines import Row
from ndbtop.mgm.status import STATUS_STRINGS, NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, effective_node_group
from ndbtop.model.config_facts import host_redo_wins, reports_off
from ndbtop.model.derive import HitRatio
from ndbtop.model.eta import Eta
from ndbtop.model.findings import Finding
from ndbtop.model.history import phase_normal
from ndbtop.model.ndbinfo import (
    DiskPageBuffer,
    LogSpace,
    MemoryUse,
    NdbinfoNode,
    NodeActivity,
    RestartInfo,
    ThreadCpu,
)
from ndbtop.model.phases import (
    START_TYPE_SHORT,
    RedoProgress,
    phase_in_progress,
    phase_text,
)
from ndbtop.model.replication import ReplicationState
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.model.summary import in_single_user_mode, single_user_api

STARTED_STATES = ("STARTED", "SINGLE USER MODE")
"""Statuses in which ``get status`` reports the node group the node really serves."""


def source_families(snapshot: ClusterSnapshot, now: float) -> Families:
    """``ndbtop_source_up`` and ``ndbtop_source_age_seconds`` at monotonic time ``now``; a
    source the user turned off (``--no-sql``, ``--no-host``) has neither."""
    out = Families()
    for status in snapshot.sources:
        if status.state is SourceState.DISABLED:
            continue
        out.add("ndbtop_source_up", (status.name,), 1.0 if source_up(snapshot, status.name, now)
                else 0.0)
        age = status.age(now)
        if age is not None:
            out.add("ndbtop_source_age_seconds", (status.name,), age)
    state = snapshot.replication
    if state is not None:
        # Each SQL node named for replication: a replica that does not answer shows no
        # channel, so no ndb_replication_* series would say anything is wrong.
        up = source_up(snapshot, "replication", now)
        for e in state.endpoints:
            out.add("ndbtop_source_up", (f"replication {e.target}",),
                    1.0 if up and e.error is None else 0.0)
    return out


def snapshot_groups(snapshot: ClusterSnapshot, now: float) -> list[Group]:
    """Every cluster and host series of ``snapshot``, by group; the series of a source
    that is not up are left out."""
    s = snapshot
    groups = [Group("redo_log", (s.config,), lambda out: _redo_log_sizes(out, s))]
    if source_up(s, "mgm", now):
        groups.append(rows_group("node_status", (s.nodes,), partial(_status_rows, s.nodes)))
        groups.append(Group("nodes", (s.nodes, s.config), lambda out: _nodes(out, s)))
        groups.append(Group("starts", (s.timelines, s.past_starts, s.config, s.hosts, s.wall),
                            lambda out: _starts(out, s)))
        groups.append(Group("start_eta", (s.start_etas,), lambda out: _start_etas(out, s)))
    if source_up(s, "events", now):
        groups.append(backup_group(s))
    sample = s.ndbinfo
    if sample is not None and source_up(s, "ndbinfo", now):
        groups += [
            _panel("uptime", sample.nodes, _uptime),
            rows_group("threads", (sample.threads,), partial(_thread_rows, sample.threads)),
            _panel("hit_ratio", s.hit_ratios, _hit_ratios),
            _panel("page_buffer", sample.disk_page_buffer, _page_buffer),
            _panel("memory", sample.memory, _memory),
            _panel("log_space", sample.log_spaces, _log_spaces),
            _panel("activity", sample.activity, _activity),
            _panel("restart", sample.restart_info, _restarts),
        ]
    if s.hosts:
        groups.extend(host_groups(s, now))
    state = s.replication
    if state is not None and source_up(s, "replication", now):
        groups.append(Group("replication", (state,), lambda out: _replication(out, state)))
    if source_up(s, "mgm", now):
        found = s.findings
        groups.append(Group("findings", (tuple(f.identity for f in found),),
                            lambda out: _findings(out, found)))
    return groups


def _replication(out: Families, state: ReplicationState) -> None:
    """Each channel whose replica answered at its last read: its threads, its lag."""
    for c in state.channels:
        replica = state.endpoint(c.replica)
        if replica is None or replica.error is not None:
            continue
        labels = (c.source_label, c.replica, c.channel)
        out.add("ndb_replication_running", (*labels, "io"), 1.0 if c.threads.io_ok else 0.0)
        out.add("ndb_replication_running", (*labels, "sql"), 1.0 if c.threads.sql_ok else 0.0)
        if c.lag.epochs is not None:
            out.add("ndb_replication_lag_epochs", labels, float(c.lag.epochs))
        if c.lag.seconds is not None:
            out.add("ndb_replication_lag_seconds", labels, c.lag.seconds)
        if c.threads.seconds_behind is not None:
            out.add("ndb_replication_seconds_behind_source", labels,
                    float(c.threads.seconds_behind))


def _findings(out: Families, found: tuple[Finding, ...]) -> None:
    seen: set[tuple[str, str, str]] = set()
    for f in found:
        for node in f.nodes or (None,):
            labels = (f.id, f.severity.value, "" if node is None else str(node))
            if labels not in seen:
                seen.add(labels)
                out.add("ndbtop_finding", labels, 1.0)


def _panel(name: str, values: tuple[object, ...], build: Callable[..., None]) -> Group:
    """The group of one ndbinfo table's series, made by ``build(out, values)``."""
    return Group(name, (values,), partial(build, values=values))


def snapshot_families(snapshot: ClusterSnapshot, now: float) -> Families:
    """Every cluster and host series of ``snapshot`` in one :class:`Families`."""
    out = Families()
    for group in snapshot_groups(snapshot, now):
        group.build(out)
    return out


def _status_rows(nodes: tuple[NodeStatus, ...]) -> Iterator[Row]:
    """Every status of every node at 0 or 1, as kube-state-metrics does (a status change
    moves a 1 between series that exist, and "== 0" alerts work), then the versions."""
    for n in nodes:
        node = str(n.node_id)
        for status in STATUS_STRINGS:
            yield ("ndb_node_status", (node, n.type, status),
                   1.0 if status == n.status else 0.0)
        if n.status not in STATUS_STRINGS:
            yield "ndb_node_status", (node, n.type, n.status), 1.0
    for n in nodes:
        version = n.version_text
        if version is not None:
            yield "ndb_node_version_info", (str(n.node_id), version), 1.0


def _nodes(out: Families, snapshot: ClusterSnapshot) -> None:
    groups: dict[int, list[NodeStatus]] = {}
    for n in snapshot.nodes:
        node = str(n.node_id)
        if n.type != "NDB":
            continue
        if n.status == "STARTING":
            out.add("ndb_node_start_phase", (node,), float(n.start_phase))
        group = effective_node_group(n, snapshot.config)
        if group is not None and group != NO_NODE_GROUP:
            groups.setdefault(group, []).append(n)
    for group, members in sorted(groups.items()):
        started = sum(1 for n in members if n.status in STARTED_STATES)
        out.add("ndb_node_group_nodes", (str(group),), float(len(members)))
        out.add("ndb_node_group_started_nodes", (str(group),), float(started))
    single = in_single_user_mode(snapshot.nodes)
    holder = single_user_api(snapshot.nodes) if single else None
    out.add("ndb_single_user_mode", ("" if holder is None else str(holder),),
            1.0 if single else 0.0)


def _start_info(out: Families, snapshot: ClusterSnapshot) -> None:
    """The phase each STARTING data node is in, named as every output names it
    (:func:`phase_text`); none once it reported the last phase."""
    for n in snapshot.nodes:
        if n.type != "NDB" or n.status != "STARTING":
            continue
        timeline = snapshot.timeline(n.node_id)
        if phase_in_progress(n, timeline) is None:
            continue
        phase, name = phase_text(n, timeline).split(" ", 1)
        kind = timeline.kind if timeline is not None and timeline.active else None
        out.add("ndb_node_start_info",
                (str(n.node_id), "" if kind is None else START_TYPE_SHORT.get(kind, ""),
                 phase, name), 1.0)


def _start_etas(out: Families, snapshot: ClusterSnapshot) -> None:
    """The estimate of each starting data node's time to STARTED, with its range; none for
    a node whose estimate is missing."""
    for node_id, result in snapshot.start_etas:
        if isinstance(result, Eta):
            node = (str(node_id),)
            out.add("ndb_node_start_eta_seconds", node, result.seconds)
            out.add("ndb_node_start_eta_low_seconds", node, result.low)
            out.add("ndb_node_start_eta_high_seconds", node, result.high)


def _starts(out: Families, snapshot: ClusterSnapshot) -> None:
    _start_info(out, snapshot)
    now = snapshot.wall
    config = snapshot.config
    for t in snapshot.timelines:
        node = str(t.node_id)
        configured = config.data_node(t.node_id) if config is not None else None
        total = configured.redo_log_bytes if configured is not None else None
        sparse = configured is not None and not configured.redo_init_full
        if t.active:
            # A start or phase ndbtop did not see begin has run at least this long: a
            # lower bound goes out under its own name, never as the exact figure.
            out.add("ndb_node_start_seconds" if t.began_exact
                    else "ndb_node_start_at_least_seconds", (node,), t.elapsed_s(now))
            spent = t.in_phase_s(now)
            phase = t.current_phase
            if spent is not None and phase is not None:
                out.add("ndb_node_phase_at_least_seconds" if t.in_phase_lower_bound
                        else "ndb_node_phase_seconds", (node,), spent)
                redo_mb = t.redo.total_mb if t.redo is not None else None
                if total is not None:
                    redo_mb = total // (1024 * 1024)
                normal = phase_normal(snapshot.past_starts, t, phase, redo_mb)
                if normal is not None:
                    out.add("ndb_node_phase_normal_seconds", (node,), normal.seconds)
        if total is None:
            continue
        measured = host_redo_wins(snapshot, t.node_id)
        if measured is not None:
            if measured.fraction is not None:
                out.add("ndb_redo_init_bytes", (node,), float(round(measured.fraction * total)))
        elif t.redo is not None and not reports_off(snapshot, t.node_id):
            # A silent node's events stay at their first figures (zero done): not progress.
            out.add("ndb_redo_init_bytes", (node,),
                    float(round(redo_done(t.redo, sparse) * total)))


def redo_done(redo: RedoProgress, sparse: bool) -> float:
    """Share of the redo log initialised (0..1). With InitFragmentLogFiles=FULL the
    "MB done" of the reports counts files, so only the files count there."""
    if redo.completed:
        return 1.0
    if sparse and redo.total_mb > 0:
        return min(redo.mb_done / redo.total_mb, 1.0)
    return min(redo.files_done / redo.total_files, 1.0) if redo.total_files else 0.0


def _redo_log_sizes(out: Families, snapshot: ClusterSnapshot) -> None:
    config = snapshot.config
    if config is None:
        return
    for d in config.data_nodes:
        node = (str(d.node_id),)
        out.add("ndb_redo_log_bytes", node, float(d.redo_log_bytes))
        out.add("ndb_redo_log_files", node, float(d.fragment_log_parts * d.fragment_log_files))


def _uptime(out: Families, values: tuple[NdbinfoNode, ...]) -> None:
    for n in values:
        out.add("ndb_node_uptime_seconds", (str(n.node_id),), float(n.uptime_s))


def _thread_rows(values: tuple[ThreadCpu, ...]) -> Iterator[Row]:
    text = _NUMBERS
    for t in values:
        yield ("ndb_thread_cpu_ratio", (text[t.node_id], text[t.thr_no], t.thread_name),
               t.cpu_pct / 100.0)


_NUMBERS = {i: str(i) for i in range(65536)}
"""Node and thread numbers as label values, made once."""


def _hit_ratios(out: Families, values: tuple[HitRatio, ...]) -> None:
    for h in values:
        node = str(h.node_id)
        if h.since_start_pct is not None:
            out.add("ndb_disk_page_buffer_hit_ratio", (node,), h.since_start_pct / 100.0)
        if h.interval_pct is not None:
            out.add("ndb_disk_page_buffer_interval_hit_ratio", (node,), h.interval_pct / 100.0)


def _page_buffer(out: Families, values: tuple[DiskPageBuffer, ...]) -> None:
    for d in values:
        node = str(d.node_id)
        out.add("ndb_disk_page_buffer_requests_total", (node, "hit"),
                float(d.page_requests_direct_return))
        out.add("ndb_disk_page_buffer_requests_total", (node, "wait_queue"),
                float(d.page_requests_wait_queue))
        out.add("ndb_disk_page_buffer_requests_total", (node, "wait_io"),
                float(d.page_requests_wait_io))
        out.add("ndb_disk_page_buffer_pages_read_total", (node,), float(d.pages_read))
        out.add("ndb_disk_page_buffer_pages_written_total", (node,), float(d.pages_written))


def _memory(out: Families, values: tuple[MemoryUse, ...]) -> None:
    for m in values:
        labels = (str(m.node_id), m.memory_type)
        out.add("ndb_memory_used_bytes", labels, float(m.used))
        if m.total > 0:
            out.add("ndb_memory_size_bytes", labels, float(m.total))


def _log_spaces(out: Families, values: tuple[LogSpace, ...]) -> None:
    for s in values:
        labels = (str(s.node_id), s.log_type, str(s.log_id), str(s.log_part))
        out.add("ndb_log_space_used_bytes", labels, float(s.used))
        if s.total > 0:
            out.add("ndb_log_space_size_bytes", labels, float(s.total))


def _activity(out: Families, values: tuple[NodeActivity, ...]) -> None:
    for a in values:
        node = (str(a.node_id),)
        out.add("ndb_transactions_total", node, float(a.transactions))
        out.add("ndb_commits_total", node, float(a.commits))
        out.add("ndb_aborts_total", node, float(a.aborts))
        out.add("ndb_key_reads_total", node, float(a.reads))
        out.add("ndb_key_writes_total", node, float(a.writes))
        out.add("ndb_scans_total", node, float(a.scans))
        out.add("ndb_local_operations_total", node, float(a.operations))


def _restarts(out: Families, values: tuple[RestartInfo, ...]) -> None:
    for r in values:
        if r.status_int in NO_RESTART_INFO:
            continue
        node = str(r.node_id)
        done = r.status_int in RESTART_COMPLETED
        for column, seconds in r.phases:
            # In a restart still running, a step not reached yet reads 0: not a duration.
            if done or seconds > 0:
                out.add("ndb_restart_phase_seconds", (node, column.removeprefix("secs_")),
                        float(seconds))


RESTART_COMPLETED = (12, 19)
"""``node_restart_status_int`` of a finished restart (RESTART_COMPLETED, NODE_ACTIVE): every
duration is final."""
NO_RESTART_INFO = (20, 21)
"""``node_restart_status_int`` values that mean no restart is reported (not defined in
the cluster, not restarted yet): their durations are not data."""
