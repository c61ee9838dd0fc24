"""A data node's links told apart by the kind of node at the other end."""

from __future__ import annotations

import pytest

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.derive import LinkRate
from ndbtop.model.links import LinkCount, id_ranges, node_link_state, troubled_links
from ndbtop.model.ndbinfo import NdbinfoSample, NodeLinks
from ndbtop.model.snapshot import ClusterSnapshot


def node(node_id: int, kind: str, status: str) -> NodeStatus:
    return NodeStatus(node_id=node_id, type=kind, status=status)


NODES = (
    node(1, "NDB", "STARTED"),
    node(2, "NDB", "STARTED"),
    node(3, "NDB", "NOT_STARTED"),
    node(4, "NDB", "STARTED"),
    node(50, "MGM", "CONNECTED"),
    node(60, "API", "CONNECTED"),
    node(61, "API", "NO_CONTACT"),
    node(62, "API", "NO_CONTACT"),
)


def snapshot(*links: NodeLinks, rates: tuple[LinkRate, ...] = ()) -> ClusterSnapshot:
    sample = NdbinfoSample(taken_at=100.0, ndb_version=None, links=links,
                           read_at=(("links", 88.0),))
    return ClusterSnapshot(taken_at=1.0, wall=0.0, interval=1.0, sources=(), nodes=NODES,
                           ndbinfo=sample, link_rates=rates)


def test_links_are_counted_per_kind_of_node_at_the_other_end() -> None:
    snap = snapshot(NodeLinks(1, 7, 7, 10, 20, down=(3, 61, 62)),
                    rates=(LinkRate(1, 1000.0, None, 29.0),))
    state = node_link_state(snap, 1)
    assert state is not None
    assert state.counts == (LinkCount("NDB", 2, 3), LinkCount("MGM", 1, 1),
                            LinkCount("API", 1, 3))
    # node 3 is not started and 61, 62 are free API slots: nothing is wrong
    assert state.unexpected_down == () and not state.troubled
    assert (state.sent_per_s, state.received_per_s, state.rate_over_s) == (1000.0, None, 29.0)
    assert troubled_links(snap) == ()


def test_a_link_down_to_a_started_node_or_overloaded_is_trouble() -> None:
    snap = snapshot(
        NodeLinks(1, 7, 7, 10, 20, down=(2, 60), overloaded=(4,)),
        NodeLinks(2, 7, 7, 10, 20, down=(1,), slowdown=(4,)),
        NodeLinks(4, 7, 7, 10, 20),
    )
    one, two = troubled_links(snap)
    assert (one.node_id, one.unexpected_down, one.overloaded) == (1, (2, 60), (4,))
    assert (two.node_id, two.unexpected_down, two.slowdown) == (2, (1,), (4,))
    assert node_link_state(snap, 4) is not None and node_link_state(snap, 3) is None


def test_without_ndbinfo_there_are_no_link_states() -> None:
    snap = ClusterSnapshot(taken_at=1.0, wall=0.0, interval=1.0, sources=(), nodes=NODES)
    assert node_link_state(snap, 1) is None and troubled_links(snap) == ()


@pytest.mark.parametrize(
    ("ids", "text"),
    [((), ""), ((7,), "7"), ((3, 5, 6, 7, 8, 12), "3, 5-8, 12"), ((2, 1, 2), "1-2")],
)
def test_node_ids_shown_with_ranges(ids: tuple[int, ...], text: str) -> None:
    assert id_ranges(ids) == text
