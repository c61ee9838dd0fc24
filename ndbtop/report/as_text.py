"""The ``--once`` report of a snapshot as readable tables (also what ``y`` copies)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from ndbtop.eta.node_evidence import redo_mb_per_s
from ndbtop.eta.node_text import eta_text
from ndbtop.model.config import NO_NODE_GROUP
from ndbtop.model.config_facts import reports_off
from ndbtop.model.hosts import ErrorLogEntry
from ndbtop.model.links import id_ranges, link_states
from ndbtop.model.phases import phase_text
from ndbtop.model.redo_rates import redo_speed_text, written_rate_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.model.start_evidence import since_text, timer_prefix
from ndbtop.model.summary import single_user_text, summarize
from ndbtop.report.backups import backups_text
from ndbtop.report.cluster_log import cluster_log_text
from ndbtop.report.config_report import address_text, config_text, node_group_json
from ndbtop.report.findings import findings_text, unjudged_lines
from ndbtop.report.sections import default_sections_text
from ndbtop.report.tables import duration, format_table, human_bytes, per_second
from ndbtop.sanitise import Laid, laid_out


def _activity_text(snap: ClusterSnapshot) -> list[str]:
    rates = snap.activity_rates
    if not rates or all(a.transactions_per_s is None for a in rates):
        return []
    return [
        "",
        f"Activity (per second, over {duration(rates[0].seconds)}):",
        format_table(
            ("node", "tx", "aborts", "key reads", "key writes", "scans", "LDM ops"),
            [
                (a.node_id, *map(per_second, (
                    a.transactions_per_s, a.aborts_per_s, a.reads_per_s, a.writes_per_s,
                    a.scans_per_s, a.operations_per_s)))
                for a in rates
            ],
            right=(0, 1, 2, 3, 4, 5, 6),
        ),
    ]


def _links_text(snap: ClusterSnapshot) -> list[str]:
    rows = []
    for s in link_states(snap):
        counts = {c.kind: f"{c.connected}/{c.configured}" for c in s.counts}
        rows.append((
            s.node_id, counts["NDB"], counts["MGM"], counts["API"],
            human_bytes(s.sent_per_s) + "/s" if s.sent_per_s is not None else "-",
            human_bytes(s.received_per_s) + "/s" if s.received_per_s is not None else "-",
            id_ranges(s.unexpected_down) or "-",
            id_ranges(s.overloaded) or "-",
            id_ranges(s.slowdown) or "-",
        ))
    if not rows:
        return []
    return [
        "",
        "Links (connected/configured; down while the other end is up):",
        format_table(
            ("node", "data", "mgm", "API", "sent", "received", "down", "overloaded",
             "slowdown"),
            rows,
            right=(0, 1, 2, 3, 4, 5),
        ),
    ]


def report_text(snap: ClusterSnapshot, node_notes: Mapping[int, str] | None = None,
                heard_s: float | None = None, context: str | None = None) -> str:
    """The snapshot as sections of plain tables (every line at most
    :data:`~ndbtop.elide.MAX_LINE_CHARS` characters); ``node_notes`` are said under the
    nodes (a node a failed restart wait left NOT_STARTED); ``heard_s``: how long the events
    were listened to (the rules that leaves unjudged are named; None: long enough);
    ``context``: the context's name the heading gives."""
    lines = [heading_text(snap, context)]
    lines += nodes_text(snap, node_notes)
    lines += findings_text(snap.findings)
    lines += unjudged_lines(snap, heard_s)
    lines += cluster_log_text(snap)
    lines += config_text(snap)
    lines += default_sections_text(snap)
    lines += sources_text(snap)
    lines += backups_text(snap)
    lines += _ndbinfo_text(snap)
    lines += _host_text(snap)
    return Laid(laid_out(lines) + "\n")


def heading_text(snap: ClusterSnapshot, context: str | None = None) -> str:
    """The report's first line: which cluster (``Cluster prod at ...`` for a context),
    which version, when."""
    when = dt.datetime.fromtimestamp(snap.wall).strftime("%Y-%m-%d %H:%M:%S")
    where = snap.mgm_address or "(no management server)"
    name = f" {context}" if context else ""
    return f"Cluster{name} at {where}, NDB {snap.mgm_version or '?'}, {when}"


