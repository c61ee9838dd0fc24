"""What an ndbinfo sample says of the room for tables: the DataMemory each data node has
left (``memoryusage``), and whether ``memory_per_fragment`` was read
(:mod:`ndbtop.model.table_memory`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.model.ndbinfo import NdbinfoSample

DATA_MEMORY = "Data memory"
"""``memoryusage.memory_type`` of DataMemory."""


@dataclass(frozen=True)
class NodeHeadroom:
    """A data node's DataMemory (``memoryusage``, memory_type ``Data memory``)."""

    node_id: int
    used: int
    total: int

    @property
    def free(self) -> int:
        """Bytes not used (never below 0)."""
        return max(self.total - self.used, 0)

    @property
    def used_pct(self) -> float | None:
        """Percent used; None when the total is unknown."""
        return None if self.total <= 0 else 100.0 * self.used / self.total


def headroom(sample: NdbinfoSample | None) -> tuple[NodeHeadroom, ...]:
    """Each data node's DataMemory, by node id (none before ``memoryusage`` was read)."""
    if sample is None:
        return ()
    rows = [NodeHeadroom(m.node_id, m.used, m.total)
            for m in sample.memory if m.memory_type == DATA_MEMORY]
    return tuple(sorted(rows, key=lambda h: h.node_id))


def fills_first(nodes: Sequence[NodeHeadroom]) -> NodeHeadroom | None:
    """The node with the least DataMemory left (the fuller one on a tie); None without any
    node whose total is known."""
    known = [h for h in nodes if h.total > 0]
    if not known:
        return None
    return min(known, key=lambda h: (h.free, -(h.used_pct or 0.0), h.node_id))


def tables_read(sample: NdbinfoSample | None) -> bool:
    """Whether ``memory_per_fragment`` has been read into ``sample``."""
    return sample is not None and sample.panel_read_at("tables") is not None


def tables_unavailable(sample: NdbinfoSample | None) -> str | None:
    """Why the tables could not be read, if the last attempt failed."""
    if sample is None:
        return None
    return dict(sample.unavailable).get("tables")
