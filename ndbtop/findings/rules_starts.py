"""Rules on starts that wait (diagnostics.md §g): StartReport (60) says which nodes a start
waits for, and for how long.

StartReport is sent as binary words (``data=``): the report type, the remaining time in
seconds (~0: none), the size of a node bitmask in words, then five bitmasks: all nodes,
connected, no-wait, the nodes waited for and those without a node group
(EventLogger.cpp ``getTextStartReport``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ndbtop.findings.event_index import events_of
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.events.text import NODE_BITMASK_WORDS
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.snapshot import ClusterSnapshot

START_REPORT, NDB_START_COMPLETED = 60, 11
WAITING_TYPES = frozenset(range(1, 8))
"""Report types 1-7 say the start waits (0x8000 and above say how it starts)."""
FOREVER_TYPES = frozenset({1, 2, 4})
"""``Initial start, waiting for ... to connect`` (an initial start waits for every node,
whatever StartPartialTimeout says), ``Waiting until nodes: ... connects`` and ``Waiting for
non partitioned start``: no timeout (StartPartialTimeout or StartPartitionedTimeout 0)."""
INITIAL_TYPES = frozenset({1, 6})
"""The waits of an initial start: only ``--nowait-nodes`` shortens them, or
StartNoNodegroupTimeout for nodes without a node group (type 6)."""
NO_TIME = 0xFFFFFFFF
LONG_WAIT_S = 300
"""A wait with a timeout at least this long is a finding (ndbtop's judgement): the node
holds the whole start for minutes."""
WAITED_FOR_MASK = 3
"""Index of the bitmask of the nodes waited for among the five."""


def start_report(e: Event) -> tuple[int, int, tuple[int, ...]] | None:
    """(report type, remaining seconds, nodes waited for) of a StartReport; None when its
    words do not hold the five bitmasks."""
    words = e.words
    if len(words) < 3:
        return None
    kind, remaining, size = words[0], words[1], words[2]
    if not 1 <= size <= NODE_BITMASK_WORDS or len(words) < 3 + 5 * size:
        return None
    start = 3 + WAITED_FOR_MASK * size
    nodes = tuple(i * 32 + bit for i, w in enumerate(words[start:start + size])
                  for bit in range(32) if w >> bit & 1)
    return kind, remaining, nodes


def start_waiting_for_nodes(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``start_waiting_for_nodes``: a starting data node's latest StartReport says it waits
    for other nodes with no timeout (warning) or a long one (info)."""
    latest: dict[int, Event] = {}
    for e in events_of(snap.events, START_REPORT, NDB_START_COMPLETED):
        if not e.malformed:
            latest[e.source_node] = e
    if not latest:
        return
    status = {n.node_id: n.status for n in snap.data_nodes()}
    for node, e in sorted(latest.items()):
        if e.type != START_REPORT or status.get(node) in ("STARTED", "SINGLE USER MODE"):
            continue
        report = start_report(e)
        if report is None or report[0] not in WAITING_TYPES or not report[2]:
            continue
        kind, remaining, waited = report
        forever = kind in FOREVER_TYPES or remaining == NO_TIME
        if not forever and remaining < LONG_WAIT_S:
            continue
        names = ", ".join(map(str, waited))
        wait = "with no timeout" if forever else f"for {remaining} s more"
        age = max(snap.wall - e.received_at, 0.0)
        initial = kind in INITIAL_TYPES
        if initial:
            threshold = Threshold(
                "no timeout" if forever else f"{LONG_WAIT_S} s left", "server",
                "--nowait-nodes / StartNoNodegroupTimeout", None,
                "QmgrMain.cpp check_startup: an initial start waits for every node whatever "
                "StartPartialTimeout says")
        elif forever:
            threshold = Threshold("no timeout", "server",
                                  "StartPartialTimeout / StartPartitionedTimeout", None,
                                  "QmgrMain.cpp check_startup")
        else:
            threshold = Threshold(f"{LONG_WAIT_S} s left", "ndbtop")
        yield Finding(
            "start_waiting_for_nodes", Severity.WARNING if forever else Severity.INFO,
            f"node {node}'s {'initial ' if initial else ''}start waits for node {names} {wait}",
            (Evidence("StartReport", e.text, f"node {node}", age),),
            threshold,
            f"start node {names} (or restart node {node} with --nowait-nodes={names} if it "
            "is gone for good)",
            nodes=waited, key=str(node))
