"""Which node ids the cluster has, for checking an id taken from free text or a row.

An event's source is checked where it is decoded (:mod:`ndbtop.mgm.events.admit`); a node
named inside a text (a failure-handling warning, the bitmask of a GCP-stop kill, an error
log's error data) is checked here against ``get status`` and the configuration: an id
neither knows is no finding about that node.
"""

from __future__ import annotations

from ndbtop.mgm.nodeids import is_node_id
from ndbtop.model.snapshot import ClusterSnapshot


def known_nodes(snap: ClusterSnapshot) -> frozenset[int] | None:
    """Every node id ``get status`` or the configuration has; None when neither was read
    (then any id 1-255 is taken)."""
    ids = {n.node_id for n in snap.nodes}
    if snap.config is not None:
        ids.update(n.node_id for n in snap.config.nodes)
        ids.update(d.node_id for d in snap.config.data_nodes)
    return frozenset(ids) if ids else None


def known_data_nodes(snap: ClusterSnapshot) -> frozenset[int] | None:
    """The data nodes ``get status`` or the configuration has; None when neither was read."""
    ids = {n.node_id for n in snap.nodes if n.type == "NDB"}
    if snap.config is not None:
        ids.update(d.node_id for d in snap.config.data_nodes)
    return frozenset(ids) if ids or snap.nodes or snap.config is not None else None


def is_known(node_id: int, known: frozenset[int] | None) -> bool:
    """Whether ``node_id`` may be taken as a node of this cluster."""
    return is_node_id(node_id) and (known is None or node_id in known)


def node_type(snap: ClusterSnapshot, node_id: int) -> str | None:
    """``NDB``, ``API`` or ``MGM`` as ``get status`` (or else the configuration) says."""
    status = snap.node(node_id)
    if status is not None:
        return status.type
    if snap.config is not None and (c := snap.config.node(node_id)) is not None:
        return c.node_type
    if snap.config is not None and snap.config.data_node(node_id) is not None:
        return "NDB"
    return None
