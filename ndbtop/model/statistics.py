"""The statistics events data nodes report when CLUSTERLOG STATISTICS is raised (S5).

TransReportCounters and OperationReportCounters count what happened since the
node's previous report; the per-second figures divide by the time between two
reports of the same node.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.decode import Event, statistics

TRANS_FIELDS = (
    "trans_count",
    "commit_count",
    "read_count",
    "simple_read_count",
    "write_count",
    "abort_count",
    "scan_count",
    "range_scan_count",
    "conc_op_count",
)


@dataclass(frozen=True, **SLOTS)
class NodeStatistics:
    """The latest statistics one data node reported."""

    node_id: int
    at: float
    counters: tuple[tuple[str, int], ...] = ()
    counters_at: float | None = None
    interval_s: float | None = None
    operations: int | None = None
    mean_loop_count: int | None = None
    send_bytes: tuple[tuple[int, int], ...] = ()
    receive_bytes: tuple[tuple[int, int], ...] = ()

    def counter(self, name: str) -> int | None:
        """One TransReportCounters value (``trans_count`` ... ``conc_op_count``)."""
        return dict(self.counters).get(name)

    @property
    def tps(self) -> float | None:
        """Transactions per second between the last two reports."""
        count = self.counter("trans_count")
        if count is None or not self.interval_s:
            return None
        return count / self.interval_s


def _merge(
    pairs: tuple[tuple[int, int], ...], peer: int, value: int
) -> tuple[tuple[int, int], ...]:
    d = dict(pairs)
    d[peer] = value
    return tuple(sorted(d.items()))


def apply_statistics(
    stats: Mapping[int, NodeStatistics], event: Event
) -> dict[int, NodeStatistics]:
    """Fold one event into the per-node statistics (other events change nothing)."""
    values = statistics(event)
    if values is None or event.type == 50:
        return dict(stats)
    out = dict(stats)
    node = event.source_node
    at = event.received_at
    cur = out.get(node) or NodeStatistics(node, at)
    if event.type == 35:
        interval = at - cur.counters_at if cur.counters_at is not None else None
        counters = tuple((k, values[k]) for k in TRANS_FIELDS if k in values)
        cur = replace(cur, counters=counters, counters_at=at, interval_s=interval or None)
    elif event.type == 36:
        cur = replace(cur, operations=values["ops"])
    elif event.type == 39:
        cur = replace(cur, mean_loop_count=values["mean_loop_count"])
    elif event.type == 40:
        cur = replace(
            cur, send_bytes=_merge(cur.send_bytes, values["to_node"], values["mean_sent_bytes"])
        )
    elif event.type == 41:
        cur = replace(
            cur,
            receive_bytes=_merge(
                cur.receive_bytes, values["from_node"], values["mean_received_bytes"]
            ),
        )
    else:
        return out
    out[node] = replace(cur, at=at)
    return out
