"""The connected API and SQL nodes in the ``--once`` report and the bundle."""

from __future__ import annotations

from typing import Any

from ndbtop.model.processes import connected_processes, processes_read
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import format_table


def processes_json(snap: ClusterSnapshot) -> list[dict[str, Any]]:
    """The ``processes`` list: one object per connected API or SQL node."""
    return [
        {
            "node_id": p.node_id,
            "kind": p.kind,
            "address": p.address,
            "version": p.version,
            "process_name": p.process_name or None,
            "pid": p.pid,
            "angel_pid": p.angel_pid,
            "service_uri": p.service_uri or None,
            "connect_count": p.connect_count,
        }
        for p in connected_processes(snap.nodes, snap.live_ndbinfo())
    ]


def processes_text(snap: ClusterSnapshot) -> list[str]:
    """The section of the text report."""
    sample = snap.live_ndbinfo()
    listed = connected_processes(snap.nodes, sample)
    head = "Connected API and SQL nodes"
    if not processes_read(sample):
        head += " (ndbinfo.processes not read: no process names or pids)"
    if not listed:
        return ["", f"{head}: none"]
    rows = [(p.node_id, p.kind, p.address or "-", p.version or "-", p.process_name or "-",
             "-" if p.pid is None else p.pid, p.service_uri or "-", p.connect_count)
            for p in listed]
    return ["", f"{head}:",
            format_table(("id", "kind", "address", "version", "process", "pid", "service URI",
                          "connects"), rows, right=(0, 5, 7))]
