"""``N RESTART`` and ``N STOP`` of a management node, as ndb_mgm sends them and the server
carries them out (MgmtSrvr.cpp ``sendSTOP_REQ``: management nodes are taken, the server's
own node stops itself after its reply, ``*stopSelf``; another one is asked through
``sendStopMgmd``; ``stopNodes``/``restartNodes`` refuse with 5063 while a data node starts
unless ``-f`` or ``-a``)."""

from __future__ import annotations

from ndbtop.actions.commands import RestartNode, StopNode
from ndbtop.actions.guards import assess
from ndbtop.actions.mgm_node_guards import PHRASE_LAST_MGMD, connected_mgmd
from ndbtop.mgm.status import NodeStatus


def nodes(*mgm: tuple[int, str, str], starting: bool = False) -> list[NodeStatus]:
    """Data nodes 2 and 3 (group 0), and management nodes (id, status, address)."""
    out = [NodeStatus(n, "NDB", "STARTING" if starting and n == 3 else "STARTED", 525315,
                      525315, 0, n, 0, 1, f"10.0.0.{n}") for n in (2, 3)]
    out += [NodeStatus(i, "MGM", s, 525315, address=a) for i, s, a in mgm]
    return out


TWO = (("1", "CONNECTED", "10.0.0.1"), ("49", "CONNECTED", "10.0.0.49"))


def two() -> list[NodeStatus]:
    return nodes((1, "CONNECTED", "10.0.0.1"), (49, "CONNECTED", "10.0.0.49"))


def test_a_management_node_restart_is_accepted_not_refused_as_no_data_node() -> None:
    a = assess(RestartNode((49,)), two(), address="10.0.0.1:1186")
    assert a.allowed and a.danger and a.confirm_text == "49"
    assert not any("not a data node" in b for b in a.blockers)
    assert not any("last management server" in w for w in a.warnings)


def test_the_one_ndbtop_is_connected_to_says_it_closes_this_connection() -> None:
    a = assess(StopNode((1,)), two(), address="10.0.0.1:1186")
    assert a.allowed and a.confirm_text == "1"
    (w,) = a.warnings
    assert w.startswith("node 1 is the management server ndbtop is connected to: it stops "
                        "itself after replying (disconnect: 1)")
    assert "goes on through node 49" in w
    assert connected_mgmd(two(), "10.0.0.49:1186") == 49
    assert connected_mgmd(two(), "mgm.example:1186") is None
    # Its own answer to "get mgmd nodeid" decides, whatever the address; with one management
    # server running, it is that one.
    assert connected_mgmd(two(), "mgm.example:1186", mgmd=49) == 49
    alone = nodes((1, "NO_CONTACT", ""), (49, "CONNECTED", "10.0.0.49"))
    assert connected_mgmd(alone, "mgm.example:1186") == 49


def test_the_last_management_server_wants_a_phrase_to_stop() -> None:
    alone = nodes((1, "CONNECTED", "10.0.0.1"), (49, "NO_CONTACT", ""))
    a = assess(StopNode((1,)), alone, address="10.0.0.1:1186")
    assert a.allowed and a.confirm_text == PHRASE_LAST_MGMD
    assert a.warnings[0].startswith("node 1 is the last management server running")
    restart = assess(RestartNode((1,)), alone, address="10.0.0.1:1186")
    assert restart.confirm_text == "1" and "until it is back" in restart.warnings[0]
    # One that is not connected cannot be reached (sendStopMgmd: 5005).
    down = assess(StopNode((49,)), alone)
    assert not down.allowed and "5005" in down.blockers[0]


def test_5063_while_a_data_node_starts_unless_forced() -> None:
    starting = nodes((1, "CONNECTED", "10.0.0.1"), (49, "CONNECTED", "10.0.0.49"),
                     starting=True)
    a = assess(StopNode((49,)), starting)
    assert not a.allowed and a.blockers[0].startswith("5063-")
    assert assess(StopNode((49,), force=True), starting).allowed


def test_management_and_data_nodes_in_one_request_are_refused() -> None:
    a = assess(StopNode((2, 49)), two())
    assert not a.allowed and "separate requests" in a.blockers[0]
