"""Node ids as NDB has them, checked in one place for every reply and event.

``MAX_NODES`` is 256 and node id 0 is no node, so an id a server sends is 1 to 255.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

MIN_NODE_ID = 1
MAX_NODE_ID = 255
"""The highest node id NDB has (``MAX_NODES`` - 1)."""


def is_node_id(value: int) -> bool:
    """Whether ``value`` is an id a node can have (1-255)."""
    return MIN_NODE_ID <= value <= MAX_NODE_ID


def node_id_problem(value: int, data_nodes: Collection[int] | None = None) -> str | None:
    """Why ``value`` cannot be the node that sent something, or None.

    ``data_nodes``: the configured data nodes, when the configuration is known and the
    sender must be one of them.
    """
    if not is_node_id(value):
        return f"node {value} is not a node id ({MIN_NODE_ID}-{MAX_NODE_ID})"
    if data_nodes is not None and value not in data_nodes:
        return f"node {value} is not a configured data node"
    return None


def known_nodes(rows: Any, dropped: set[int]) -> Any:
    """``rows`` (a tuple of rows with a ``node_id``, or of tuples that start with one) less
    those whose node id NDB cannot have, whose ids are added to ``dropped``; anything else
    is returned as it is."""
    if not isinstance(rows, tuple):
        return rows
    kept = []
    for row in rows:
        node_id = getattr(row, "node_id", None)
        if node_id is None and isinstance(row, tuple) and row:
            node_id = row[0]
        if isinstance(node_id, int) and not isinstance(node_id, bool) and not is_node_id(node_id):
            dropped.add(node_id)
        else:
            kept.append(row)
    return rows if len(kept) == len(rows) else tuple(kept)
