"""``memory_high`` without a SQL node: from what the data nodes report themselves.

A data node sends a MemoryUsage event when its DataMemory in use crosses a band (Cmvmi.cpp
``ZREPORT_MEMORY_USAGE``: 80, 90, 99, 100%), and answers ``REPORT MEMORYUSAGE`` with its
figures (:mod:`ndbtop.collect.memory_report`). The newest of the two, per node, is judged
against the same bands as ``ndbinfo.memoryusage`` (:func:`~ndbtop.findings.rules_cluster.
memory_high`), for every node ndbinfo gives no figure for; the evidence names the report or
event and its time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from ndbtop.findings.event_index import events_of
from ndbtop.findings.rules_cluster import DATA_MEMORY_ADVICE, MEMORY_BANDS, data_memory_verdict
from ndbtop.mgm.events.decode import Event, statistics
from ndbtop.mgm.events.text import DBTUP
from ndbtop.model.findings import Evidence, Finding
from ndbtop.model.snapshot import ClusterSnapshot

MEMORY_USAGE = 50
DATA_MEMORY = "Data memory"


def _newest(snap: ClusterSnapshot) -> dict[int, tuple[Event, str]]:
    """Per data node, its newest DataMemory figure: (event, what it was)."""
    newest: dict[int, tuple[Event, str]] = {}
    found = [(e, "MemoryUsage event") for e in events_of(snap.events, MEMORY_USAGE)]
    found += [(e, "MemoryUsage report") for e in snap.memory_reports]
    for e, what in found:
        values = statistics(e)
        if e.malformed or values is None or values.get("block") != DBTUP:
            continue
        before = newest.get(e.source_node)
        if before is None or e.received_at >= before[0].received_at:
            newest[e.source_node] = (e, what)
    return newest


def memory_reported_high(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``memory_high`` from the data nodes' MemoryUsage reports and events, for the nodes
    ndbinfo gives no DataMemory figure for."""
    ni = snap.live_ndbinfo()
    covered = {m.node_id for m in ni.memory if m.memory_type.lower().startswith("data")} \
        if ni is not None else set()
    for node, (e, what) in sorted(_newest(snap).items()):
        if node in covered:
            continue
        values = statistics(e)
        assert values is not None
        used, total = values["pages_used"], values["pages_total"]
        if total <= 0:
            continue
        pct = used * 100 / total
        if pct < MEMORY_BANDS[0]:
            continue
        band = max(b for b in MEMORY_BANDS if pct >= b)
        severity, clause, threshold, min_free = data_memory_verdict(node, pct, band,
                                                                    snap.config)
        stamp = time.strftime("%H:%M:%S", time.localtime(e.received_at))
        yield Finding(
            "memory_high", severity,
            f"node {node} {DATA_MEMORY} {pct:.0f}% used (band {band}%): {clause}",
            (Evidence(f"{DATA_MEMORY} used", f"{used} of {total} pages of "
                      f"{values['page_size_bytes'] // 1024} KiB ({pct:.1f}%)",
                      f"{what} of node {node}, {stamp}", max(snap.wall - e.received_at, 0.0)),
             min_free),
            threshold, DATA_MEMORY_ADVICE, nodes=(node,), key=f"{node}:{DATA_MEMORY}")
