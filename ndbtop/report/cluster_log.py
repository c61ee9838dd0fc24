"""The cluster log in the reports: the file's recent history, then the events listened to.

``--once --json`` lists both (``cluster_log``: time, node, severity, category where known,
text, ``from`` ``file`` or ``events``); the text report shows the file's warnings and worse
of the last hour, marked as history; a bundle holds the file's lines as ``cluster.log``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.catalogue import Severity
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.events.text import cluster_log_line
from ndbtop.model.same_event import TimesByKey
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import iso_utc

SHOWN = 20
"""File lines the text report shows (the newest warnings and worse)."""
NOTABLE = frozenset({"WARNING", "ERROR", "CRITICAL", "ALERT"})
SAME_EVENT_S = 2.0


def _line_json(ln: LogLine) -> dict[str, Any]:
    return {"time": None if ln.time is None else iso_utc(ln.time), "node": ln.node,
            "severity": ln.severity, "category": ln.category, "text": ln.text,
            "from": ln.origin, "mgm_node": ln.mgm_node, "repeated": ln.repeated}


def _event_json(e: Event) -> dict[str, Any]:
    return {"time": iso_utc(e.received_at), "node": e.source_node or None,
            "severity": e.severity.name if e.severity is not None else None,
            "category": e.category.name if e.category is not None else None,
            "text": e.text, "from": "events", "mgm_node": None, "repeated": 1}


def listened(snap: ClusterSnapshot) -> list[Event]:
    """The events listened to that the file's lines do not already hold."""
    if not snap.cluster_log:
        return list(snap.events)
    last = max((ln.time for ln in snap.cluster_log if ln.time is not None), default=None)
    held = TimesByKey(((ln.node, ln.text), ln.time) for ln in snap.cluster_log
                      if ln.time is not None and last is not None
                      and ln.time >= last - 10 * SAME_EVENT_S)
    return [e for e in snap.events
            if not held.near((e.source_node, e.text), e.received_at, SAME_EVENT_S)]


def cluster_log_json(snap: ClusterSnapshot) -> list[dict[str, Any]]:
    """The ``cluster_log`` list: the file's lines, then the events listened to."""
    return [*map(_line_json, snap.cluster_log), *map(_event_json, listened(snap))]


def _when(at: float | None) -> str:
    return "?" if at is None else dt.datetime.fromtimestamp(at).strftime("%H:%M:%S")


def cluster_log_text(snap: ClusterSnapshot) -> list[str]:
    """The file's warnings and worse of its last hour, as history (none: what was read)."""
    src = snap.source("cluster-log")
    if not snap.cluster_log:
        if src is None:
            return []
        why = src.error or "nothing in its last hour"
        return ["", f"Cluster log history: none ({why})"]
    notable = [ln for ln in snap.cluster_log if ln.severity in NOTABLE]
    shown = notable[-SHOWN:]
    head = (f"Cluster log history (from the file, {len(snap.cluster_log)} lines in its last "
            f"hour; {len(notable)} warning{'' if len(notable) == 1 else 's'} or worse"
            + (f", the last {len(shown)} shown" if len(shown) < len(notable) else "") + "):")
    out = ["", head]
    for ln in shown:
        node = f"node {ln.node}" if ln.node is not None else "mgmd"
        times = f" (x{ln.repeated})" if ln.repeated > 1 else ""
        out.append(f"  {_when(ln.time)} history {ln.severity or '?':8} {node}: "
                   f"{ln.text}{times}")
    if not shown:
        out.append("  no warning or worse")
    return out


def cluster_log_file(snap: ClusterSnapshot) -> str:
    """The file's lines in the file's own layout (``cluster.log`` of a bundle)."""
    out = []
    for ln in snap.cluster_log:
        if ln.time is None or ln.severity is None:
            out.append(ln.text)
            continue
        text = ln.text + (f" - Repeated {ln.repeated} times" if ln.repeated > 1 else "")
        out.append(cluster_log_line(dt.datetime.fromtimestamp(ln.time), ln.node or 0,
                                    Severity[ln.severity], text, ln.logger or "MgmtSrvr"))
    return "".join(f"{x}\n" for x in out)
