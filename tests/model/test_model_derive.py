"""Rates, hit ratios, the cluster summary and statistics: pure functions, table-driven."""

from __future__ import annotations

import pytest

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, DataNodeConfig
from ndbtop.model.derive import (
    ActivityRate,
    activity_rates,
    counter_delta,
    hit_ratio,
    hit_ratios,
    link_rates,
    rate,
)
from ndbtop.model.ndbinfo import DiskPageBuffer, NodeActivity, NodeLinks, ThreadCpu
from ndbtop.model.sources import Backoff, SourceState, SourceStatus
from ndbtop.model.summary import president_and_successor, summarize


@pytest.mark.parametrize(
    ("prev", "cur", "seconds", "expected"),
    [(100, 150, 5.0, 10.0), (100, 100, 1.0, 0.0), (150, 100, 1.0, None), (None, 5, 1.0, None),
     (1, 2, 0.0, None)],
)
def test_rate_handles_resets_and_zero_intervals(prev: int | None, cur: int, seconds: float,
                                                expected: float | None) -> None:
    assert rate(prev, cur, seconds) == expected


def test_counter_delta_never_negative() -> None:
    assert counter_delta(10, 9) is None
    assert counter_delta(10, 12) == 2.0


@pytest.mark.parametrize(
    ("direct", "wait_io", "expected"),
    [(10488, 17, 99.838), (1, 1, 50.0), (0, 0, None), (0, 5, 0.0), (273 * 93.4, 273 * 6.6, 93.4)],
)
def test_hit_ratio_formula(direct: float, wait_io: float, expected: float | None) -> None:
    value = hit_ratio(direct, wait_io)
    if expected is None:
        assert value is None
    else:
        assert value == pytest.approx(expected, abs=0.001)


def dpb(node: int, direct: int, wait_io: int) -> DiskPageBuffer:
    return DiskPageBuffer(node, direct, 0, wait_io, wait_io, 0, 0, 0)


def test_hit_ratio_since_start_and_over_the_interval() -> None:
    before = (dpb(3, 9000, 1000),)
    after = (dpb(3, 9990, 1010),)
    (h,) = hit_ratios(before, after, 10.0)
    assert h.since_start_pct == pytest.approx(100 * 9990 / 11000)
    assert h.interval_pct == pytest.approx(99.0)
    assert h.requests_per_s == pytest.approx(100.0)


def test_hit_ratio_interval_is_unknown_across_a_node_restart() -> None:
    (h,) = hit_ratios((dpb(3, 9000, 1000),), (dpb(3, 500, 50),), 10.0)
    assert h.interval_pct is None and h.since_start_pct == pytest.approx(100 * 500 / 550)


def test_hit_ratio_interval_without_requests_is_undefined_not_100() -> None:
    (h,) = hit_ratios((dpb(3, 100, 1),), (dpb(3, 100, 1),), 1.0)
    assert h.interval_pct is None


def links(sent: int, received: int, connects: int = 49, down: tuple[int, ...] = ()) -> NodeLinks:
    return NodeLinks(1, 49, connects, sent, received, down)


@pytest.mark.parametrize(
    ("before", "after", "rates"),
    [
        (links(1000, 500), links(3000, 1500), (1000.0, 500.0)),
        # a link connected again: its counters restarted
        (links(1000, 500), links(3000, 1500, connects=50), (None, None)),
        # a link went down or came up: its counters left or joined the sums
        (links(1000, 500), links(3000, 1500, down=(7,)), (None, None)),
        (links(1000, 500, down=(7,)), links(3000, 1500), (None, None)),
        (links(3000, 1500), links(1000, 1600), (None, 50.0)),
    ],
)
def test_link_rates_per_node_are_unknown_across_a_change_of_links(
    before: NodeLinks, after: NodeLinks, rates: tuple[float | None, float | None]
) -> None:
    (r,) = link_rates((before,), (after,), 2.0)
    assert (r.node_id, r.sent_per_s, r.received_per_s, r.seconds) == (1, *rates, 2.0)
    (first,) = link_rates(None, (after,), 0.0)
    assert (first.sent_per_s, first.received_per_s) == (None, None)


def test_thread_cpu_ranks_like_ndb_top() -> None:
    t = ThreadCpu(2, 3, "ldm", os_user_pct=80, os_system_pct=10, exec_pct=70, send_pct=5,
                  spin_pct=2, buffer_full_pct=0)
    assert t.cpu_pct == 90
    t = ThreadCpu(2, 3, "ldm", os_user_pct=10, os_system_pct=5, exec_pct=60, send_pct=10)
    assert t.cpu_pct == 70


def node(node_id: int, status: str, group: int | None = 0, dynamic: int = 0,
         kind: str = "NDB") -> NodeStatus:
    return NodeStatus(node_id, kind, status, 525315, 525315, 0, dynamic, group, 1, "h")


