"""What the configuration says about a node in a snapshot: redo log, report frequency."""

from __future__ import annotations

from ndbtop.model.phases import INITIAL_NODE_RESTART, INITIAL_START
from ndbtop.model.snapshot import ClusterSnapshot

NO_REPORTS = ("no progress reports: StartupStatusReportFrequency=0; "
              "add --ssh to measure on the host")
"""What the Nodes view says during an initial start that sends no redo-log progress."""


def reports_off(snap: ClusterSnapshot, node_id: int) -> bool:
    """True while a node runs an initial start (which creates its redo log) and is
    configured to report that only at its beginning and its end."""
    t = snap.timeline(node_id)
    config = snap.config
    if t is None or not t.active or config is None:
        return False
    if t.kind not in (INITIAL_START, INITIAL_NODE_RESTART) and t.redo is None:
        return False
    if t.redo is not None and t.redo.completed:
        return False
    node = config.data_node(node_id)
    return node is not None and node.startup_status_report_frequency == 0


def configured_redo_mb(snap: ClusterSnapshot, node_id: int) -> int | None:
    """The node's redo log in MB from the configuration (parts x files x size)."""
    node = snap.config.data_node(node_id) if snap.config is not None else None
    return None if node is None else node.redo_log_bytes // (1024 * 1024)
