"""The simulated ndb_mgmd refuses and waits as MgmtSrvr.cpp and Services.cpp do
(server-rules.md §2, §3): exact reply bytes, written from the reference."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]
Raw = Callable[[int], Awaitable[Any]]

CLIENTVERSION = (b"set clientversion\nmajor: 8\nminor: 4\nbuild: 3\n\n",
                 b"set clientversion reply\nresult: Ok\n\n")


def restart(node: str, *, force: int = 0, abort: int = 0, initial: int = 0) -> bytes:
    return (f"restart node v2\nnode: {node}\nabort: {abort}\ninitialstart: {initial}\n"
            f"nostart: 0\nforce: {force}\n\n").encode()


REFUSED_5063 = (
    b"restart reply\nresult: 5063-Operation not allowed while nodes are starting or "
    b"stopping.: Permanent error: Application error\nrestarted: 0\ndisconnect: 0\n\n"
)


def four_node_cluster() -> SimCluster:
    """Data nodes 2, 3 (group 0) and 4, 5 (group 1) started; mgmd 1; API 6 connected."""
    config = simple_config(
        "four",
        ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1)),
        mgm=((1, "10.0.0.1"),),
        api=((6, "10.0.0.6"), (7, None)),
        max_exec_threads=4,
        connected_api=(6,),
        fragment_log_file_size_mb=16,
        no_of_fragment_log_files=4,
    )
    cluster = SimCluster(config)
    cluster.boot_started()
    return cluster


async def test_restart_of_the_starting_node_itself_is_refused_with_5063(
    start_sim: StartSim, manual_time: Any, raw: Raw, advance: Any
) -> None:
    sim = await start_sim(four_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    sim.cluster.restart_nodes((3,))
    await advance(sim, manual_time, lambda: nodes[3].state == "STARTING")
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(restart("3"), REFUSED_5063)
    await conn.in_sync()


async def test_a_node_shutting_down_does_not_block_a_restart(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    sim = await start_sim(four_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    sim.cluster.stuck_stops[3] = "stopping"
    sim.cluster.stop_nodes((3,))
    assert nodes[3].state == "SHUTTING_DOWN"
    conn = await raw(sim.mgm_ports[1])
    await conn.send(restart("4"))
    await until(lambda: nodes[4].state == "SHUTTING_DOWN", what="node 4 stopping")
    manual_time.advance(3.0)
    await conn.expect(b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n")


async def test_single_user_mode_refuses_restarts_even_forced_and_is_reported(
    start_sim: StartSim, manual_time: Any, raw: Raw
) -> None:
    sim = await start_sim(four_node_cluster(), time=manual_time)
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(*CLIENTVERSION)
    await conn.exchange(b"enter single user\nnodeId: 6\n\n",
                        b"enter single user reply\nresult: Ok\n\n")
    await conn.exchange(restart("2"), REFUSED_5063)
    await conn.exchange(restart("2", force=1), REFUSED_5063)
    await conn.exchange(restart("2", abort=1), REFUSED_5063)
    await conn.send(b"get status\ntypes: NDB API\n\n")
    status = (await conn.read_until(b"\n\n")).decode()
    assert "node.2.status: SINGLE USER MODE\n" in status
    # The data nodes report the API node that holds the mode; they themselves are not it.
    assert "node.2.is_single_user: 0\n" in status
    assert "node.6.is_single_user: 1\n" in status
    assert "node.7.is_single_user: 0\n" in status
    await conn.exchange(b"exit single user\n\n", b"exit single user reply\nresult: Ok\n\n")
    await conn.send(b"get status\ntypes: NDB API\n\n")
    status = (await conn.read_until(b"\n\n")).decode()
    assert "node.2.status: STARTED\n" in status and "node.6.is_single_user: 0\n" in status


async def test_forced_restart_of_the_last_node_of_a_group_restarts_every_data_node(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    cluster = four_node_cluster()
    sim = await start_sim(cluster, time=manual_time)
    nodes = sim.cluster.data_nodes
    conn = await raw(sim.mgm_ports[1])
    await conn.send(b"stop v2\nnode: 3\nabort: 0\nforce: 0\n\n")
    await until(lambda: nodes[3].state == "SHUTTING_DOWN", what="node 3 stopping")
    manual_time.advance(3.0)
    await conn.expect(b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")
    await conn.exchange(
        restart("2"),
        b"restart reply\nresult: 5028-Node shutdown would cause system crash: Permanent "
        b"error: Application error\nrestarted: 0\ndisconnect: 0\n\n",
    )
    await conn.send(restart("2", force=1, initial=1))
    await until(lambda: nodes[5].state == "SHUTTING_DOWN", what="restartDB")
    assert {nodes[n].state for n in (2, 4, 5)} == {"SHUTTING_DOWN"}
    manual_time.advance(3.0)
    await conn.expect(b"restart reply\nresult: Ok\nrestarted: 3\ndisconnect: 0\n\n")
    assert all(not nodes[n].has_filesystem for n in (2, 4, 5))


async def test_a_node_that_does_not_leave_started_gives_5024(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    sim = await start_sim(four_node_cluster(), time=manual_time)
    sim.cluster.stuck_stops[4] = "started"
    conn = await raw(sim.mgm_ports[1])
    before = sim.mgmds[1].requests
    await conn.send(restart("4"))
    await until(lambda: sim.mgmds[1].requests > before, what="the request")
    manual_time.advance(12.5)
    await conn.expect(
        b"restart reply\nresult: 5024-Time-out due to node shutdown not starting in time: "
        b"Temporary error: Timeout expired\nrestarted: 1\ndisconnect: 0\n\n"
    )


async def test_a_node_that_does_not_reach_not_started_gives_5025(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    sim = await start_sim(four_node_cluster(), time=manual_time)
    sim.cluster.stuck_stops[4] = "stopping"
    conn = await raw(sim.mgm_ports[1])
    await conn.send(restart("4"))
    await until(lambda: sim.cluster.data_nodes[4].state == "SHUTTING_DOWN", what="stopping")
    manual_time.advance(121.0)
    await conn.expect(
        b"restart reply\nresult: 5025-Time-out due to node shutdown not completing in time: "
        b"Temporary error: Timeout expired\nrestarted: 1\ndisconnect: 0\n\n"
    )


async def test_restart_all_prints_its_error_with_the_code(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    """``MgmApiSession::restartAll`` prints ``result: <code>-<text>`` as ``restart`` does
    (server-rules.md §6; mgm-protocol.md §3.1)."""
    sim = await start_sim(four_node_cluster(), time=manual_time)
    sim.cluster.stuck_stops[5] = "started"
    conn = await raw(sim.mgm_ports[1])
    before = sim.mgmds[1].requests
    await conn.send(b"restart all\ninitialstart: 0\nnostart: 0\nabort: 0\n\n")
    await until(lambda: sim.mgmds[1].requests > before, what="the request")
    manual_time.advance(12.5)
    await conn.expect(
        b"restart reply\nresult: 5024-Time-out due to node shutdown not starting in time: "
        b"Temporary error: Timeout expired\nrestarted: 4\n\n"
    )


def stop(node: str, *, force: int = 0, abort: int = 0) -> bytes:
    return f"stop v2\nnode: {node}\nabort: {abort}\nforce: {force}\n\n".encode()


REFUSED_5031 = (
    b"restart reply\nresult: 5031-Unsupported multi node shutdown. Abort option required.: "
    b"Permanent error: Application error\nrestarted: 0\ndisconnect: 0\n\n"
)


async def test_several_nodes_without_abort_are_refused_with_5031(
    start_sim: StartSim, manual_time: Any, raw: Raw
) -> None:
    """server-rules.md §6: sendSTOP_REQ sets StopReq::setStopNodes for more than one node
    and Ndbcntr::execSTOP_REQ answers UnsupportedNodeShutdown unless abort is set; the
    restart reply carries the code, the stop reply the text alone (mgm-protocol.md §3.1)."""
    sim = await start_sim(four_node_cluster(), time=manual_time)
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(restart("2 4"), REFUSED_5031)
    await conn.exchange(
        stop("2 4"),
        b"stop reply\nresult: Unsupported multi node shutdown. Abort option required.: "
        b"Permanent error: Application error\nstopped: 0\ndisconnect: 0\n\n",
    )
    assert {n.state for n in sim.cluster.data_nodes.values()} == {"STARTED"}


async def test_several_nodes_forced_are_retried_as_an_abort(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    """MgmApiSession::restart (Services.cpp): 5031 with several nodes and force is retried
    once with ``abort = 1``: both nodes are killed at once, with no graceful stop levels."""
    sim = await start_sim(four_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    conn = await raw(sim.mgm_ports[1])
    await conn.send(restart("2 4", force=1))
    await until(lambda: nodes[2].state != "STARTED" and nodes[4].state != "STARTED",
                what="nodes 2 and 4 killed")
    manual_time.advance(0.1)
    await conn.expect(b"restart reply\nresult: Ok\nrestarted: 2\ndisconnect: 0\n\n")
    # Node groups 0 and 1 each kept a started node: nothing else went down.
    assert (nodes[3].state, nodes[5].state) == ("STARTED", "STARTED")
    assert (nodes[2].state, nodes[4].state) == ("STARTING", "STARTING")


async def test_abort_of_the_last_started_node_of_a_group_takes_the_cluster_down(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    """Ndbcntr::execSTOP_REQ: ``abort && !stopnodes`` sends START_ORD at once, before any
    node-group check (no 5028): node group 0 is lost and every other data node shuts down
    with exit 6302 "All nodes in a node group are unavailable" (server-rules.md §6)."""
    cluster = four_node_cluster()
    sim = await start_sim(cluster, time=manual_time)
    nodes = sim.cluster.data_nodes
    conn = await raw(sim.mgm_ports[1])
    await conn.send(stop("3"))
    await until(lambda: nodes[3].state == "SHUTTING_DOWN", what="node 3 stopping")
    manual_time.advance(3.0)
    await conn.expect(b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")
    await conn.send(stop("2", abort=1))
    await conn.expect(b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")
    manual_time.advance(0.5)
    sim.sync()
    assert {n.state for n in nodes.values()} == {"NO_CONTACT"}
    forced = {e.source: e.words for e in cluster.bus.history if e.type == 59}
    # NDBStopForced: action, signum, error, sphase, extra.
    assert forced == {4: (0, 0, 6302, 255, 0), 5: (0, 0, 6302, 255, 0)}


@pytest.mark.parametrize(("slow", "wait", "reply"), [
    ((20.0, 0.0), 12.5,
     b"restart reply\nresult: 5024-Time-out due to node shutdown not starting in time: "
     b"Temporary error: Timeout expired\nrestarted: 1\ndisconnect: 0\n\n"),
    ((0.0, 200.0), 121.0,
     b"restart reply\nresult: 5025-Time-out due to node shutdown not completing in time: "
     b"Temporary error: Timeout expired\nrestarted: 1\ndisconnect: 0\n\n"),
    # One step past the 120 s wait and the node's stop (a busy machine syncs late): the
    # wait is judged at its own simulated end, when the node had not stopped.
    ((0.0, 200.0), 300.0,
     b"restart reply\nresult: 5025-Time-out due to node shutdown not completing in time: "
     b"Temporary error: Timeout expired\nrestarted: 1\ndisconnect: 0\n\n"),
], ids=["5024", "5025", "5025-one-step"])
async def test_after_a_failed_wait_the_node_is_left_not_started(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any, advance: Any,
    slow: tuple[float, float], wait: float, reply: bytes,
) -> None:
    """MgmtSrvr::restartNodes returns 5024/5025 before it sends START_ORD (server-rules.md
    §6): a node that stops late reaches NOT_STARTED and stays there until ``N START``."""
    sim = await start_sim(four_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    sim.cluster.slow_stops[4] = slow
    conn = await raw(sim.mgm_ports[1])
    before = sim.mgmds[1].requests
    await conn.send(restart("4"))
    await until(lambda: sim.mgmds[1].requests > before, what="the request")
    manual_time.advance(wait)
    await conn.expect(reply)
    await advance(sim, manual_time, lambda: nodes[4].state == "NOT_STARTED", step=5.0)
    manual_time.advance(600.0)
    sim.sync()
    assert nodes[4].state == "NOT_STARTED"
    await conn.exchange(b"start\nnode: 4\n\n", b"start reply\nresult: Ok\n\n")
    assert nodes[4].state == "STARTING"


async def test_abort_restart_of_the_last_started_node_leaves_it_waiting_for_its_cluster(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any, advance: Any
) -> None:
    """``2 RESTART -a`` with node 3 down: execSTOP_REQ sends START_ORD at once (no 5028),
    node group 0 is lost and nodes 4 and 5 shut down (6302). The restarted node begins a
    system restart that needs a node of every node group: it waits in its start until the
    others are started again, then the cluster starts together (server-rules.md §6)."""
    cluster = four_node_cluster()
    sim = await start_sim(cluster, time=manual_time)
    nodes = sim.cluster.data_nodes
    conn = await raw(sim.mgm_ports[1])
    await conn.send(stop("3"))
    await until(lambda: nodes[3].state == "SHUTTING_DOWN", what="node 3 stopping")
    manual_time.advance(3.0)
    await conn.expect(b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")
    await conn.send(restart("2", abort=1))
    await conn.expect(b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n")
    manual_time.advance(600.0)
    sim.sync()
    assert {n: nodes[n].state for n in (3, 4, 5)} == dict.fromkeys((3, 4, 5), "NO_CONTACT")
    assert (nodes[2].state, nodes[2].start_phase) == ("STARTING", 0)
    sim.cluster.launch((3, 4, 5))
    await advance(sim, manual_time, lambda: all(n.state == "STARTED" for n in nodes.values()),
                  step=5.0)
    assert {n.start_type for n in nodes.values()} == {1}  # a system restart, together


async def test_a_forced_request_while_another_node_starts_gets_5026(
    start_sim: StartSim, manual_time: Any, raw: Raw, advance: Any
) -> None:
    """server-rules.md §6: -f skips MgmtSrvr's 5063, and Ndbcntr::execSTOP_REQ at the master
    answers a request that is not ``abort && !stopnodes`` with NodeShutdownInProgress while
    ``c_start.m_starting`` is not clear: 5026 "Node shutdown in progress". The restart reply
    writes its code, the stop reply (MgmApiSession::stop) the text alone."""
    sim = await start_sim(four_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    sim.cluster.restart_nodes((3,))
    await advance(sim, manual_time, lambda: nodes[3].state == "STARTING")
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(
        restart("4", force=1),
        b"restart reply\nresult: 5026-Node shutdown in progress: Permanent error: "
        b"Application error\nrestarted: 0\ndisconnect: 0\n\n")
    await conn.exchange(
        stop("4", force=1),
        b"stop reply\nresult: Node shutdown in progress: Permanent error: Application error"
        b"\nstopped: 0\ndisconnect: 0\n\n")
    assert nodes[4].state == "STARTED"


async def test_a_management_node_is_stopped_and_restarted_as_sendstop_req_does(
    start_sim: StartSim, manual_time: Any, raw: Raw, two_mgmds: SimCluster, until: Any
) -> None:
    """MgmtSrvr::sendSTOP_REQ takes management nodes: another one is asked over a
    management connection (sendStopMgmd), the server's own node stops itself after its
    reply, which says ``disconnect: 1`` (``*stopSelf``); the stop reply has no code."""
    sim = await start_sim(two_mgmds, time=manual_time)
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(stop("4"), b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")
    assert sim.cluster.mgmd_alive[4] is False
    # Node 4 is gone: the server cannot reach it any more.
    await conn.exchange(stop("4"), b"stop reply\nresult: Send to process or receive failed.: "
                                   b"Permanent error: Application error\nstopped: 0\n"
                                   b"disconnect: 0\n\n")
    await conn.exchange(restart("1"),
                        b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 1\n\n")
    assert await conn.closed_by_server()
