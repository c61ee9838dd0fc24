"""What ``-a``, ``-f`` and several nodes in one request really do (server-rules.md §6).

Each rule is read in the NDB source: ``Ndbcntr::execSTOP_REQ`` (NdbcntrMain.cpp) kills one
node with abort before any node-group check and refuses several nodes without abort
(UnsupportedNodeShutdown, 5031); ``MgmtSrvr::restartNodes``/``stopNodes`` (MgmtSrvr.cpp)
skip the "any node starting" 5063 check with ``-a`` or ``-f`` but not the single-user one;
``MgmApiSession::restart``/``stop`` (Services.cpp) retry 5031 with several nodes and ``-f``
as an abort, then answer a forced 5028 with ``restartDB``/``shutdownDB``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ndbtop.actions.commands import RestartNode, StopNode
from ndbtop.actions.guards import PHRASE_LOSE_CLUSTER, PHRASE_RESTART_CLUSTER, assess
from ndbtop.mgm.status import NodeStatus


def nodes(**states: str) -> list[NodeStatus]:
    """Data nodes 2 and 3 in group 0, 4 and 5 in group 1, with the given states."""
    groups = {2: 0, 3: 0, 4: 1, 5: 1}
    out = [NodeStatus(n, "NDB", states.get(f"n{n}", "STARTED"), 525315, 525315, 0, n, g, 1, "h")
           for n, g in groups.items()]
    out.append(NodeStatus(1, "MGM", "CONNECTED", 525315))
    return out


@pytest.mark.parametrize("action", [RestartNode((2,), abort=True), StopNode((2,), abort=True),
                                    RestartNode((2,), abort=True, force=True)])
def test_abort_on_the_last_started_node_of_a_group_names_the_loss_of_the_cluster(
    action: RestartNode | StopNode,
) -> None:
    """execSTOP_REQ: ``if (!singleuser && (startLevel < SL_STARTED || (abort && !stopnodes)))``
    sends STOP_ORD/START_ORD at once: no 5028, the group is lost (exit 6302)."""
    a = assess(action, nodes(n3="NO_CONTACT"))
    assert a.allowed and a.danger and a.as_abort
    assert a.consequence == (
        "node 2 is killed at once; node group 0 loses its last node and every data node "
        "shuts down"
    )
    assert a.confirm_text == PHRASE_LOSE_CLUSTER
    assert not any("5028" in w or "refuses (" in w for w in a.warnings)


def test_abort_on_a_node_whose_partner_is_started_is_a_plain_abort() -> None:
    a = assess(RestartNode((2,), abort=True), nodes())
    assert a.allowed and a.consequence is None and a.confirm_text == "2"
    assert a.warnings == ("-a stops the node immediately, without a graceful shutdown: its "
                          "transactions are aborted, not drained",)


@pytest.mark.parametrize("flags", [{"abort": True}, {"force": True}])
def test_no_5063_is_claimed_with_abort_or_force(flags: dict[str, bool]) -> None:
    """MgmtSrvr::restartNodes: ``if (force || abort) ; // Skip node state checks``."""
    for action in (RestartNode((4,), **flags), StopNode((4,), **flags)):
        a = assess(action, nodes(n2="STARTING"))
        assert not any("5063" in text for text in (*a.warnings, *a.blockers))
        # One node with -a is sent at once; -f alone goes on to the DIH master (5026).
        assert a.allowed is bool(flags.get("abort"))


@pytest.mark.parametrize("action", [RestartNode((4,), force=True), StopNode((4,), force=True),
                                    StopNode((4, 5), abort=True),
                                    RestartNode((4, 5), force=True)])
def test_5026_while_another_node_starts_unless_one_node_with_abort(action: object) -> None:
    """NdbcntrMain.cpp execSTOP_REQ: a request that is not ``abort && !stopnodes`` meets
    ``!c_start.m_starting.isclear()`` at the master: StopRef::NodeShutdownInProgress, 5026
    "Node shutdown in progress" (server-rules.md §6); -f does not turn it into restartDB."""
    a = assess(action, nodes(n2="STARTING"))  # type: ignore[arg-type]
    assert not a.allowed and a.consequence is None
    assert a.blockers[0].startswith("5026-Node shutdown in progress — data node 2 is STARTING")
    assert assess(RestartNode((4,), abort=True), nodes(n2="STARTING")).allowed


