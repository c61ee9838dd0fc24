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


LIVE_FIGURES = ("nodes", "threads", "disk_page_buffer", "disk_write_speed", "disk_stat",
                "log_spaces", "log_buffers", "memory", "links", "activity")
"""The panels of a sample that hold live figures, by node (:meth:`LiveFilter.sample`)."""


def _keep(rows: tuple, live: frozenset[int]) -> tuple:  # type: ignore[type-arg]
    kept = tuple(r for r in rows if r.node_id in live)
    # Every node live: the very rows, which what is worked out from them knows by identity.
    return rows if len(kept) == len(rows) and isinstance(rows, tuple) else kept


class LiveFilter:
    """A cluster's figures without those of the data nodes that are not live, worked out
    again only when the rows or the live nodes changed: the same rows with the same live
    nodes give the very same objects, which the rules and views recognise by identity
    (a steady cluster's rows are not looked at again)."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[object, frozenset[int], object]] = {}
        """By slot: the rows last filtered, the live nodes and the rows kept."""

    def rows(self, slot: str, rows: tuple, live: frozenset[int]) -> tuple:  # type: ignore[type-arg]
        """The rows of the live nodes (rates by node: activity, links, hit ratios);
        ``slot`` names where they come from."""
        last = self._last.get(slot)
        if last is not None and last[0] is rows and last[1] == live:
            return last[2]  # type: ignore[return-value]
        kept = _keep(rows, live)
        self._last[slot] = (rows, live, kept)
        return kept

    def sample(self, sample: NdbinfoSample | None, live: frozenset[int]
               ) -> NdbinfoSample | None:
        """``sample`` with the live figures of the data nodes not in ``live`` left out.

        What is not a live figure stays: the configuration each node runs with and the
        restarts' phase times (``restart_info``). With every node live, ``sample`` itself.
        """
        if sample is None:
            return None
        last = self._last.get("sample")
        if last is not None and last[0] is sample and last[1] == live:
            return last[2]  # type: ignore[return-value]
        kept = {name: self.rows(f"ndbinfo.{name}", getattr(sample, name), live)
                for name in LIVE_FIGURES}
        out = sample if all(v is getattr(sample, k) for k, v in kept.items()) \
            else replace(sample, **kept)
        self._last["sample"] = (sample, live, out)
        return out


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