def nodes_text(snap: ClusterSnapshot, node_notes: Mapping[int, str] | None = None) -> list[str]:
    """The summary and every node with its phase and timer; notes, redo progress, down
    nodes' triage."""
    s = summarize(snap.nodes, snap.config)
    lines = [
        f"Data nodes started {s.data_started}/{s.data_nodes}; node groups missing a node: "
        f"{', '.join(f'#{g}' for g in s.groups_missing) or 'none'}; API slots connected "
        f"{s.api_connected}/{s.api_slots}"
        + (f"; {single_user_text(s)}: every restart is refused" if s.single_user_mode
           else ""),
        "",
    ]
    timelines = {t.node_id: t for t in snap.timelines}
    rows = []
    for n in snap.nodes:
        phase = "-"
        t = timelines.get(n.node_id)
        if n.status in ("STARTING", "SHUTTING_DOWN"):
            phase = phase_text(n, t)
            if n.status == "STARTING" and t and t.active and (
                secs := t.in_phase_s(snap.wall)
            ) is not None:
                phase += f" ({timer_prefix(t)}{duration(secs)})"
        group: object = ""
        if n.type == "NDB":
            g = node_group_json(snap, n.node_id)
            group = "?" if g is None else ("none" if g == NO_NODE_GROUP else g)
        rows.append((n.node_id, n.type, n.status, phase, group, n.version_text,
                     address_text(snap, n.node_id, n.address, n.connected)))
    lines.append(
        format_table(
            ("id", "type", "status", "phase", "group", "version", "address"), rows, right=(0,)
        )
    )
    for node_id, note in sorted((node_notes or {}).items()):
        lines.append(f"  node {node_id} {note}")
    for t in snap.timelines:
        if t.active and t.current_phase is not None and t.current_from != "event":
            lines.append(f"  node {t.node_id} in phase {t.current_phase} {since_text(t)}")
    for t in snap.timelines:
        if t.redo is not None and t.active and reports_off(snap, t.node_id):
            lines.append(f"  node {t.node_id} redo log init: {t.redo.total_mb} MB to create, "
                         "no progress reports (StartupStatusReportFrequency=0)")
        elif t.redo is not None and t.active:
            r = t.redo
            lines.append(
                f"  node {t.node_id} redo log init: {r.mb_done}/{r.total_mb} MB, "
                f"{r.files_done}/{r.total_files} files, {redo_speed_text(t)}"
            )
    for node_id, result in snap.start_etas:
        lines.append(f"  node {node_id} {eta_text(result, redo_mb_per_s(snap, node_id))}")
    lines += _down_text(snap)
    return lines


def sources_text(snap: ClusterSnapshot) -> list[str]:
    """Every source with its state, age and what it cannot read."""
    lines = ["", "Sources:"]
    width = max([8, *(len(src.name) for src in snap.sources)])
    under = " " * (width + 3)
    for src in snap.sources:
        age = src.age(snap.taken_at)
        shown = "waiting" if src.state is SourceState.UNAVAILABLE else src.state.value
        state = shown + (f" ({src.error})" if src.error else "")
        via = f" from {src.target}" if src.others and src.state.value == "connected" else ""
        lines.append(f"  {src.name:{width}} {state}{via}"
                     + (f", {age:.1f} s old" if age is not None else ""))
        if via:
            lines.extend(f"{under}also {other}" for other in src.others)
        lines += [f"{under}{part} unavailable: {why}" for part, why in src.unavailable]
    return lines


def _ndbinfo_text(snap: ClusterSnapshot) -> list[str]:
    ni = snap.ndbinfo
    if ni is None:
        return []
    out: list[str] = []
    if ni.threads:
        rows = sorted(ni.threads, key=lambda t: (t.node_id, t.thr_no))
        out += [
            "",
            "Threads (cpu %, last second):",
            format_table(
                ("node", "thr", "name", "cpu", "user", "sys", "exec", "send", "blocks"),
                [
                    (
                        t.node_id,
                        t.thr_no,
                        t.thread_name,
                        t.cpu_pct,
                        t.os_user_pct,
                        t.os_system_pct,
                        t.exec_pct,
                        t.send_pct,
                        " ".join(t.blocks[:6]),
                    )
                    for t in rows
                ],
                right=(0, 1, 3, 4, 5, 6, 7),
            ),
        ]
    if snap.hit_ratios:
        out += [
            "",
            "Disk page buffer hit ratio:",
            format_table(
                ("node", "since start %", "last interval %", "requests/s"),
                [
                    (h.node_id, h.since_start_pct, h.interval_pct, h.requests_per_s)
                    for h in snap.hit_ratios
                ],
                right=(0, 1, 2, 3),
            ),
        ]
    if ni.memory:
        out += [
            "",
            "Memory:",
            format_table(
                ("node", "type", "used", "total", "used %"),
                [
                    (
                        m.node_id,
                        m.memory_type,
                        human_bytes(m.used),
                        human_bytes(m.total),
                        m.used_pct,
                    )
                    for m in ni.memory
                ],
                right=(0, 2, 3, 4),
            ),
        ]
    out += _activity_text(snap)
    out += _links_text(snap)
    if ni.log_spaces:
        out += [
            "",
            "Redo log:",
            format_table(
                ("node", "type", "part", "used", "total", "used %"),
                [
                    (
                        r.node_id,
                        r.log_type,
                        r.log_part,
                        human_bytes(r.used),
                        human_bytes(r.total),
                        r.used_pct,
                    )
                    for r in ni.log_spaces
                ],
                right=(0, 2, 3, 4, 5),
            ),
        ]
    if ni.disk_write_speed:
        out += [
            "",
            "Disk write speed (last second):",
            format_table(
                ("node", "redo", "LCP+backup"),
                [
                    (
                        w.node_id,
                        human_bytes(w.redo_last_sec) + "/s",
                        human_bytes(w.backup_lcp_last_sec) + "/s",
                    )
                    for w in ni.disk_write_speed
                ],
                right=(0, 1, 2),
            ),
        ]
    for r in ni.restart_info:
        phases = ", ".join(f"{k.removeprefix('secs_')} {duration(v)}" for k, v in r.phases if v)
        out += [
            "",
            f"Last restart of node {r.node_id}: {r.status}, {duration(r.total_s)} "
            f"total" + (f" ({phases})" if phases else ""),
        ]
    for panel, why in ni.unavailable:
        out.append(f"  {panel}: unavailable ({why})")
    return out


