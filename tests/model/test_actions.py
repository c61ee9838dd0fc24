"""Actions: the exact commands they send, and the guards against the live state."""

from __future__ import annotations

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


def test_last_started_node_of_a_group_is_dangerous_and_refused_without_force() -> None:
    a = assess(RestartNode((2,)), nodes(n3="NO_CONTACT"))
    assert a.danger and a.confirm_text == "2"
    assert any("5028" in w and "last started node of node group 0" in w for w in a.warnings)
    forced = assess(RestartNode((2,), force=True), nodes(n3="NO_CONTACT"))
    assert any("ALL data nodes" in w for w in forced.warnings)


def test_another_node_starting_means_the_server_refuses_with_5063() -> None:
    a = assess(StopNode((4,)), nodes(n2="STARTING"))
    assert any("5063" in w for w in a.warnings)
    assert not any("5063" in w for w in assess(StopNode((4,), abort=True),
                                               nodes(n2="STARTING")).warnings)


@pytest.mark.parametrize("flag", ["initial", "abort", "force"])
def test_initial_abort_and_force_need_the_node_id_typed(flag: str) -> None:
    a = assess(RestartNode((4,), **{flag: True}), nodes())
    assert a.confirm_text == "4" and a.danger


@pytest.mark.parametrize(
    ("target", "reason"),
    [(9, "not in the cluster configuration"), (1, "not a data node"), (50, "not a data node")],
)
def test_blockers(target: int, reason: str) -> None:
    a = assess(RestartNode((target,)), nodes())
    assert not a.allowed and reason in a.blockers[0]


def test_unreachable_node_blocks_and_start_of_a_started_node_warns() -> None:
    assert not assess(StopNode((5,)), nodes(n5="NO_CONTACT")).allowed
    a = assess(StartNode(2), nodes())
    assert a.allowed and "START changes nothing" in a.warnings[0]
    assert assess(StartNode(2), nodes(n2="NOT_STARTED")).warnings == ()


def test_audit_log_appends_json_lines(tmp_path) -> None:
    log = AuditLog(tmp_path / "sub" / "audit.log")
    log.write(event="sent", command="2 RESTART")
    log.write(event="reply", command="2 RESTART", reply="Ok")
    records = log.records()
    assert [r["event"] for r in records] == ["sent", "reply"]
    assert records[1]["reply"] == "Ok" and "time" in records[0] and "user" in records[0]
    assert (tmp_path / "sub" / "audit.log").stat().st_mode & 0o777 == 0o600