SUMMARY_NODES = [
    node(3, "STARTED", 0, 2), node(4, "NO_CONTACT", 0), node(5, "NOT_STARTED", 0),
    node(6, "STARTING", 0), node(7, "STARTED", None, 3), node(50, "CONNECTED", kind="API"),
    node(51, "NO_CONTACT", kind="API"), node(1, "CONNECTED", kind="MGM"),
]
SUMMARY_CONFIG = ClusterConfig(1, "c", 2, (), tuple(
    DataNodeConfig(i, g) for i, g in ((3, 0), (4, 0), (5, 1), (6, 1), (7, NO_NODE_GROUP))))


def test_summary_counts_groups_missing_a_node_and_groups_down() -> None:
    # The zeros get status sends for nodes not started are not their groups: 5 and 6 are in 1.
    s = summarize(SUMMARY_NODES, SUMMARY_CONFIG)
    assert (s.data_nodes, s.data_started) == (5, 2)
    assert s.groups_missing == (0, 1)
    assert s.groups_down == (1,)
    assert s.groups == (0, 1)
    assert s.unplaced == ()
    assert (s.api_slots, s.api_connected) == (2, 1)
    assert s.master == 3
    assert not s.all_started


def test_without_configuration_the_groups_of_nodes_not_started_are_unknown() -> None:
    s = summarize(SUMMARY_NODES)
    assert s.groups == (0,) and s.groups_missing == () and s.unplaced == (4, 5, 6)


def test_backoff_doubles_to_a_cap_and_resets() -> None:
    b = Backoff(first=0.5, cap=3.0)
    assert [b.next_delay() for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    b.reset()
    assert b.next_delay() == 0.5


def test_source_staleness_is_two_refresh_intervals() -> None:
    s = SourceStatus("mgm", SourceState.CONNECTED, last_ok=100.0)
    assert not s.stale(101.9, 1.0)
    assert s.stale(102.1, 1.0)
    assert SourceStatus("x", SourceState.CONNECTING).stale(5.0, 1.0)
    assert s.as_json(101.0)["age_s"] == 1.0


def test_hit_ratio_since_start_needs_enough_requests_to_mean_anything() -> None:
    # The extra PGMAN instance of a cluster without disk data reports 1 and 1.
    (h,) = hit_ratios(None, (dpb(10, 1, 1),), 1.0)
    assert h.since_start_pct is None


def test_activity_rates_between_two_readings_and_none_across_a_restart() -> None:
    before = (NodeActivity(3, 1000, 990, 10, 5000, 2000, 40, 9000),
              NodeActivity(4, 800, 800, 0, 100, 100, 0, 700))
    after = (NodeActivity(3, 1300, 1280, 20, 5900, 2600, 40, 9900),
             NodeActivity(4, 5, 5, 0, 1, 1, 0, 3),
             NodeActivity(5, 9, 9, 0, 0, 0, 0, 0))
    three, four, five = activity_rates(before, after, 10.0)
    assert three == ActivityRate(3, 30.0, 29.0, 1.0, 90.0, 60.0, 0.0, 90.0, 10.0)
    # node 4 restarted (its counters went back) and node 5 is new: no rates yet
    assert four == ActivityRate(4, None, None, None, None, None, None, None, 10.0)
    assert five.transactions_per_s is None and five.seconds == 10.0
    assert all(a.transactions_per_s is None for a in activity_rates(None, after, 0.0))


def test_any_one_activity_counter_going_back_means_no_rates() -> None:
    before = NodeActivity(3, 10, 10, 10, 10, 10, 10, 10)
    for counter in range(1, 8):
        figures = [11] * 8
        figures[0], figures[counter] = 3, 9
        (after,) = activity_rates((before,), (NodeActivity(*figures),), 1.0)
        assert after == ActivityRate(3, *(None,) * 7, 1.0), counter


def test_the_same_answer_is_summarised_once_and_a_new_one_afresh() -> None:
    nodes = (
        NodeStatus(1, "NDB", "STARTED", node_group=0, dynamic_id=2),
        NodeStatus(2, "NDB", "STARTED", node_group=0, dynamic_id=1),
    )
    first = summarize(nodes)
    assert summarize(nodes) is first
    assert summarize(list(nodes)) == first, "a list is summarised each time"
    changed = (nodes[0], NodeStatus(2, "NDB", "NOT_STARTED", node_group=0))
    after = summarize(changed)
    assert after.data_started == 1 and after.master == 1
    assert first.data_started == 2 and first.master == 2
    assert summarize(nodes) is first, "a few answers are remembered"


def test_the_master_is_named_by_succession_order_not_heartbeat_order() -> None:
    # A dynamic id holds the heartbeat order in its high 16 bits and the succession order in
    # its low ones (QmgrMain.cpp execDBINFO_SCANREQ): the master, as the membership's
    # president, is the lowest succession order.
    nodes = (
        NodeStatus(1, "NDB", "STARTED", node_group=0, dynamic_id=(1 << 16) | 3),
        NodeStatus(2, "NDB", "STARTED", node_group=0, dynamic_id=(2 << 16) | 1),
        NodeStatus(3, "NDB", "STARTED", node_group=1, dynamic_id=(3 << 16) | 2),
    )
    assert summarize(nodes).master == 2
    assert president_and_successor(nodes) == (2, 3)
