"""The ``--once --json`` report of a snapshot.

Field names are a public interface: later versions add fields, never rename them.
"""

from __future__ import annotations

from typing import Any

from ndbtop.findings.coverage import unjudged
from ndbtop.host.view import HostView
from ndbtop.model.config_facts import reports_off
from ndbtop.model.eta import eta_json
from ndbtop.model.hosts import ErrorLogEntry, HostReport, NodeOnHost
from ndbtop.model.links import link_states
from ndbtop.model.phases import phase_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import in_phase_json, phase_json
from ndbtop.model.summary import summarize
from ndbtop.report.backups import backups_json
from ndbtop.report.cluster_log import cluster_log_json
from ndbtop.report.config_report import config_json, node_group_json
from ndbtop.report.findings import finding_json
from ndbtop.report.sections import default_sections_json
from ndbtop.report.tables import iso_utc


def report_json(snap: ClusterSnapshot, heard_s: float | None = None,
                context: str | None = None) -> dict[str, Any]:
    """Every panel of the snapshot as plain JSON-ready values (``context``: the context's
    name, null without one; ``not_judged``: the rules the sources read leave unjudged, the
    events heard for ``heard_s``)."""
    s = summarize(snap.nodes, snap.config)
    out: dict[str, Any] = {
        "context": context,
        "time": iso_utc(snap.wall),
        "mgm": {"address": snap.mgm_address, "version": snap.mgm_version},
        "summary": {
            "data_nodes": s.data_nodes,
            "data_nodes_started": s.data_started,
            "node_groups_missing_node": list(s.groups_missing),
            "node_groups_down": list(s.groups_down),
            "api_slots": s.api_slots,
            "api_connected": s.api_connected,
            "master": s.master,
            "single_user_mode": s.single_user_mode,
            "single_user_api_node": s.single_user_api,
        },
        "nodes": [
            {
                "node_id": n.node_id,
                "type": n.type,
                "status": n.status,
                "start_phase": n.start_phase,
                "phase": phase_text(n, snap.timeline(n.node_id)) or None,
                "version": n.version_text,
                "node_group": node_group_json(snap, n.node_id),
                "address": n.address,
                "dynamic_id": n.dynamic_id,
                "connect_count": n.connect_count,
                "is_single_user": n.is_single_user,
                **_live_figures(snap, n.node_id),
                **(eta_json(snap.start_eta(n.node_id)) if n.type == "NDB" else {}),
            }
            for n in snap.nodes
        ],
        "sources": [src.as_json(snap.taken_at) for src in snap.sources],
        "start_timelines": [_timeline_json(t, snap.wall, reports_off(snap, t.node_id))
                            for t in snap.timelines],
        "cluster_log_levels": dict(snap.cluster_log_levels),
        "config": config_json(snap),
        "findings": [finding_json(f) for f in snap.findings],
        "not_judged": [{"why": why, "rules": list(ids)}
                       for why, ids in unjudged(snap, heard_s)],
        "cluster_log": cluster_log_json(snap),
        **default_sections_json(snap),
    }
    out.update(_ndbinfo_json(snap))
    out["host"] = _view_json(snap.host)
    out["backups"] = backups_json(snap)
    out["hosts"] = [_host_report_json(h) for h in snap.hosts]
    return out


def _live_figures(snap: ClusterSnapshot, node_id: int) -> dict[str, Any]:
    """A data node's live figures, null unless it is STARTED and they were read since its
    last start (the snapshot keeps no others: :mod:`ndbtop.model.live`)."""
    ni = snap.ndbinfo
    uptime = next((r.uptime_s for r in ni.nodes if r.node_id == node_id), None) if ni else None
    tps = next((a.transactions_per_s for a in snap.activity_rates if a.node_id == node_id),
               None)
    return {"uptime_s": uptime, "transactions_per_s": tps}


