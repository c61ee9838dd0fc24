"""An injected failure: a data node whose node restarts hang in a start phase.

The restart goes through the simulated management server with the real client;
simulated time moves only when the test advances it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.errors import MgmCommandError
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.client import MgmClient
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.sim.startplan import RS_COPY_DICT_TO_STARTING_NODE

StartSim = Callable[..., Awaitable[Simulator]]
MakeClient = Callable[..., MgmClient]

NDB_START_STARTED = 10
NDB_START_COMPLETED = 11
START_PHASE_COMPLETED = 13


def failing(scenario: str, node_id: int, phase: int = 5) -> SimCluster:
    """A scenario's cluster in which ``node_id``'s node restarts hang in ``phase``."""
    return build_scenario(scenario, ScenarioOptions(fail_node=node_id, fail_phase=phase))


def phases_completed(cluster: SimCluster, node_id: int, since: float) -> list[int]:
    """The phases ``node_id`` reported completed (StartPhaseCompleted) since ``since``."""
    return [
        e.words[0]
        for e in cluster.bus.history
        if e.type == START_PHASE_COMPLETED and e.source == node_id and e.time >= since
    ]


def reported(cluster: SimCluster, event_type: int, node_id: int, since: float) -> bool:
    """True when ``node_id`` reported an event of ``event_type`` since ``since``."""
    return any(
        e.type == event_type and e.source == node_id and e.time >= since
        for e in cluster.bus.history
    )


async def restart_through_mgmd(
    sim: Simulator, client: MgmClient, time: Any, node_id: int, **flags: bool
) -> None:
    """``restart node v2`` for one node; simulated time runs until the reply arrives."""
    task = asyncio.ensure_future(client.restart_nodes([node_id], **flags))
    for _ in range(100):
        await asyncio.sleep(0.01)
        if task.done():
            break
        time.advance(0.5)
        sim.sync()
    assert (await asyncio.wait_for(task, 3.0)).count == 1


@pytest.mark.parametrize(("phase", "last_completed"), [(5, 4), (1, 0), (101, 100)])
async def test_a_restarted_failing_node_hangs_in_its_phase_for_good(
    start_sim: StartSim,
    make_client: MakeClient,
    manual_time: Any,
    phase: int,
    last_completed: int,
) -> None:
    sim = await start_sim(failing("threads", 2, phase), time=manual_time)
    client = make_client(sim.connectstring)
    cluster = sim.cluster
    began = cluster.now
    await restart_through_mgmd(sim, client, manual_time, 2)
    manual_time.advance(3600.0)
    sim.sync()
    status = {n.node_id: n for n in await client.get_status(["NDB"])}
    assert (status[2].status, status[2].start_phase) == ("STARTING", last_completed)
    assert status[2].connect_count == 2
    assert (status[3].status, status[3].connect_count) == ("STARTED", 1)
    assert reported(cluster, NDB_START_STARTED, 2, began)
    assert not reported(cluster, NDB_START_COMPLETED, 2, began)
    expected = [p for p in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101) if p < phase]
    assert phases_completed(cluster, 2, began) == expected


async def test_the_hang_blocks_other_restarts_and_comes_back_after_an_abort_restart(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim(failing("threads", 2), time=manual_time)
    client = make_client(sim.connectstring)
    node = sim.cluster.data_nodes[2]
    await restart_through_mgmd(sim, client, manual_time, 2)
    manual_time.advance(600.0)
    sim.sync()
    assert node.restart_report is not None
    assert node.restart_report.status == RS_COPY_DICT_TO_STARTING_NODE
    assert node.restart_report.finished is None
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([3])
    assert info.value.code == ec.OPERATION_NOT_ALLOWED_START_STOP
    assert sim.cluster.data_nodes[3].stops == 0

    await restart_through_mgmd(sim, client, manual_time, 2, abort=True)
    manual_time.advance(600.0)
    sim.sync()
    assert (node.state, node.start_phase, node.connect_count) == ("STARTING", 4, 3)


async def test_only_the_failing_node_hangs(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim(failing("threads", 2), time=manual_time)
    client = make_client(sim.connectstring)
    await restart_through_mgmd(sim, client, manual_time, 3)
    manual_time.advance(600.0)
    sim.sync()
    status = {n.node_id: n for n in await client.get_status(["NDB"])}
    assert (status[3].status, status[3].connect_count) == ("STARTED", 2)


def test_a_start_of_the_whole_cluster_is_not_affected() -> None:
    cluster = build_scenario(
        "initial-start", ScenarioOptions(fast_redo=True, fail_node=10, fail_phase=4)
    )
    cluster.advance_to(1800.0)
    assert {n: d.state for n, d in cluster.data_nodes.items()} == {10: "STARTED", 11: "STARTED"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ScenarioOptions(fail_node=9), "cannot fail node 9: not a data node of this cluster"),
        (ScenarioOptions(fail_node=1), "cannot fail node 1: not a data node of this cluster"),
        (ScenarioOptions(fail_node=2, fail_phase=42), "cannot hang a start in phase 42"),
    ],
)
def test_a_failure_the_scenario_cannot_have_is_refused(
    options: ScenarioOptions, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        build_scenario("threads", options)


def run(argv: list[str]) -> int:
    """``ndbtop`` in-process: its exit status, also when the parser exits."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--fail-node", "9"],
            "ndbtop: error: cannot fail node 9: not a data node of this cluster "
            "(data nodes: 2, 3)\n",
        ),
        (["--fail-node", "2", "--fail-phase", "42"], "invalid start phase '42'"),
        (["--fail-node", "2,3"], "one node id expected"),
    ],
)
def test_fail_options_on_the_command_line_are_checked(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["demo", "--once", "--no-sql", "--scenario", "threads", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
