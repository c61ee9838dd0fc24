"""The simulated cluster's rules, exercised through the management protocol with the real
client: node-group safety (5028), starts blocking restarts (5063), forced restarts,
``restart -n`` and ``start``, when restart replies arrive, cluster log levels, which
listeners get statistics events, and ``REPORT MEMORY``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from ndbtop.collect.events import levels_from_names
from ndbtop.errors import MgmCommandError
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.text import event_text
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.wire import RawEvent
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]
MakeClient = Callable[..., MgmClient]

CRASH = ec.ndb_error_string(ec.NODE_SHUTDOWN_WOULD_CAUSE_SYSTEM_CRASH)
BUSY = ec.ndb_error_string(ec.OPERATION_NOT_ALLOWED_START_STOP)


@pytest.fixture
async def sim(start_sim: StartSim, manual_time: Any) -> Simulator:
    """``threads``: data nodes 2 and 3 started in node group 0; time moves by hand."""
    return await start_sim("threads", time=manual_time)


@pytest.fixture
async def client(sim: Simulator, make_client: MakeClient) -> MgmClient:
    return make_client(sim.connectstring)


@pytest.fixture
async def observer(sim: Simulator, make_client: MakeClient) -> MgmClient:
    """A second client, on its own session, that watches while the first one waits."""
    return make_client(sim.connectstring)


async def states(client: MgmClient) -> dict[int, tuple[str, int]]:
    """(status, start phase) of every data node, from ``get status``."""
    return {n.node_id: (n.status, n.start_phase) for n in await client.get_status(["NDB"])}


async def stopped_reply(
    sim: Simulator, time: Any, until: Any, call: Awaitable[Any], node_id: int
) -> Any:
    """Run a stop or restart call and let the simulated shutdown finish so it can reply."""
    task = asyncio.ensure_future(call)
    await until(
        lambda: sim.cluster.data_nodes[node_id].state == "SHUTTING_DOWN" or task.done(),
        what=f"node {node_id} to shut down",
    )
    time.advance(3.0)
    return await asyncio.wait_for(task, 3.0)


async def test_one_node_of_a_pair_may_restart_the_other_is_refused_meanwhile(
    sim: Simulator,
    client: MgmClient,
    observer: MgmClient,
    manual_time: Any,
    until: Any,
    advance: Any,
) -> None:
    nodes = sim.cluster.data_nodes
    restart = asyncio.ensure_future(client.restart_nodes([2]))
    await until(lambda: nodes[2].state == "SHUTTING_DOWN", what="node 2 to shut down")
    # While node 2 stops, node 3 is the last started node of node group 0.
    with pytest.raises(MgmCommandError) as info:
        await observer.restart_nodes([3])
    assert (info.value.code, info.value.result) == (5028, f"5028-{CRASH}")
    manual_time.advance(3.0)
    assert (await asyncio.wait_for(restart, 3.0)).count == 1
    await advance(sim, manual_time, lambda: nodes[2].state == "STARTING")
    for call in (observer.restart_nodes([3]), observer.stop_nodes([3])):
        with pytest.raises(MgmCommandError) as info:
            await call
        assert info.value.result.endswith(BUSY)
        assert info.value.node_ids == (3,)
    await advance(sim, manual_time, lambda: nodes[2].state == "STARTED")
    assert await states(observer) == {2: ("STARTED", 0), 3: ("STARTED", 0)}


async def test_stopping_the_last_node_of_a_group_is_refused_unless_forced(
    sim: Simulator, client: MgmClient, manual_time: Any, until: Any
) -> None:
    result = await stopped_reply(sim, manual_time, until, client.stop_nodes([2]), 2)
    assert (result.count, result.disconnect) == (1, False)
    with pytest.raises(MgmCommandError) as info:
        await client.stop_nodes([3])
    assert (info.value.result, info.value.node_ids) == (CRASH, (3,))
    assert await states(client) == {2: ("NO_CONTACT", 0), 3: ("STARTED", 0)}
    forced = await stopped_reply(sim, manual_time, until, client.stop_nodes([3], force=True), 3)
    assert forced.count == 1
    nodes = await client.get_status()
    assert {n.node_id: n.status for n in nodes if n.type == "NDB"} == {
        2: "NO_CONTACT",
        3: "NO_CONTACT",
    }
    assert {n.status for n in nodes if n.type == "API"} == {"UNKNOWN"}


async def test_restarting_a_whole_group_is_refused_and_forced_restarts_every_node(
    sim: Simulator, client: MgmClient, manual_time: Any, until: Any, advance: Any
) -> None:
    nodes = sim.cluster.data_nodes
    # Several nodes without abort: execSTOP_REQ answers UnsupportedNodeShutdown (5031)
    # before any node-group check; with -f Services.cpp retries as an abort, whose
    # node-group check (5028) makes it restart every data node (restartDB).
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([2, 3])
    assert (info.value.code, info.value.node_ids) == (5031, (2, 3))
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([2, 3], abort=True)
    assert (info.value.code, info.value.node_ids) == (5028, (2, 3))
    assert {n.state for n in nodes.values()} == {"STARTED"}
    stops = {node_id: node.stops for node_id, node in nodes.items()}
    forced = client.restart_nodes([2, 3], force=True)
    result = await stopped_reply(sim, manual_time, until, forced, 2)
    assert (result.count, result.node_ids) == (2, (2, 3))
    assert all(node.stops == stops[node_id] + 1 for node_id, node in nodes.items())
    await advance(sim, manual_time, lambda: all(n.state == "STARTED" for n in nodes.values()))
    assert all(n.start_type == 1 for n in nodes.values())  # a system restart


async def test_restart_nostart_leaves_the_node_not_started_until_start(
    sim: Simulator, client: MgmClient, manual_time: Any, until: Any, advance: Any
) -> None:
    nodes = sim.cluster.data_nodes
    result = await stopped_reply(
        sim, manual_time, until, client.restart_nodes([3], nostart=True), 3
    )
    assert result.count == 1
    assert (await states(client))[3] == ("NOT_STARTED", 0)
    manual_time.advance(600.0)
    assert (await states(client))[3] == ("NOT_STARTED", 0)
    assert (await client.start_node(3)).result == "Ok"
    assert (await states(client))[3][0] == "STARTING"
    phases: list[int] = []

    def started() -> bool:
        if nodes[3].state == "STARTING":
            phases.append(nodes[3].start_phase)
        return nodes[3].state == "STARTED"

    await advance(sim, manual_time, started)
    assert phases == sorted(phases)
    assert phases[-1] >= 9
    assert (await states(client))[3] == ("STARTED", 0)


async def test_restart_reply_arrives_when_the_node_reached_not_started(
    sim: Simulator, client: MgmClient, observer: MgmClient, manual_time: Any, until: Any
) -> None:
    restart = asyncio.ensure_future(client.restart_nodes([3]))
    await until(lambda: sim.cluster.data_nodes[3].state == "SHUTTING_DOWN", what="shutdown")
    # The stop levels 1..4 show in the start phase field while the node shuts down.
    assert (await states(observer))[3] == ("SHUTTING_DOWN", 1)
    manual_time.advance(1.0)
    assert (await states(observer))[3] == ("SHUTTING_DOWN", 2)
    assert not restart.done()
    manual_time.advance(0.9)
    assert (await states(observer))[3] == ("SHUTTING_DOWN", 4)
    assert not restart.done()
    manual_time.advance(0.6)
    result = await asyncio.wait_for(restart, 3.0)
    assert result.count == 1
    # MgmtSrvr::restartNodes sends START_ORD once the node is NOT_STARTED, then replies:
    # the reply finds the node just beginning its start.
    assert (await states(observer))[3] == ("STARTING", 0)
    # The STOP_REQ of MgmtSrvr::restartNodes always carries nostart (sendSTOP_REQ(...,
    # restart=true, nostart=true, ...)): ndbd exits NRT_NoStart_Restart and its angel
    # reports action 1|2 (angel.cpp reportShutdown), so a plain RESTART logs "no start"
    # on a real cluster too, before the server's START_ORD starts the node.
    stop = [e for e in sim.cluster.bus.history if e.type == 53 and e.source == 3]
    assert [e.words for e in stop] == [(3, 0)]
    assert event_text(53, stop[0].words) == "Node shutdown completed, restarting, no start."


async def test_cluster_log_levels(client: MgmClient) -> None:
    assert (await client.get_cluster_loglevel())["statistics"] == 7
    await client.set_cluster_loglevel(2, 252, 15)
    levels = await client.get_cluster_loglevel()
    assert (levels["statistics"], levels["error"], levels["connection"]) == (15, 15, 8)
    with pytest.raises(MgmCommandError) as info:
        await client.set_cluster_loglevel(2, 252, 16)
    assert info.value.result == "Invalid loglevel 16"
    with pytest.raises(MgmCommandError) as info:
        await client.set_cluster_loglevel(2, 263, 1)
    assert info.value.result == "Invalid category 13"
    assert (await client.get_cluster_loglevel())["statistics"] == 15


class Watch:
    """Events of one listener, read up to a marker event the test emits."""

    def __init__(self, sim: Simulator, levels: dict[int, int]) -> None:
        self.sim = sim
        self.listener = EventListener(parse_connectstring(sim.connectstring).addresses[0], levels)
        self._items: AsyncIterator[object] | None = None

    async def __aenter__(self) -> Watch:
        await self.listener.open()
        self._items = self.listener.items()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.listener.close()

    async def until_marker(self) -> list[RawEvent]:
        """Everything delivered before a marker event raised now (NDBStopAborted from node 7)."""
        self.sim.cluster.emit(18, 7)
        assert self._items is not None
        seen: list[RawEvent] = []
        while True:
            item = await asyncio.wait_for(self._items.__anext__(), 3.0)
            assert isinstance(item, RawEvent)
            if (item.type, item.source_nodeid) == (18, 7):
                return seen
            seen.append(item)


def types_of(events: list[RawEvent]) -> set[int]:
    return {e.type for e in events}


async def test_statistics_events_need_a_level_of_8(
    sim: Simulator, client: MgmClient, manual_time: Any
) -> None:
    history = sim.cluster.bus.history
    default = levels_from_names(await client.get_cluster_loglevel())
    async with Watch(sim, default) as watch:
        manual_time.advance(20.0)
        sim.sync()
        assert 35 not in types_of(await watch.until_marker())
        assert not any(e.type == 35 for e in history)
        await client.set_cluster_loglevel(2, 252, 15)
        manual_time.advance(10.0)
        sim.sync()
        # The cluster log now gets them; a listener still at STATISTICS=7 does not.
        assert {e.source for e in history if e.type == 35} == {2, 3}
        assert 35 not in types_of(await watch.until_marker())
    raised = levels_from_names(await client.get_cluster_loglevel())
    async with Watch(sim, raised) as watch:
        manual_time.advance(10.0)
        sim.sync()
        got = [e for e in await watch.until_marker() if e.type == 35]
    assert {e.source_nodeid for e in got} == {2, 3}
    assert [k for k, _ in got[0].body] == [
        "trans_count",
        "commit_count",
        "read_count",
        "simple_read_count",
        "write_count",
        "attrinfo_count",
        "conc_op_count",
        "abort_count",
        "scan_count",
        "range_scan_count",
    ]


async def test_a_listener_asking_for_statistics_gets_them_without_the_cluster_log(
    sim: Simulator, client: MgmClient, manual_time: Any
) -> None:
    async with Watch(sim, {250: 1, 252: 15}) as watch:
        manual_time.advance(10.0)
        sim.sync()
        got = await watch.until_marker()
    assert (await client.get_cluster_loglevel())["statistics"] == 7
    assert {e.source_nodeid for e in got if e.type == 35} == {2, 3}


async def test_report_memory_gives_two_blocks_per_started_node(
    sim: Simulator, client: MgmClient, manual_time: Any, until: Any
) -> None:
    events = await client.dump_events(50)
    assert [(e.source_nodeid, dict(e.body)["block"]) for e in events] == [
        (2, "249"),
        (2, "248"),
        (3, "249"),
        (3, "248"),
    ]
    for e in events:
        body = dict(e.body)
        assert body["gth"] == "0"
        assert int(body["pages_used"]) <= int(body["pages_total"])
        assert body["page_size_bytes"] == ("32768" if body["block"] == "249" else "8192")
    assert [e.source_nodeid for e in await client.dump_events(50, [3])] == [3, 3]
    await stopped_reply(sim, manual_time, until, client.stop_nodes([2]), 2)
    assert [e.source_nodeid for e in await client.dump_events(50)] == [3, 3]
    assert await client.dump_events(50, [2]) == ()
