"""Actions: the exact commands they send, and the guards against the live state."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import (
    RestartNode,
    SetClusterLogLevel,
    StartNode,
    StopNode,
    wire_text,
)
from ndbtop.actions.guards import assess
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, DataNodeConfig, NodeConfig

CONFIG = ClusterConfig(
    generation=3,
    name="c",
    no_of_replicas=2,
    nodes=tuple(NodeConfig(n, "NDB") for n in (2, 3, 4, 5)),
    data_nodes=tuple(DataNodeConfig(n, g) for n, g in ((2, 0), (3, 0), (4, 1), (5, 1))),
)


def nodes(**states: str) -> list[NodeStatus]:
    """Data nodes 2 and 3 in group 0, 4 and 5 in group 1, with the given states."""
    groups = {2: 0, 3: 0, 4: 1, 5: 1}
    out = [NodeStatus(n, "NDB", states.get(f"n{n}", "STARTED"), 525315, 525315, 0, n, g, 1, "h")
           for n, g in groups.items()]
    out.append(NodeStatus(1, "MGM", "CONNECTED", 525315))
    out.append(NodeStatus(50, "API", "CONNECTED", 525315))
    return out


@pytest.mark.parametrize(
    ("action", "ndb_mgm"),
    [
        (RestartNode((2,)), "2 RESTART"),
        (RestartNode((2,), initial=True, nostart=True, abort=True, force=True),
         "2 RESTART -i -n -a -f"),
        (RestartNode((2, 3), nostart=True), "2 3 RESTART -n"),
        (StopNode((4,), abort=True), "4 STOP -a"),
        (StartNode(5), "5 START"),
        (SetClusterLogLevel((2, 3), 252, 15), "ALL CLUSTERLOG STATISTICS=15"),
    ],
)
def test_ndb_mgm_form(action: object, ndb_mgm: str) -> None:
    assert action.ndb_mgm() == ndb_mgm  # type: ignore[attr-defined]


def test_wire_text_is_exactly_what_is_sent() -> None:
    assert wire_text(RestartNode((3,), nostart=True)) == (
        "restart node v2\nnode: 3\nabort: 0\ninitialstart: 0\nnostart: 1\nforce: 0\n\n"
    )
    assert wire_text(StartNode(3)) == "start\nnode: 3\n\n"
    assert wire_text(SetClusterLogLevel((2, 3), 252, 15)) == (
        "set cluster loglevel\nnode: 2\ncategory: 252\nlevel: 15\n\n"
        "set cluster loglevel\nnode: 3\ncategory: 252\nlevel: 15\n\n"
    )


def test_restarting_one_node_of_a_complete_group_needs_no_typed_confirmation() -> None:
    a = assess(RestartNode((2,)), nodes())
    assert a.allowed and not a.danger and a.confirm_text is None


def test_last_started_node_of_a_group_is_refused_with_5028_without_force() -> None:
    a = assess(RestartNode((2,)), nodes(n3="NO_CONTACT"))
    assert not a.allowed and a.danger
    assert a.blockers[0].startswith(
        "5028-Node shutdown would cause system crash — node 2 is the last started node of "
        "node group 0"
    )
    forced = assess(RestartNode((2,), force=True), nodes(n3="NO_CONTACT"))
    assert forced.consequence is not None
    # MgmApiSession::restart calls restartDB on a forced 5028: every data node is stopped
    # to NOT_STARTED, then started again unless nostart (server-rules.md §3, MgmtSrvr.cpp).
    assert forced.consequence == (
        "the whole cluster restarts: every data node (2 4 5) stops, then all start again "
        "together (a system restart, not a node restart): the cluster is down until it has "
        "started")
    assert forced.confirm_text == "restart the whole cluster"
    held = assess(RestartNode((2,), force=True, nostart=True), nodes(n3="NO_CONTACT"))
    assert held.consequence == (
        "the whole cluster restarts: every data node (2 4 5) stops and stays NOT_STARTED "
        "(-n): the cluster is down until they are started (a system restart follows)")


def test_another_node_starting_means_the_server_refuses_with_5063() -> None:
    a = assess(StopNode((4,)), nodes(n2="STARTING"))
    assert not a.allowed
    assert a.blockers[0].startswith(
        "5063-Operation not allowed while nodes are starting or stopping. — data node 2 is STARTING"
    )
    assert assess(StopNode((4,), abort=True), nodes(n2="STARTING")).allowed
    # -f skips MgmtSrvr's 5063, and the DIH master answers 5026 (execSTOP_REQ).
    forced = assess(RestartNode((4,), force=True), nodes(n2="STARTING"))
    assert forced.blockers[0].startswith("5026-")


def test_5063_counts_the_target_itself_and_not_nodes_shutting_down() -> None:
    own = assess(RestartNode((2,)), nodes(n2="STARTING"))
    assert not own.allowed and "data node 2 is STARTING" in own.blockers[0]
    assert assess(RestartNode((4,)), nodes(n2="SHUTTING_DOWN")).allowed


def test_single_user_mode_refuses_every_restart_even_forced() -> None:
    single = [
        replace(n, status="SINGLE USER MODE") if n.type == "NDB" else n for n in nodes()
    ]
    single = [replace(n, is_single_user=True) if n.node_id == 50 else n for n in single]
    for action in (RestartNode((2,)), RestartNode((2,), force=True),
                   RestartNode((2,), abort=True)):
        a = assess(action, single)
        assert not a.allowed
        assert a.blockers[0] == (
            "5063-Operation not allowed while nodes are starting or stopping. — the cluster is "
            "in single-user mode (API node 50 holds it): the management server refuses every "
            "restart, even with -f or -a; leave it with EXIT SINGLE USER MODE"
        )
    # MgmtSrvr::stopNodes has no single-user check.
    assert assess(StopNode((2,)), single).allowed


def test_initial_forced_restart_of_the_last_node_deletes_all_data() -> None:
    a = assess(RestartNode((2,), initial=True, force=True), nodes(n3="NO_CONTACT"))
    assert a.danger and a.allowed
    assert a.consequence == (
        "the whole cluster restarts initial: every data node (2 4 5) starts from an empty "
        "file system and all data in the cluster is deleted"
    )
    assert a.confirm_text == "delete all data"
    assert any("with -f the management server does not restart it alone" in w
               for w in a.warnings)


def test_stop_forced_on_the_last_node_stops_the_cluster() -> None:
    a = assess(StopNode((2,), force=True), nodes(n3="NO_CONTACT"))
    assert a.consequence == "the whole cluster shuts down: every data node (2 4 5) stops"
    assert a.confirm_text == "stop the whole cluster"


def test_node_groups_come_from_the_configuration_not_from_absent_nodes() -> None:
    # A NO_CONTACT node reports node_group 0 (its fields are zeros); configured in
    # group 1 it leaves node 4 the last started node of group 1, and node 2 is not.
    live = nodes(n5="NO_CONTACT")
    live = [replace(n, node_group=0) if n.node_id == 5 else n for n in live]
    a = assess(RestartNode((2,)), live, CONFIG)
    assert not a.danger and a.confirm_text is None
    b = assess(RestartNode((4,)), live, CONFIG)
    assert b.danger and "last started node of node group 1" in b.blockers[0]


def test_unknown_is_a_connected_node_in_an_unmapped_state() -> None:
    a = assess(RestartNode((4,)), nodes(n4="UNKNOWN"))
    assert a.allowed
    assert "connected but in a state the management server does not map" in a.warnings[0]


@pytest.mark.parametrize("flag", ["initial", "abort", "force"])
def test_initial_abort_and_force_need_the_node_id_typed(flag: str) -> None:
    a = assess(RestartNode((4,), **{flag: True}), nodes())
    assert a.confirm_text == "4" and a.danger


@pytest.mark.parametrize(
    ("target", "reason"),
    [(9, "not in the cluster configuration"), (50, "not a data node")],
)
def test_blockers(target: int, reason: str) -> None:
    a = assess(RestartNode((target,)), nodes())
    assert not a.allowed and reason in a.blockers[0]
    # A management node (1) is taken, as MgmtSrvr::sendSTOP_REQ takes it.
    assert assess(RestartNode((1,)), nodes()).allowed


def test_unreachable_node_blocks_and_start_of_a_started_node_warns() -> None:
    assert not assess(StopNode((5,)), nodes(n5="NO_CONTACT")).allowed
    a = assess(StartNode(2), nodes())
    assert a.allowed and "START changes nothing" in a.warnings[0]
    assert assess(StartNode(2), nodes(n2="NOT_STARTED")).warnings == ()


def test_audit_log_appends_json_lines(tmp_path) -> None:
    log = AuditLog(tmp_path / "audit.log")
    log.write(event="sent", command="2 RESTART")
    log.write(event="reply", command="2 RESTART", reply="Ok")
    records = log.records()
    assert [r["event"] for r in records] == ["sent", "reply"]
    assert records[1]["reply"] == "Ok" and "time" in records[0] and "user" in records[0]
    assert (tmp_path / "audit.log").stat().st_mode & 0o777 == 0o600