def _timeline_json(t: Any, now: float, silent: bool) -> dict[str, Any]:
    """One start timeline; a node that sends no progress reports has its figures done,
    rate and ETA null (its events stay at their first figures until the end)."""
    redo = t.redo
    return {
        "node_id": t.node_id,
        "start_type": t.start_type,
        "active": t.active,
        "phase_in_progress": t.current_phase,
        **in_phase_json(t, now),
        "start_began_at": iso_utc(t.began_at) if t.began_from else None,
        "start_began_from": t.began_from,
        # A start whose beginning was not seen has run at least this long.
        "elapsed_s": round(t.elapsed_s(now), 3) if t.began_exact else None,
        "elapsed_at_least_s": None if t.began_exact else round(t.elapsed_s(now), 3),
        "completed": [phase_json(r) for r in t.completed],
        "redo_init": None
        if redo is None
        else {
            "total_mb": redo.total_mb,
            "mb_done": None if silent else redo.mb_done,
            "total_files": redo.total_files,
            "files_done": None if silent else redo.files_done,
            "mb_per_s": None if silent else redo.mb_per_s,
            "eta_s": None if silent else redo.eta_s,
            "progress_reports": not silent,
        },
    }


def _ndbinfo_json(snap: ClusterSnapshot) -> dict[str, Any]:
    ni = snap.ndbinfo
    if ni is None:
        return {
            "threads": [],
            "disk_page_buffer": [],
            "disk_io": {"write_speed": [], "diskstat": []},
            "memory": [],
            "links": [],
            "activity": [],
            "redo_log": [],
            "restart_info": [],
            "unavailable": [],
        }
    ratios = {h.node_id: h for h in snap.hit_ratios}
    return {
        "ndb_version": ni.ndb_version,
        "threads": [
            {
                "node_id": t.node_id,
                "thr_no": t.thr_no,
                "thread_name": t.thread_name,
                "cpu_pct": round(t.cpu_pct, 1),
                "os_user_pct": t.os_user_pct,
                "os_system_pct": t.os_system_pct,
                "exec_pct": t.exec_pct,
                "send_pct": t.send_pct,
                "spin_pct": t.spin_pct,
                "blocks": list(t.blocks),
                "os_tid": t.os_tid,
            }
            for t in ni.threads
        ],
        "disk_page_buffer": [
            {
                "node_id": d.node_id,
                "hit_ratio_pct": _round(
                    ratios[d.node_id].since_start_pct if d.node_id in ratios else None
                ),
                "hit_ratio_interval_pct": _round(
                    ratios[d.node_id].interval_pct if d.node_id in ratios else None
                ),
                "page_requests_direct_return": d.page_requests_direct_return,
                "page_requests_wait_io": d.page_requests_wait_io,
                "pages_read": d.pages_read,
            }
            for d in ni.disk_page_buffer
        ],
        "disk_io": {
            "write_speed": [
                {
                    "node_id": w.node_id,
                    "redo_bytes_per_s": w.redo_last_sec,
                    "lcp_bytes_per_s": w.backup_lcp_last_sec,
                    "redo_bytes_per_s_10s": w.redo_last_10sec,
                    "lcp_bytes_per_s_10s": w.backup_lcp_last_10sec,
                }
                for w in ni.disk_write_speed
            ],
            "diskstat": [
                {
                    "node_id": d.node_id,
                    "reads_per_s": d.reads_completed,
                    "writes_per_s": d.writes_completed,
                    "log_writes_per_s": d.log_writes_completed,
                    "page_requests_per_s": d.get_page_reqs_issued,
                }
                for d in ni.disk_stat
            ],
        },
        "memory": [
            {
                "node_id": m.node_id,
                "memory_type": m.memory_type,
                "used": m.used,
                "total": m.total,
                "used_pct": _round(m.used_pct),
            }
            for m in ni.memory
        ],
        "links": _links_json(snap),
        "activity": _activity_json(snap),
        "redo_log": [
            {
                "node_id": r.node_id,
                "log_type": r.log_type,
                "log_part": r.log_part,
                "total": r.total,
                "used": r.used,
                "used_pct": _round(r.used_pct),
            }
            for r in ni.log_spaces
        ],
        "restart_info": [
            {
                "node_id": r.node_id,
                "status": r.status,
                "status_int": r.status_int,
                "total_s": r.total_s,
                "phases": dict(r.phases),
            }
            for r in ni.restart_info
        ],
        "unavailable": [{"panel": p, "reason": why} for p, why in ni.unavailable],
    }


def _links_json(snap: ClusterSnapshot) -> list[dict[str, Any]]:
    down = {links.node_id: links.down for links in snap.ndbinfo.links} if snap.ndbinfo else {}
    return [
        {
            "node_id": state.node_id,
            "connected": {c.kind: c.connected for c in state.counts},
            "configured": {c.kind: c.configured for c in state.counts},
            "not_connected": list(down.get(state.node_id, ())),
            "not_connected_while_up": list(state.unexpected_down),
            "overloaded": list(state.overloaded),
            "slowdown": list(state.slowdown),
            "sent_per_s": _round(state.sent_per_s),
            "received_per_s": _round(state.received_per_s),
            "rate_over_s": _round(state.rate_over_s),
        }
        for state in link_states(snap)
    ]


