"""What the host of a data node that is not STARTED says: its newest error-log entry,
its processes and its DataDir's file system (read over ``--ssh``)."""

from __future__ import annotations

import datetime as dt

from ndbtop.model.hosts import ErrorLogEntry, NodeOnHost
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import Text


def _found(snap: ClusterSnapshot, node_id: int) -> tuple[str, ErrorLogEntry | None,
                                                          NodeOnHost | None]:
    host = snap.host_of(node_id)
    if host is None:
        return "", None, None
    entry = next((e for e in host.error_logs if e.node_id == node_id), None)
    down = next((d for d in host.down_nodes if d.node_id == node_id), None)
    return host.host, entry, down


UP = frozenset({"STARTED", "STARTING"})
"""States of a node :func:`down_node_line` has nothing to say about."""


def down_node_line(snap: ClusterSnapshot, node_id: int) -> Text | None:
    """One line for a node that is down: the error with its meaning and classification,
    when, the trace file, what runs on its host and whether its DataDir is full."""
    node = snap.node(node_id)
    if node is None or node.status in UP:
        return None
    _, entry, down = _found(snap, node_id)
    if entry is None and down is None:
        return None
    line = Text(f"node {node_id} {node.status}", style="bold")
    if entry is not None and entry.problem is None:
        code = entry.error_code if entry.error_code is not None else "? (unreadable)"
        meaning = entry.meaning or "?"
        if entry.classification:
            meaning += f" ({entry.classification})"
        line.append(f" · error {code} {meaning}", style="red")
        line.append(f" · {short_time(entry.time)}")
        if entry.trace_file:
            line.append(f" · {entry.trace_file}", style="dim")
    if down is not None:
        if down.processes is not None:
            line.append(" · " + _PROCESSES[down.processes])
        d = down.data_dir
        if d is not None:
            if d.full:
                line.append(" · DataDir FULL", style="bold red")
            else:
                line.append(f" · DataDir {d.available_bytes / (1 << 30):,.1f} GiB free")
    return line


_PROCESSES = {"none": "no ndbmtd", "angel only": "angel only", "worker only": "worker only",
              "angel and worker": "angel+worker running"}


def short_time(text: str | None) -> str:
    """ErrorReporter's ``Thursday 26 November 2026 - 23:41:56`` as ``2026-11-26 23:41:56``
    (the host's local time); any other text as it is."""
    if text is None:
        return "time unknown"
    try:
        return dt.datetime.strptime(text, "%A %d %B %Y - %H:%M:%S").strftime(
            "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return text


def error_log_text(snap: ClusterSnapshot, node_id: int) -> Text | None:
    """The newest entry of a node's error log, whole, with what its host shows of it."""
    host, entry, down = _found(snap, node_id)
    if entry is None and down is None:
        return None
    line = Text("error log ", style="bold")
    if entry is not None:
        if entry.problem:
            line.append(entry.summary(), style="dim")
        else:
            line.append(f"{entry.path} on {host}, newest entry:", style="dim")
            for text in entry.lines():
                line.append("\n  ")
                line.append(text, style="red" if text.startswith(("Error:", "Message:")) else "")
    if down is not None:
        line.append("\nhost ", style="bold")
        line.append(down.summary())
    return line
