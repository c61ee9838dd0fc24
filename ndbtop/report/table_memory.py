"""Memory per table and DataMemory headroom in the ``--once`` report and the bundle.

The tables are the largest :data:`~ndbtop.model.table_memory.TOP_TABLES` by allocated
DataMemory, each with its indexes and BLOB part tables (what is counted:
:mod:`ndbtop.model.table_memory`). The state says why a list is empty: the tables were not
read yet, there are none, there is no SQL node, or ``memory_per_fragment`` could not be read.
"""

from __future__ import annotations

from typing import Any

from ndbtop.model.headroom import (
    NodeHeadroom,
    fills_first,
    headroom,
    tables_read,
    tables_unavailable,
)
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.model.table_memory import TOP_TABLES, TableMemory
from ndbtop.report.tables import format_table, human_bytes

HEADROOM_NODES = 8
"""Data nodes the text report names on its headroom line (those with the least left; the
JSON has every node)."""

READ = "read"
NO_TABLES = "no tables"
NOT_READ = "not read yet"
NO_SQL_NODE = "no SQL node"
SQL_NODE_DOWN = "SQL node not answering"
UNAVAILABLE = "unavailable"


def tables_state(snap: ClusterSnapshot) -> tuple[str, str]:
    """(state, what to say) of the tables: one of the states above and a sentence."""
    src = snap.source("ndbinfo")
    if src is None or src.state is SourceState.DISABLED:
        return NO_SQL_NODE, ("no SQL node: memory per table is read from "
                             "ndbinfo.memory_per_fragment (--mysql-host)")
    if src.state is not SourceState.CONNECTED:
        why = f": {src.error}" if src.error else ""
        return SQL_NODE_DOWN, f"the SQL node at {src.target or '?'} is not answering{why}"
    sample = snap.ndbinfo
    why = tables_unavailable(sample)
    if why:
        return UNAVAILABLE, f"memory_per_fragment could not be read: {why}"
    if not tables_read(sample):
        return NOT_READ, "memory_per_fragment not read yet"
    assert sample is not None
    if not sample.tables:
        return NO_TABLES, "no tables: memory_per_fragment has no fragment of any table"
    return READ, ""


def _skew(t: TableMemory) -> float | None:
    skew = t.skew
    return None if skew is None else round(skew, 2)


def table_json(t: TableMemory) -> dict[str, Any]:
    """One table: allocated bytes in total and per node, its largest fragment and skew."""
    largest = t.largest_fragment
    mean = t.mean_fragment
    return {
        "schema": t.schema,
        "table": t.table,
        "fq_name": t.fq_name,
        "bytes": t.bytes,
        "in_use_bytes": t.in_use,
        "fixed_bytes": t.fixed_alloc,
        "var_bytes": t.var_alloc,
        "hash_index_bytes": t.hash_alloc,
        "per_node": {str(n.node_id): n.bytes for n in t.nodes},
        "fragments": t.fragment_count,
        "largest_fragment_bytes": None if largest is None else largest[2],
        "largest_fragment": None if largest is None else {
            "node_id": largest[0], "fragment_num": largest[1]},
        "mean_fragment_bytes": None if mean is None else round(mean),
        "skew": _skew(t),
    }


def headroom_json(nodes: tuple[NodeHeadroom, ...]) -> dict[str, Any]:
    """Each node's DataMemory and the node that fills first."""
    first = fills_first(nodes)
    return {
        "nodes": [{"node_id": h.node_id, "used": h.used, "total": h.total, "free": h.free,
                   "used_pct": None if h.used_pct is None else round(h.used_pct, 1)}
                  for h in nodes],
        "fills_first": None if first is None else first.node_id,
    }


def _sample(snap: ClusterSnapshot) -> NdbinfoSample | None:
    return snap.live_ndbinfo()


def tables_json(snap: ClusterSnapshot) -> dict[str, Any]:
    """The ``tables`` list (top :data:`TOP_TABLES` by allocated bytes), its state and the
    DataMemory headroom."""
    state, note = tables_state(snap)
    sample = _sample(snap)
    tables = sample.tables if sample is not None and state == READ else ()
    out: dict[str, Any] = {
        "tables": [table_json(t) for t in tables],
        "tables_state": state,
        "data_memory_headroom": headroom_json(headroom(sample)),
    }
    if note:
        out["tables_note"] = note
    return out


def headroom_line(nodes: tuple[NodeHeadroom, ...]) -> str:
    """``DataMemory left: node 2 1.2 GiB of 4.0 GiB (70.0% used), ...; fills first: 2``."""
    if not nodes:
        return "DataMemory headroom: memoryusage not read"
    first = fills_first(nodes)
    shown = list(nodes)
    head = "DataMemory left: "
    if len(shown) > HEADROOM_NODES:
        shown = sorted(shown, key=lambda h: (h.free, h.node_id))[:HEADROOM_NODES]
        head = f"DataMemory left (the {HEADROOM_NODES} nodes with least, of {len(nodes)}): "
    parts = [f"node {h.node_id} {human_bytes(h.free)} of {human_bytes(h.total)}"
             + ("" if h.used_pct is None else f" ({h.used_pct:.1f}% used)") for h in shown]
    tail = f"; fills first: node {first.node_id}" if first is not None else ""
    return head + ", ".join(parts) + tail


def _skew_text(t: TableMemory) -> str:
    skew = t.skew
    return "-" if skew is None else f"{skew:.2f}"


def tables_text(snap: ClusterSnapshot) -> list[str]:
    """The section of the text report."""
    state, note = tables_state(snap)
    sample = _sample(snap)
    head = (f"Memory per table (the {TOP_TABLES} largest by DataMemory allocated: fixed + "
            "variable + hash index, with their indexes and BLOB part tables)")
    lines = ["", head + ":" if state == READ else f"{head}: {note}",
             headroom_line(headroom(sample))]
    if state != READ or sample is None:
        return lines
    rows = []
    for t in sample.tables:
        largest = t.largest_fragment
        rows.append((t.schema or "-", t.table, human_bytes(t.bytes), human_bytes(t.in_use),
                     human_bytes(t.fixed_alloc), human_bytes(t.var_alloc),
                     human_bytes(t.hash_alloc),
                     " ".join(f"{n.node_id}:{human_bytes(n.bytes)}" for n in t.nodes),
                     "-" if largest is None else
                     f"{human_bytes(largest[2])} (frag {largest[1]} on {largest[0]})",
                     _skew_text(t)))
    lines.append(format_table(
        ("schema", "table", "allocated", "in use", "fixed", "var", "hash index", "per node",
         "largest fragment", "skew"), rows, right=(2, 3, 4, 5, 6, 9)))
    return lines