@pytest.mark.parametrize("action", [StopNode((4,)), RestartNode((4,), nostart=True)])
def test_stopping_one_node_of_a_two_node_group_says_the_group_runs_on_one(
        action: object) -> None:
    a = assess(action, nodes())  # type: ignore[arg-type]
    assert a.allowed
    # RESTART -n leaves node 4 NOT_STARTED for START; STOP ends its process
    # (CommandInterpreter.cpp: START is for a node started with -n).
    how = ("ndbmtd on its host: START reaches only a NOT_STARTED node"
           if isinstance(action, StopNode) else "4 START")
    assert (f"node group 1 runs on node 5 alone until node 4 is started again ({how}): if "
            "node 5 fails meanwhile, every data node shuts down") in a.warnings
    # A stop leaves the node down until someone starts it: its id is typed.
    if isinstance(action, StopNode):
        assert a.confirm_text == "4"
    # A restart that starts the node again by itself says nothing of the kind.
    assert not any("alone" in w for w in assess(RestartNode((4,)), nodes()).warnings)


def test_single_user_mode_still_refuses_an_abort_restart_with_5063() -> None:
    """MgmtSrvr::restartNodes checks is_cluster_single_user() before -a/-f."""
    single = [replace(n, status="SINGLE USER MODE") if n.type == "NDB" else n for n in nodes()]
    a = assess(RestartNode((2,), abort=True, force=True), single)
    assert a.blockers and a.blockers[0].startswith("5063-")


@pytest.mark.parametrize("cls", [RestartNode, StopNode])
def test_several_nodes_without_abort_are_refused_with_5031(cls: type) -> None:
    """execSTOP_REQ: ``if (stopnodes && !abort)`` answers UnsupportedNodeShutdown."""
    a = assess(cls((2, 4)), nodes())
    assert not a.allowed
    assert a.blockers[0].startswith(
        "5031-Unsupported multi node shutdown. Abort option required. — the data nodes "
        "refuse a graceful"
    )


def test_the_advice_after_5031_is_the_verbs_own() -> None:
    # A restart waits for each node to be STARTED again before the next; a stop does not,
    # but stopping every started node of a group is refused at the last of them (5028).
    restart = assess(RestartNode((2, 4)), nodes()).blockers[0]
    assert "restart them one at a time, each after the one before is STARTED again" in restart
    stop = assess(StopNode((2, 4)), nodes()).blockers[0]
    assert "STARTED" not in stop
    assert "stop them one at a time: 2 STOP, then 4 STOP (with -a all of nodes 2 4 are " \
        "killed at once)" in stop
    same_group = assess(StopNode((2, 3)), nodes()).blockers[0]
    assert "stop them one at a time: 2 STOP, then 3 STOP; nodes 2 and 3 are all the started " \
        "nodes of node group 0: the last of them would be refused (5028-" in same_group


def test_5063_comes_before_5031_as_in_restartNodes() -> None:
    a = assess(RestartNode((2, 4)), nodes(n5="STARTING"))
    assert a.blockers[0].startswith("5063-")


def test_several_nodes_with_force_are_retried_as_an_abort() -> None:
    """MgmApiSession::restart: 5031 with ``nodes.size() > 1 && force`` → ``abort = 1``."""
    a = assess(RestartNode((2, 4), force=True), nodes())
    assert a.allowed and a.as_abort and a.danger and a.consequence is None
    assert any("retries it as an abort restart (-a)" in w and "5031-" in w for w in a.warnings)
    assert "nodes 2 4 are killed at once, together: their transactions are aborted, not " \
        "drained" in a.warnings
    assert a.confirm_text == "2 4"


def test_several_nodes_with_abort_are_killed_together() -> None:
    a = assess(StopNode((2, 4), abort=True), nodes())
    assert a.allowed and a.as_abort and a.confirm_text == "2 4"
    assert a.warnings[-1] == ("nodes 2 4 are killed at once, together: their transactions "
                              "are aborted, not drained")
    assert [w.split(" runs on")[0] for w in a.warnings[:-1]] == ["node group 0", "node group 1"]


def test_several_nodes_with_abort_taking_a_whole_group_are_refused_with_5028() -> None:
    """With several nodes execSTOP_REQ runs checkNodeFail on the master even with abort."""
    a = assess(RestartNode((2, 3), abort=True), nodes())
    assert not a.allowed
    # server-rules.md §3: 5028 is the group left with no started node; the pair is the group.
    assert a.blockers[0] == (
        "5028-Node shutdown would cause system crash — nodes 2 and 3 are all the "
        "started nodes of node group 0: the data nodes refuse to restart them (with -f the "
        "management server would restart every data node instead)")


def test_several_nodes_forced_past_5028_restart_the_whole_cluster() -> None:
    """Services.cpp: after the abort retry, a forced 5028 calls restartDB."""
    a = assess(RestartNode((2, 3), force=True), nodes())
    assert a.allowed and a.confirm_text == PHRASE_RESTART_CLUSTER
    assert a.consequence is not None and a.consequence.startswith("the whole cluster restarts")
    assert any(w.startswith("nodes 2 and 3 are all the started nodes of node group 0: with -f "
                            "the management server does not restart them alone: ")
               for w in a.warnings)
