"""The rule on a cluster whose data is unavailable as a whole: ``cluster_down``.

``node_group_down`` speaks of one node group lost while others run. When no node group has
a started node at all, the cluster serves nothing: that is ``cluster_down``, unless the
data nodes are in a start that visibly moves on (an initial start or a system restart in
progress), which the Nodes view and the start estimate follow.
"""

from __future__ import annotations

from collections.abc import Iterator

from ndbtop.findings.rules_starts import start_waiting_for_nodes
from ndbtop.model.config import NO_NODE_GROUP, effective_node_group
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.freshness import freshness
from ndbtop.model.snapshot import ClusterSnapshot

STARTED = ("STARTED", "SINGLE USER MODE")


STALLED_AFTER_S = 3600.0
"""A start phase that has run this long with no progress seen for :data:`PROGRESS_S` has
stopped moving on (ndbtop's judgement: the field's longest phase, S1's redo log
initialisation, took 39 minutes)."""
PROGRESS_S = 600.0
"""Redo log progress (its reports or the host's measure) this recent shows a start moving."""


def stalled_starts(snap: ClusterSnapshot) -> frozenset[int]:
    """Starting data nodes whose start does not visibly move on: its last StartReport says
    it waits for other nodes with no timeout, or its phase has run past
    :data:`STALLED_AFTER_S` with no redo log progress seen for :data:`PROGRESS_S`."""
    stalled = {n for f in start_waiting_for_nodes(snap) if f.severity is Severity.WARNING
               for n in (int(f.key),) if f.key.isdigit()}
    measured = {m.node_id for h in snap.hosts for m in h.redo_init}
    for t in snap.timelines:
        spent = t.in_phase_s(snap.wall)
        if spent is None or spent < STALLED_AFTER_S or t.node_id in measured:
            continue
        if t.redo is not None and snap.wall - t.redo.at <= PROGRESS_S:
            continue
        stalled.add(t.node_id)
    return frozenset(stalled)


def cluster_down(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``cluster_down``: no node group has a started node (or ``get status`` shows no data
    node started), and no data node is in a start that is moving on."""
    data = snap.data_nodes()
    if not data:
        return
    in_group = [n for n in data
                if effective_node_group(n, snap.config) not in (None, NO_NODE_GROUP)]
    members = in_group or list(data)
    if any(n.status in STARTED for n in members):
        return
    starting = [n.node_id for n in data if n.status == "STARTING"]
    stalled = stalled_starts(snap)
    moving = [i for i in starting if i not in stalled]
    if moving:
        return
    states = ", ".join(f"{n.node_id} {n.status}" for n in data)
    why = ("every starting node's start has stopped moving on"
           if starting else "no data node is starting")
    yield Finding(
        "cluster_down", Severity.CRITICAL,
        f"no data node is started: the cluster serves no data ({why})",
        (Evidence("data nodes started", f"0 of {len(data)}; {states}", "get status",
                  freshness(snap, "mgm").age),),
        Threshold("0 started data nodes, no start moving on", "server",
                  reference="DbdihMain.cpp execCHECKNODEGROUPSREQ: without a started node in "
                  "every node group the data nodes shut down (exit 6302)"),
        "start the data nodes (ndb_mgm: ALL START, or ndbmtd on each host); look at each "
        "node's error log first (Nodes view, --ssh) and at the start's StartReport events",
        nodes=tuple(n.node_id for n in data), key="cluster")
