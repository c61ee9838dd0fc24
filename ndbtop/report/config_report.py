"""The cluster configuration in the ``--once`` report: JSON and text."""

from __future__ import annotations

from typing import Any

from ndbtop.model.config import effective_node_group, not_connected_text, pending_restarts
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import format_table, human_bytes


def node_group_json(snap: ClusterSnapshot, node_id: int) -> int | None:
    """The node group of a data node for the report: 65536 for no node group, None when it
    cannot be known (no configuration and the node not started)."""
    node = snap.node(node_id)
    if node is None or node.type != "NDB":
        return None
    return effective_node_group(node, snap.config)


def config_json(snap: ClusterSnapshot) -> dict[str, Any] | None:
    """The ``config`` object: generation, replicas and one entry per data node."""
    config = snap.config
    if config is None:
        return None
    pending = pending_restarts(config, snap.live_ndbinfo())
    return {
        "generation": config.generation,
        "no_of_replicas": config.no_of_replicas,
        "data_nodes": [
            {
                "node_id": d.node_id,
                "node_group": d.node_group,
                "host": d.host,
                "data_dir": d.data_dir,
                "redo_log_bytes": d.redo_log_bytes,
                "startup_status_report_frequency": d.startup_status_report_frequency,
                "data_memory": d.data_memory,
                "disk_page_buffer_memory": d.disk_page_buffer_memory,
                "pending_restart": pending.get(d.node_id),
            }
            for d in config.data_nodes
        ],
    }


def address_text(snap: ClusterSnapshot, node_id: int, address: str, connected: bool) -> str:
    """A node's address, or for one not connected where it may connect from."""
    if connected and address:
        return address
    return not_connected_text(node_id, snap.config) if snap.config is not None else address


def config_text(snap: ClusterSnapshot) -> list[str]:
    """The configuration section of the text report."""
    config = snap.config
    if config is None:
        src = snap.source("config")
        reason = src.error if src is not None and src.error else "not read"
        return ["", f"Configuration: unavailable ({reason})"]
    pending = pending_restarts(config, snap.live_ndbinfo())
    rows = []
    for d in config.data_nodes:
        group = "none" if not d.in_node_group else d.node_group
        p = pending.get(d.node_id)
        rows.append((d.node_id, group, d.host or "any host", d.data_dir,
                     human_bytes(d.data_memory), human_bytes(d.redo_log_bytes),
                     d.startup_status_report_frequency,
                     "?" if p is None else ("yes" if p else "no")))
    return ["", f"Configuration generation {config.generation}, {config.no_of_replicas} "
                f"replicas:",
            format_table(("id", "group", "host", "DataDir", "DataMemory", "redo log",
                          "report s", "restart due"), rows, right=(0,))]
