"""A data node's links to the rest of the cluster, told apart by the kind of node at the
other end: from ``ndbinfo.transporters`` (summed per node) and the node types of
``get status``.

A link to an API slot nobody uses is never connected, and one to a data node that is
not started cannot be: neither is a problem. A link that is down while the node at the
other end is started, or whose send buffer is overloaded or slowed down, is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.model.ndbinfo import NodeLinks
from ndbtop.model.snapshot import ClusterSnapshot

_UP = frozenset({"STARTED", "SINGLE USER MODE", "CONNECTED"})
"""``get status`` states in which a node's links are expected to be connected."""

KINDS = ("NDB", "MGM", "API")
"""Node types in the order their link counts are shown."""


@dataclass(frozen=True, **SLOTS)
class LinkCount:
    """Links of one data node to the nodes of one type."""

    kind: str
    connected: int
    configured: int


@dataclass(frozen=True, **SLOTS)
class NodeLinkState:
    """What a data node's links look like at the last reading of ``transporters``."""

    node_id: int
    counts: tuple[LinkCount, ...]
    unexpected_down: tuple[int, ...]
    """Nodes that are up by ``get status`` but the link to which is not connected."""
    overloaded: tuple[int, ...]
    slowdown: tuple[int, ...]
    sent_per_s: float | None
    received_per_s: float | None
    rate_over_s: float

    @property
    def troubled(self) -> bool:
        """Whether a link is overloaded, slowed down or down where it should be up."""
        return bool(self.unexpected_down or self.overloaded or self.slowdown)


class _Peers:
    """The node types and states of ``get status``, looked up once for every data node."""

    def __init__(self, snap: ClusterSnapshot) -> None:
        self.types = {n.node_id: n.type for n in snap.nodes}
        self.up = {n.node_id for n in snap.nodes if n.status in _UP}
        self.configured = {kind: 0 for kind in KINDS}
        for kind in self.types.values():
            if kind in self.configured:
                self.configured[kind] += 1
        self.rates = {r.node_id: r for r in snap.link_rates}

    def state(self, links: NodeLinks) -> NodeLinkState:
        down_by_kind = dict.fromkeys(KINDS, 0)
        for node in links.down:
            kind = self.types.get(node)
            if kind in down_by_kind:
                down_by_kind[kind] += 1
        own = self.types.get(links.node_id)
        counts = []
        for kind in KINDS:
            configured = self.configured[kind] - (own == kind)
            counts.append(LinkCount(kind, configured - down_by_kind[kind], configured))
        rate = self.rates.get(links.node_id)
        return NodeLinkState(
            node_id=links.node_id,
            counts=tuple(counts),
            unexpected_down=tuple(n for n in links.down if n in self.up),
            overloaded=links.overloaded,
            slowdown=links.slowdown,
            sent_per_s=rate.sent_per_s if rate else None,
            received_per_s=rate.received_per_s if rate else None,
            rate_over_s=rate.seconds if rate else 0.0,
        )


def node_link_state(snap: ClusterSnapshot, node_id: int) -> NodeLinkState | None:
    """The links of data node ``node_id``, or None when they were not read."""
    ni = snap.ndbinfo
    links = next((n for n in ni.links if n.node_id == node_id), None) if ni else None
    if ni is None or links is None:
        return None
    return _Peers(snap).state(links)


def link_states(snap: ClusterSnapshot) -> tuple[NodeLinkState, ...]:
    """The links of every data node whose links were read, by node id."""
    ni = snap.ndbinfo
    if ni is None or not ni.links:
        return ()
    peers = _Peers(snap)
    return tuple(peers.state(links) for links in ni.links)


def troubled_links(snap: ClusterSnapshot) -> tuple[NodeLinkState, ...]:
    """Every data node with a troubled link, by node id."""
    ni = snap.ndbinfo
    if ni is None or not ni.links:
        return ()
    # Only the nodes found troubled get their whole state worked out: the summary line
    # asks at every refresh, and in a healthy cluster none is.
    up = {n.node_id for n in snap.nodes if n.status in _UP}
    troubled = [
        links for links in ni.links
        if links.overloaded or links.slowdown or not up.isdisjoint(links.down)
    ]
    if not troubled:
        return ()
    peers = _Peers(snap)
    return tuple(peers.state(links) for links in troubled)


def id_ranges(ids: Iterable[int]) -> str:
    """``3, 5-8, 12``: node ids with runs shown as ranges."""
    ordered = sorted(set(ids))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(parts)
