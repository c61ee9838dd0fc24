"""The one check every event passes where it is decoded, wherever it is then used.

- its source is a node id (1-255) and, for an event only a data node raises, a
  configured data node when the configuration is given;
- a body field that names a node holds a node id, or 0 (no node);
- a 64-bit counter (a low and a high word) is not negative: the server prints words with
  ``%d`` (mgm-protocol.md §5.2), so a low word printed negative is a large count, but a
  high word printed negative makes a count beyond 2^63, which no backup writes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType

from ndbtop.mgm.events.catalogue import CATALOGUE, Category, EventType
from ndbtop.mgm.events.event import Event
from ndbtop.mgm.events.text import to_int32
from ndbtop.mgm.nodeids import MAX_NODE_ID, node_id_problem

DATA_NODE_CATEGORIES = frozenset({Category.STARTUP, Category.CHECKPOINT, Category.STATISTICS})
"""Categories whose every event is raised by a data node (NDBCNTR, DBDIH, DBLQH, DBTC...)."""
DATA_NODE_TYPES = frozenset(
    {
        EventType.BACKUP_STARTED,
        EventType.BACKUP_FAILED_TO_START,
        EventType.BACKUP_COMPLETED,
        EventType.BACKUP_ABORTED,
        EventType.BACKUP_STATUS,
    }
)
"""Other types only a data node raises (the Restore events come from ndb_restore, an API
node)."""

NODE_FIELDS = frozenset(
    {"node", "failed_node", "dest_node", "to_node", "from_node", "arbit_node", "starting_node"}
)
"""Body keys whose value is a node id (or 0, no node)."""

COUNTERS_64: Mapping[int, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        EventType.BACKUP_COMPLETED: (
            ("n_bytes", "n_bytes_hi"),
            ("n_records", "n_records_hi"),
            ("n_log_bytes", "n_log_bytes_hi"),
            ("n_log_records", "n_log_records_hi"),
        ),
        EventType.BACKUP_STATUS: (
            ("n_bytes_lo", "n_bytes_hi"),
            ("n_records_lo", "n_records_hi"),
            ("n_log_bytes_lo", "n_log_bytes_hi"),
            ("n_log_records_lo", "n_log_records_hi"),
        ),
    }
)
"""The 64-bit counters of each type, as (low word, high word) keys."""


def is_data_node_event(event_type: int) -> bool:
    """Whether only a data node raises events of ``event_type``."""
    spec = CATALOGUE.get(event_type)
    return event_type in DATA_NODE_TYPES or (
        spec is not None and spec.category in DATA_NODE_CATEGORIES
    )


def refusal(event: Event, data_nodes: Collection[int] | None = None) -> str | None:
    """Why ``event`` must be left out, or None (see the module doc)."""
    what = f"{event.name} (type {event.type})"
    limit = data_nodes if is_data_node_event(event.type) else None
    problem = node_id_problem(event.source_node, limit)
    if problem is not None:
        return f"{what} from {problem}"
    for key, value in event.fields:
        if key in NODE_FIELDS and value > MAX_NODE_ID:
            return f"{what} from node {event.source_node}: {key} {value} is not a node id"
    for low, high in COUNTERS_64.get(event.type, ()):
        hi = event.get(high)
        if hi is not None and hi >= 1 << 31:
            value = to_int32(hi) * (1 << 32) + (event.get(low) or 0)
            return f"{what} from node {event.source_node}: counter {low} is {value}, negative"
    return None
