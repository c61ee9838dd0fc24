"""Which data nodes' figures are live, and the snapshot's figures without the others.

A figure of a data node (its uptime, transactions per second, DataMemory in use, thread
CPU, write and hit rates) holds only while the node is STARTED and was read after its
last start: a node that stops or restarts loses them at once, rather than showing the
last ones as if current (``4,000 tx/s`` for 35 s after every node went down, ``uptime
24h00m`` on a restarting node). The cluster's sums then count only live nodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.phases import StartTimeline

LIVE_STATES = frozenset({"STARTED", "SINGLE USER MODE"})
"""``get status`` states of a data node that serves, with live figures."""
MAX_AGE_INTERVALS = 2.0
"""A sample older than this many refresh intervals is not live."""


def live_data_nodes(
    nodes: Iterable[NodeStatus],
    sample: NdbinfoSample | None,
    timelines: Iterable[StartTimeline],
    *,
    sample_wall: float,
) -> frozenset[int]:
    """The data nodes whose figures in ``sample`` are theirs now.

    STARTED (or in single-user mode) in the last ``get status``; the sample taken (at
    ``sample_wall``, on the timelines' clock) after the node's last start finished; and,
    when the sample has the node's ``ndbinfo.nodes`` row, STARTED there too. A sample
    that is only old (the SQL node stopped answering) keeps its figures, shown as stale;
    the cluster's sums leave it out (:func:`sum_of_live`).
    """
    if sample is None:
        return frozenset()
    finished = {t.node_id: t.finished_at for t in timelines if t.finished_at is not None}
    rows = {n.node_id: n.status for n in sample.nodes}
    out = set()
    for n in nodes:
        if n.type != "NDB" or n.status not in LIVE_STATES:
            continue
        ended = finished.get(n.node_id)
        if ended is not None and sample_wall < ended:
            continue
        if rows and rows.get(n.node_id, "STARTED") != "STARTED":
            continue
        out.add(n.node_id)
    return frozenset(out)


def _keep(rows: tuple, live: frozenset[int]) -> tuple:  # type: ignore[type-arg]
    return tuple(r for r in rows if r.node_id in live)


def live_sample(sample: NdbinfoSample | None, live: frozenset[int]) -> NdbinfoSample | None:
    """``sample`` with the live figures of the data nodes not in ``live`` left out.

    What is not a live figure stays: the configuration each node runs with and the
    restarts' phase times (``restart_info``).
    """
    if sample is None:
        return None
    return replace(
        sample,
        nodes=_keep(sample.nodes, live),
        threads=_keep(sample.threads, live),
        disk_page_buffer=_keep(sample.disk_page_buffer, live),
        disk_write_speed=_keep(sample.disk_write_speed, live),
        disk_stat=_keep(sample.disk_stat, live),
        log_spaces=_keep(sample.log_spaces, live),
        log_buffers=_keep(sample.log_buffers, live),
        memory=_keep(sample.memory, live),
        links=_keep(sample.links, live),
        activity=_keep(sample.activity, live),
    )


def live_rows(rows: tuple, live: frozenset[int]) -> tuple:  # type: ignore[type-arg]
    """Rates by node (activity, links, hit ratios) of the live nodes only."""
    return _keep(rows, live)


def sum_of_live(values: Iterable[float | None], age: float | None,
                interval: float) -> float | None:
    """A cluster's sum of per-node rates (already only the live nodes'), or None when the
    sample is older than :data:`MAX_AGE_INTERVALS` intervals, no node has one, or one
    node's is unknown."""
    rates = list(values)
    if age is None or age > MAX_AGE_INTERVALS * max(interval, 0.1) or not rates:
        return None
    if any(r is None for r in rates):
        return None
    return sum(r for r in rates if r is not None)
