"""When a backup will be done: the data still to write, at the rate each node writes it.

A data node writes the fragments it is the primary of: about its DataMemory in use
divided by ``NoOfReplicas``. The pages in use hold more than the rows (free space in
pages, page headers), so that share is the most a node has to write: the estimate
takes it as the value and the high end, and takes the pages as only
:data:`FILL_LOW` full of row data for the low end. The node's rate is its last
interval between two ``REPORT BACKUPSTATUS`` answers; its rate since the backup
started widens the range when the two differ. The backup ends when its slowest node
has written its share.

A node that reports no more data written since its previous report, while the
backup runs, has written its share: what it wrote against its DataMemory in use then
tells how full the pages are, and the other nodes' shares are taken at that fill
(within :data:`FILL_MEASURED_MARGIN`).

What is not known ahead: the backup log (the changes made while the backup runs,
written until the data is done) and the stop (the stop GCP, the files closed); the
basis says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import Event, statistics
from ndbtop.model.backups import Backup, NodeProgress
from ndbtop.model.eta import Eta, EtaMissing, EtaResult, bounded
from ndbtop.model.ndbinfo import MemoryUse
from ndbtop.model.snapshot import ClusterSnapshot

FILL_LOW = 0.5
"""The low end takes the DataMemory pages in use to be this full of row data."""
ONE_RATE_MARGIN = 0.3
"""Half-width of the rate's range when it was measured once only."""
RATE_MARGIN = 0.1
"""Least half-width of the rate's range when measured both since the start and lately."""
FILL_MEASURED_MARGIN = 0.1
"""Half-width of the share of a node, once the fill was measured on a node that is done."""
DBTUP = 249
"""The block of ``REPORT MEMORYUSAGE``'s DataMemory figure (DBACC, 248, is the index)."""
LOG_UNKNOWN = "backup log not known ahead"
SIZE_AT_MOST = "DataMemory in use / replicas, at most"
RATE_ONCE = "rate of one interval"
RATE_BOTH = "rate lately and since the start"


def data_in_use(memory: Sequence[MemoryUse]) -> dict[int, float]:
    """Bytes of DataMemory in use per data node, from ``ndbinfo.memoryusage``."""
    return {m.node_id: float(m.used) for m in memory if m.memory_type == "Data memory"}


def data_in_use_from_events(events: Sequence[Event]) -> dict[int, float]:
    """Bytes of DataMemory in use per data node, from MemoryUsage events (``REPORT
    MEMORYUSAGE``: pages used times the page size, block DBTUP; report/ndb_mgm.py)."""
    out: dict[int, float] = {}
    for event in events:
        if event.type != EventType.MEMORY_USAGE or event.malformed:
            continue
        values = statistics(event)
        if values is not None and values.get("block") == DBTUP:
            out[event.source_node] = float(values["pages_used"] * values["page_size_bytes"])
    return out


def _rates(b: Backup, n: NodeProgress) -> list[float]:
    rates = []
    if n.data_bytes_per_s is not None and n.data_bytes_per_s > 0:
        rates.append(n.data_bytes_per_s)
    if b.started_at is not None and n.at > b.started_at and n.bytes > 0:
        rates.append(n.bytes / (n.at - b.started_at))
    return rates


def done(n: NodeProgress) -> bool:
    """The node wrote no data since its previous report: its share is written."""
    return n.data_bytes_per_s == 0 and n.bytes > 0


def measured_fill(nodes: Sequence[NodeProgress], in_use: Mapping[int, float],
                  replicas: int) -> tuple[float, int] | None:
    """(how full of row data the pages in use are, the node it was measured on), from
    the nodes that are done."""
    fills = [(n.bytes * replicas / in_use[n.node_id], n.node_id) for n in nodes
             if done(n) and in_use.get(n.node_id, 0) > 0]
    return max(fills) if fills else None


def _node(b: Backup, n: NodeProgress, in_use: float, replicas: int,
          now: float, fill: float | None) -> tuple[float, float, float] | str:
    """(seconds, low, high) for one node from ``now``, or why there is none."""
    if done(n):
        return (0.0, 0.0, 0.0)
    rates = _rates(b, n)
    if not rates:
        return f"node {n.node_id}'s rate not measured yet (one report, the start not seen)"
    rate = rates[0]
    margin = ONE_RATE_MARGIN if len(rates) == 1 else RATE_MARGIN
    slow = min(min(rates), rate * (1 - margin))
    fast = max(max(rates), rate * (1 + margin))
    share = in_use / replicas
    if n.bytes >= share:
        return (f"node {n.node_id} wrote more than its DataMemory in use / replicas and "
                "goes on: what is left is not known")
    since = max(now - n.at, 0.0)
    if fill is None:
        likely = most = max(share - n.bytes, 0.0)
        least = max(share * FILL_LOW - n.bytes, 0.0)
    else:
        likely = max(share * fill - n.bytes, 0.0)
        most = max(share * min(fill * (1 + FILL_MEASURED_MARGIN), 1.0) - n.bytes, likely)
        least = max(share * fill * (1 - FILL_MEASURED_MARGIN) - n.bytes, 0.0)
    return (max(likely / rate - since, 0.0), max(least / fast - since, 0.0),
            max(most / slow - since, 0.0))


def backup_eta(b: Backup, in_use: Mapping[int, float] | None, replicas: int | None,
               now: float) -> EtaResult:
    """The time until ``b``'s data is written, from its nodes' last reports.

    ``in_use`` is each data node's DataMemory in use in bytes; ``now`` a wall-clock
    epoch on the reports' clock.
    """
    if not b.running:
        return EtaMissing(f"backup {b.state}")
    if not b.nodes:
        return EtaMissing("no progress report yet (REPORT BACKUPSTATUS)")
    if not in_use:
        return EtaMissing("DataMemory in use not known (ndbinfo.memoryusage, REPORT "
                          "MEMORYUSAGE)")
    if not replicas:
        return EtaMissing("NoOfReplicas not known")
    missing = next((n.node_id for n in b.nodes if n.node_id not in in_use), None)
    if missing is not None:
        return EtaMissing(f"DataMemory in use of node {missing} not known")
    measured = measured_fill(b.nodes, in_use, replicas)
    fill = None if measured is None else measured[0]
    figures = []
    for n in b.nodes:
        figure = _node(b, n, in_use[n.node_id], replicas, now, fill)
        if isinstance(figure, str):
            return EtaMissing(figure)
        figures.append(figure)
    seconds = max(f[0] for f in figures)
    low = max(f[1] for f in figures)
    high = max(f[2] for f in figures)
    size = (SIZE_AT_MOST if measured is None
            else f"DataMemory in use at the fill node {measured[1]} showed")
    rate = (RATE_ONCE if all(len(_rates(b, n)) <= 1 for n in b.nodes) else RATE_BOTH)
    return bounded(Eta(seconds, low, high, now, (size, rate, LOG_UNKNOWN)))


def eta_in_snapshot(snap: ClusterSnapshot, b: Backup) -> EtaResult:
    """``b``'s estimate from what a refresh read: DataMemory in use from ndbinfo, else as
    the data nodes reported it for this backup (``REPORT MEMORYUSAGE``), and
    ``NoOfReplicas`` from the configuration."""
    memory = snap.ndbinfo.memory if snap.ndbinfo is not None else ()
    in_use = data_in_use(memory) or dict(snap.backup_data_in_use)
    replicas = snap.config.no_of_replicas if snap.config is not None else None
    return backup_eta(b, in_use, replicas, snap.wall)