def _activity_json(snap: ClusterSnapshot) -> list[dict[str, Any]]:
    counted = {c.node_id: c for c in snap.ndbinfo.activity} if snap.ndbinfo else {}
    return [
        {
            "node_id": a.node_id,
            "transactions": counted[a.node_id].transactions if a.node_id in counted else None,
            "transactions_per_s": _round(a.transactions_per_s),
            "commits_per_s": _round(a.commits_per_s),
            "aborts_per_s": _round(a.aborts_per_s),
            "key_reads_per_s": _round(a.reads_per_s),
            "key_writes_per_s": _round(a.writes_per_s),
            "scans_per_s": _round(a.scans_per_s),
            "ldm_operations_per_s": _round(a.operations_per_s),
            "over_s": _round(a.seconds),
        }
        for a in snap.activity_rates
    ]


def _host_report_json(h: HostReport) -> dict[str, Any]:
    out: dict[str, Any] = {
        "host": h.host,
        "via": h.via,
        "node_ids": list(h.node_ids),
        "state": h.state,
        "error": h.error,
    }
    view = _view_json(h.view)
    out.update(view if view is not None else
               {"interval_s": None, "disks": [], "cpu": None, "threads": []})
    if h.redo_init:
        out["redo_init"] = [
            {
                "node_id": r.node_id,
                "files_done": r.files_done,
                "files_total": r.files_total,
                "bytes_written": r.bytes_written,
                "bytes_expected": r.bytes_expected,
                "rate_bytes_per_s": _round(r.rate_bytes_per_s),
                "eta_s": _round(r.eta_s),
            }
            for r in h.redo_init
        ]
    if h.error_logs:
        out["error_logs"] = [error_log_json(e) for e in h.error_logs]
    if h.down_nodes:
        out["down_nodes"] = [down_node_json(d) for d in h.down_nodes]
    return out


def down_node_json(d: NodeOnHost) -> dict[str, Any]:
    """What the host of a data node that is not STARTED shows of it, as JSON."""
    disk = d.data_dir
    return {
        "node_id": d.node_id,
        "processes": d.processes,
        "data_dir": None if disk is None else {
            "path": disk.path,
            "mount": disk.mount,
            "total_bytes": disk.total_bytes,
            "available_bytes": disk.available_bytes,
            "used_pct": disk.used_pct,
            "full": disk.full,
        },
        "problem": d.problem,
    }


def error_log_json(e: ErrorLogEntry) -> dict[str, Any]:
    """The newest error-log entry of a failed data node, as JSON."""
    return {
        "node_id": e.node_id,
        "path": e.path,
        "time": e.time,
        "status": e.status,
        "error_code": e.error_code,
        "meaning": e.meaning,
        "caused_by": e.caused_by,
        "trace_file": e.trace_file,
        "problem": e.problem,
        "classification": e.classification,
        "error_data": e.error_data,
        "error_object": e.error_object,
        "program": e.program,
        "pid": e.pid,
        "thread": e.thread,
        "version": e.version,
        "trace_path": e.trace_path,
        "trace_threads": e.trace_threads,
        "unreadable": list(e.unreadable),
    }


def _view_json(h: HostView | None) -> dict[str, Any] | None:
    if h is None:
        return None
    return {
        "interval_s": h.interval_s,
        "hidden_disks": h.hidden_disks,
        "disks": [
            {
                "disk": d.name,
                "r_s": d.r_s,
                "w_s": d.w_s,
                "rkb_s": d.rkb_s,
                "wkb_s": d.wkb_s,
                "wareq_kb": d.wareq_kb,
                "await_ms": d.await_ms,
                "util_pct": d.util_pct,
            }
            for d in h.disks
        ],
        "cpu": None
        if h.cpu is None
        else {
            "user": h.cpu.user,
            "system": h.cpu.system,
            "iowait": h.cpu.iowait,
            "idle": h.cpu.idle,
        },
        "threads": [
            {"node_id": t.node_id, "tid": t.tid, "thread_name": t.thread_name, "cpu_pct": t.cpu_pct}
            for t in h.threads
        ],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
