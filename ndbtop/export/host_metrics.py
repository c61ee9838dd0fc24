"""The data node hosts' series: every host of ``snapshot.hosts``, however it was read.

The local host (psutil), each host read over SSH and each simulated host give the same
series under their own ``host`` label: whether the host is read (``ndbtop_host_up``),
the data nodes on it, its block devices' counters (node_exporter's, under ndbtop's prefix), and the
redo-log initialisation of a starting data node measured on it (redo-init.md §5). A host
that is not read now has only its ``ndbtop_host_up`` (0) and its data nodes, so a graph
shows a gap rather than the last counters repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ndbtop.compat import zip_strict
from ndbtop.export.familyset import Families, Group, fresh, rows_group
from ndbtop.export.lines import Row
from ndbtop.host.samples import DiskCounters
from ndbtop.model.hosts import HostReport
from ndbtop.model.snapshot import ClusterSnapshot

_RUNNING = {"angel and worker": ("angel", "worker"), "angel only": ("angel",),
            "worker only": ("worker",), "none": ()}
"""The processes each :data:`~ndbtop.model.hosts.PROCESS_STATES` value has running."""


def host_up(report: HostReport, now: float, interval: float) -> bool:
    """Whether a host's figures are current: it answered, recently enough."""
    return report.state == "ok" and fresh(report.last_ok, now, interval)


def host_groups(snapshot: ClusterSnapshot, now: float) -> list[Group]:
    """Every host's series, rendered again only when a report or a host's state changed:
    their states, data nodes and redo measures, and their disks (thousands of series on a
    large cluster, rendered as rows).

    A host name read twice (this host, also reached over SSH under the same name) is
    served once, as read first: the same labels twice would make the exposition invalid.
    """
    seen: set[str] = set()
    reports: list[HostReport] = []
    for r in snapshot.hosts:
        if r.host not in seen:
            seen.add(r.host)
            reports.append(r)
    ups = tuple(host_up(r, now, snapshot.interval) for r in reports)
    shown = tuple(reports)
    read = tuple(r for r, up in zip_strict(shown, ups) if up and r.view is not None)
    return [Group("hosts", (shown, ups), lambda out: _hosts(out, shown, ups)),
            rows_group("host_disks", (read,), lambda: _disk_rows(read))]


def _hosts(out: Families, reports: tuple[HostReport, ...], ups: tuple[bool, ...]) -> None:
    for report, up in zip_strict(reports, ups):
        out.add("ndbtop_host_up", (report.host, report.via), 1.0 if up else 0.0)
        for node_id in report.node_ids:
            out.add("ndbtop_host_data_node", (report.host, str(node_id)), 1.0)
    measured: set[int] = set()
    for report, up in zip_strict(reports, ups):
        for e in report.error_logs:
            if e.error_code is not None:
                out.add("ndb_node_last_error_code", (str(e.node_id), e.time or ""),
                        float(e.error_code))
        if not up:
            continue
        for d in report.down_nodes:
            node = (str(d.node_id),)
            if d.data_dir is not None:
                out.add("ndb_node_data_dir_available_bytes", node,
                        float(d.data_dir.available_bytes))
            if d.processes is not None:
                running = _RUNNING[d.processes]
                for kind in ("angel", "worker"):
                    out.add("ndb_node_process_running", (*node, kind),
                            1.0 if kind in running else 0.0)

        for m in report.redo_init:
            if m.node_id in measured:
                continue
            measured.add(m.node_id)
            node = (str(m.node_id),)
            if m.bytes_written is not None:
                out.add("ndb_redo_init_written_bytes", node, float(m.bytes_written))
            if m.bytes_expected is not None:
                out.add("ndb_redo_init_expected_bytes", node, float(m.bytes_expected))
            if m.files_done is not None:
                out.add("ndb_redo_init_files_done", node, float(m.files_done))


_DISK_FIELDS: tuple[tuple[str, Callable[[DiskCounters], float | None]], ...] = (
    ("ndbtop_host_disk_reads_completed_total", lambda d: float(d.reads)),
    ("ndbtop_host_disk_writes_completed_total", lambda d: float(d.writes)),
    ("ndbtop_host_disk_reads_merged_total",
     lambda d: None if d.read_merged is None else float(d.read_merged)),
    ("ndbtop_host_disk_writes_merged_total",
     lambda d: None if d.write_merged is None else float(d.write_merged)),
    ("ndbtop_host_disk_read_bytes_total", lambda d: float(d.read_bytes)),
    ("ndbtop_host_disk_written_bytes_total", lambda d: float(d.write_bytes)),
    ("ndbtop_host_disk_read_time_seconds_total", lambda d: d.read_time_ms / 1000.0),
    ("ndbtop_host_disk_write_time_seconds_total", lambda d: d.write_time_ms / 1000.0),
    ("ndbtop_host_disk_io_time_seconds_total",
     lambda d: None if d.busy_time_ms is None else d.busy_time_ms / 1000.0),
)
"""The disk counters node_exporter serves as ``node_disk_*`` from ``/proc/diskstats``, named
``ndbtop_host_disk_*`` so that the two never mix where both run; a field the platform does not
report (``None``) has no series."""


def _disk_rows(reports: tuple[HostReport, ...]) -> Iterator[Row]:
    devices = [((r.host, d.name), d) for r in reports if r.view is not None
               for d in r.view.disk_counters]
    for name, field in _DISK_FIELDS:
        for labels, d in devices:
            value = field(d)
            if value is not None:
                yield name, labels, value
