"""A rolling restart meets a node that does not come back: it stops there, says where the
node hangs, and the guard keeps its partner from being restarted."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.cli import main
from ndbtop.cli.parser import build_parser
from ndbtop.cli.scenario import make_simulator
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.phases import apply_status
from ndbtop.ops.rolling import Decision, Problem, RollingRestart, last_seen, plan_rolling
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario

StartSim = Callable[..., Awaitable[Simulator]]

SPEED = 500.0
"""Simulated seconds per real second: a node restart of ``threads`` takes a few
hundredths of a second, so a timeout of one real second is far past it."""
NODE_TIMEOUT = 60.0
"""The engine's node timeout on the cluster's clock (simulated seconds): node 2 hangs in start
phase 5 from 9 s after its restart on, and a busy machine ends the wait no earlier."""


def ndb(node_id: int, status: str, phase: int = 0) -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, 525315, 525315, phase, node_id, 0, 2, "h")


@pytest.mark.parametrize(
    ("node", "restarted", "expected"),
    [
        (ndb(3, "STARTING", 4), True, "node 3 STARTING in phase 5 copy data, wait LCP"),
        (ndb(3, "STARTING", 100), True, "node 3 STARTING in phase 101 subscription hand-over"),
        (ndb(3, "SHUTTING_DOWN", 2), True, "node 3 SHUTTING_DOWN at stop level 2"),
        (ndb(3, "NO_CONTACT"), True, "node 3 NO_CONTACT"),
        (ndb(3, "STARTED"), False, "node 3 STARTED, never seen restarting"),
    ],
)
def test_last_seen_names_the_state_and_the_phase_in_progress(
    node: NodeStatus, restarted: bool, expected: str
) -> None:
    assert last_seen(node, None, 0.0, restarted=restarted) == expected


def test_last_seen_tells_how_long_the_node_has_been_seen_in_its_phase() -> None:
    timelines = apply_status({}, [ndb(3, "STARTING", 3)], 1000.0)
    timelines = apply_status(timelines, [ndb(3, "STARTING", 4)], 1010.0)
    assert (
        last_seen(ndb(3, "STARTING", 4), timelines[3], 1052.5)
        == "node 3 STARTING in phase 5 copy data, wait LCP for at least 42 s"
    )


async def test_the_run_stops_at_the_node_that_hangs_and_never_restarts_its_partner(
    start_sim: StartSim, tmp_path: Path
) -> None:
    cluster = build_scenario("threads", ScenarioOptions(fail_node=2))
    sim = await start_sim(cluster, speed=SPEED)
    cs = parse_connectstring(sim.connectstring)
    plan = plan_rolling(sim.cluster.node_statuses())
    assert plan.batches == ((2,), (3,))
    problems: list[Problem] = []

    async def skip(problem: Problem) -> Decision:
        problems.append(problem)
        return Decision.SKIP

    audit = AuditLog(tmp_path / "audit.log")
    engine = RollingRestart(plan, cs, audit, decide=skip, poll=0.05, node_timeout=NODE_TIMEOUT,
                            clock=sim.clock.monotonic)
    sent_at = sim.clock.now()
    result = await engine.run()
    assert sim.clock.now() - sent_at > NODE_TIMEOUT

    assert [(p.kind, p.batch) for p in problems] == [("timeout", (2,)), ("guard", (3,))]
    assert re.fullmatch(
        r"not STARTED after 60 s: node 2 STARTING in phase 5 copy data, wait LCP"
        r"( for at least \d+ s)?",
        problems[0].message,
    ), problems[0].message
    assert problems[1].message == "node 2, partner of node 3 in node group 0, is STARTING"
    assert result.done == [] and result.skipped == [2, 3] and not result.aborted
    assert result.stopped_by is None
    assert [r["command"] for r in audit.records() if r["event"] == "sent"] == ["2 RESTART"]
    partner = sim.cluster.data_nodes[3]
    assert (partner.state, partner.stops, partner.connect_count) == ("STARTED", 0, 1)
    assert (sim.cluster.data_nodes[2].state, sim.cluster.data_nodes[2].start_phase) == (
        "STARTING",
        4,
    )


async def test_an_abort_on_the_timeout_records_the_problem_it_stopped_on(
    start_sim: StartSim, tmp_path: Path
) -> None:
    sim = await start_sim(build_scenario("threads", ScenarioOptions(fail_node=2)), speed=SPEED)
    cs = parse_connectstring(sim.connectstring)
    plan = plan_rolling(sim.cluster.node_statuses())

    async def abort(problem: Problem) -> Decision:
        return Decision.ABORT

    engine = RollingRestart(plan, cs, AuditLog(tmp_path / "a.log"), decide=abort, poll=0.05,
                            node_timeout=NODE_TIMEOUT, clock=sim.clock.monotonic)
    result = await engine.run()
    assert result.aborted and result.done == [] and result.skipped == []
    assert result.stopped_by is not None
    assert (result.stopped_by.kind, result.stopped_by.batch) == ("timeout", (2,))
    assert sim.cluster.data_nodes[3].stops == 0


def test_the_command_exits_1_with_one_line_naming_the_node_and_its_phase(
    threaded_sim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(
        ["sim", "--scenario", "threads", "--fail-node", "2", "--no-sql"]
    )
    sim = threaded_sim(make_simulator(args).cluster, speed=SPEED)
    audit = tmp_path / "audit.log"
    status = main(
        [
            "rolling-restart",
            "-c",
            sim.connectstring,
            "--yes",
            "--node-timeout",
            "1",
            "--audit-log",
            str(audit),
        ]
    )
    out, err = capsys.readouterr()
    assert status == 1
    assert re.fullmatch(
        r"ndbtop: rolling restart aborted at node 2 \(timeout\): not STARTED after 1 s: "
        r"node 2 STARTING in phase 5 copy data, wait LCP( for at least \d+ s)?\n",
        err,
    ), err
    assert "[1/2] 2 RESTART" in out and "[2/2]" not in out
    assert out.splitlines()[-1].startswith("restarted: none; ABORTED")
    assert sim.sim.cluster.data_nodes[3].stops == 0
