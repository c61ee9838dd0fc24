"""What the guards say about the cluster-log filter, single-user mode and a one-node
CLUSTERLOG level (mgm-protocol.md §3.2, §4.2, §4.3; server-rules.md §2)."""

from __future__ import annotations

from ndbtop.actions.admin_commands import TOGGLE, EnterSingleUser, ExitSingleUser, SetLogFilter
from ndbtop.actions.commands import SetClusterLogLevel
from ndbtop.actions.guards import assess
from ndbtop.mgm.events.catalogue import Severity
from ndbtop.mgm.status import NodeStatus

V = 525315


def cluster(data: str = "STARTED", *, single: int | None = None) -> list[NodeStatus]:
    """Data nodes 2 and 3, mgmd 1, API nodes 4 (connected), 5 (connected), 6 (free)."""
    return [
        NodeStatus(2, "NDB", data, V, V, 0, 1, 0, 1, "h2"),
        NodeStatus(3, "NDB", data, V, V, 0, 2, 0, 1, "h3"),
        NodeStatus(1, "MGM", "CONNECTED", V),
        NodeStatus(4, "API", "CONNECTED", V, is_single_user=single == 4),
        NodeStatus(5, "API", "CONNECTED", V, is_single_user=single == 5),
        NodeStatus(6, "API", "NO_CONTACT"),
    ]


def test_entering_single_user_mode_names_the_api_nodes_that_lose_access() -> None:
    a = assess(EnterSingleUser(4), cluster())
    assert a.allowed and a.danger and a.confirm_text == "4"
    assert a.warnings[0] == (
        "every API node but 4 loses access to the cluster's data: the SQL nodes and NDB API "
        "applications on API nodes 5, 6 (connected now: 5) cannot read or write NDB tables "
        "until EXIT SINGLE USER MODE")
    assert "refuses every restart (5063), even with -f or -a" in a.warnings[1]
    assert a.warnings[-1].startswith("the audit log records")


def test_single_user_mode_for_a_node_that_is_not_an_api_node_is_refused_with_5062() -> None:
    a = assess(EnterSingleUser(2), cluster())
    assert a.blockers == ("node 2 is a NDB node: the management server refuses (5062 The "
                          "specified node is not an API node.)",)
    assert assess(EnterSingleUser(9), cluster()).blockers == (
        "node 9 is not in the cluster configuration",)


def test_single_user_mode_without_a_reachable_data_node_is_refused_with_5030() -> None:
    a = assess(EnterSingleUser(4), cluster("NO_CONTACT"))
    assert not a.allowed and "(5030 No contact with database nodes)" in a.blockers[0]


def test_an_api_node_not_connected_and_a_mode_already_held_are_said() -> None:
    a = assess(EnterSingleUser(6), cluster("SINGLE USER MODE", single=5))
    assert "the cluster is already in single-user mode (API node 5 holds it)" in a.warnings
    assert "API node 6 is NO_CONTACT: no application has access now" in a.warnings


def test_exit_single_user_mode() -> None:
    assert assess(ExitSingleUser(), cluster()).warnings == (
        "the cluster is not in single-user mode: the management server answers Ok and "
        "nothing changes",)
    a = assess(ExitSingleUser(), cluster("SINGLE USER MODE", single=4))
    assert a.allowed and a.confirm_text is None
    assert a.warnings == ("every API node regains access to the cluster's data",)


def test_log_filter_off_says_the_cluster_log_stops() -> None:
    off = assess(SetLogFilter(0), cluster())
    assert off.allowed and off.confirm_text is None and not off.danger
    assert "stops writing the cluster log" in off.warnings[0]
    assert assess(SetLogFilter(1), cluster()).warnings == ()
    toggle = assess(SetLogFilter(TOGGLE, (Severity.DEBUG,)), cluster())
    assert toggle.warnings == ("TOGGLE turns each severity named over: on if it is off, off if on",)


def test_one_node_clusterlog_level_applies_to_the_whole_cluster_log() -> None:
    a = assess(SetClusterLogLevel((2,), 252, 15, all_nodes=False), cluster())
    assert a.allowed and a.confirm_text is None
    assert a.warnings == ("the management server ignores the node id: STATISTICS=15 applies "
                          "to the cluster log as a whole, for every node",)
    # ALL CLUSTERLOG keeps its plain yes/no with nothing to warn about.
    assert assess(SetClusterLogLevel((2, 3), 252, 15), cluster()).warnings == ()