def _host_text(snap: ClusterSnapshot) -> list[str]:
    out: list[str] = []
    hosts = sorted(snap.hosts, key=lambda h: -(h.util_pct or 0.0))
    for h in hosts:
        nodes = ", ".join(str(i) for i in h.node_ids) or "none found"
        title = f"Host {h.host} ({h.via}; data nodes {nodes})"
        if h.state != "ok":
            out += ["", f"{title}: {h.state}" + (f": {h.error}" if h.error else "")]
            continue
        disks = h.view.disks if h.view else ()
        out += ["", f"{title}, disks (iostat -x):", _disk_table(disks)]
        if h.view is not None and h.view.hidden_disks:
            out.append(f"  {h.view.hidden_disks} more block devices not shown "
                       f"(at most {len(disks)} a host)")
        # The progress and its rate only: the node's one estimate is its start's ETA line.
        for r in h.redo_init:
            out.append(
                f"  node {r.node_id} redo log initialisation (measured on the host): files "
                f"{_opt(r.files_done)}/{_opt(r.files_total)}, written "
                f"{_mb(r.bytes_written)}/{_mb(r.bytes_expected)} MB, "
                f"{written_rate_text(r.rate_bytes_per_s)}"
            )
        for e in h.error_logs:
            out.append(f"  node {e.node_id} error log: {error_log_line(e)}")
        for d in h.down_nodes:
            out.append(f"  node {d.node_id} on this host: {d.summary()}")
    if not hosts and snap.host is not None and snap.host.disks:
        out += ["", "Host disks (iostat -x):", _disk_table(snap.host.disks)]
    return out


def error_log_line(e: ErrorLogEntry) -> str:
    """One line for the newest error-log entry of a failed node."""
    return e.summary()


def _down_text(snap: ClusterSnapshot) -> list[str]:
    """Each data node that is down, with what its host says (read over ``--ssh``)."""
    out: list[str] = []
    for n in snap.data_nodes():
        if n.status in ("STARTED", "STARTING"):
            continue
        host = snap.host_of(n.node_id)
        if host is None:
            continue
        entry = next((e for e in host.error_logs if e.node_id == n.node_id), None)
        down = next((d for d in host.down_nodes if d.node_id == n.node_id), None)
        if entry is None and down is None:
            continue
        out.append(f"  node {n.node_id} {n.status} (host {host.host}):")
        if entry is not None:
            out.append(f"    newest error-log entry: {entry.summary()}")
        if down is not None:
            out.append(f"    on its host: {down.summary()}")
    return ["", "Data nodes that are down:", *out] if out else []


def _opt(value: object) -> str:
    return "?" if value is None else str(value)


def _mb(value: float | None) -> str:
    return "?" if value is None else f"{value / 1048576:,.1f}"


def _disk_table(disks: Any) -> str:
    return format_table(
        ("disk", "r/s", "w/s", "rkB/s", "wkB/s", "wareq-kB", "await ms", "%util"),
        [
            (d.name, d.r_s, d.w_s, d.rkb_s, d.wkb_s, d.wareq_kb, d.await_ms, d.util_pct)
            for d in disks
        ],
        right=(1, 2, 3, 4, 5, 6, 7),
    )
