"""A rolling restart against the simulator's ``gcp-stall`` and ``redo-filling`` scenarios stops
before its next step while a finding holds it, says which, and goes on once it clears.

Simulated time moves only when the test advances it (:class:`ManualTime`): the hub beside
the run (events, and ndbinfo from the simulated SQL node) reads the cluster on the
simulator's clock, so the findings' windows (a GCP warning counts 120 s) are simulated
seconds, and the test lets the disk recover or a checkpoint free the redo log by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.collect.hub import Hub
from ndbtop.findings.rules_events import RECENT_S
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions, options_summary
from ndbtop.ops.rolling import (
    GATE_PHRASE,
    Decision,
    Gate,
    Problem,
    Progress,
    RollingPlan,
    RollingRestart,
    plan_rolling,
)
from ndbtop.ops.rolling_gate import current_findings
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.sim.scenarios.diagnostics import GCP_STALL_AT

HUB_INTERVAL = 0.02
"""Real seconds between the hub's reads (simulated time stands still in between)."""
STEP = 2.0
"""Simulated seconds the test lets pass at a time."""
HANG = 30.0
"""Real seconds the hub may take to connect or to read the cluster before the test fails: a
bound for a hang on a busy machine, never a target."""


async def _never(problem: Problem) -> Decision:
    raise AssertionError(f"unexpected problem: {problem}")


class Run:
    """A simulator on manual time with a hub beside it, and a rolling restart driven by the
    test."""

    def __init__(self, sim: Simulator, hub: Hub, manual: Any, audit: AuditLog) -> None:
        self.sim = sim
        self.hub = hub
        self.manual = manual
        self.audit = audit
        self.reports: list[tuple[float, Progress]] = []
        """Each report of the engine with the simulated time it came at."""

    def engine(self, plan: RollingPlan, **kwargs: Any) -> RollingRestart:
        return RollingRestart(
            plan, parse_connectstring(self.sim.connectstring), self.audit, decide=_never,
            report=lambda p: self.reports.append((self.sim.cluster.now, p)), poll=0.005,
            node_timeout=600, config=self.hub.cluster_config(),
            findings=lambda: current_findings(self.hub.snapshot()), **kwargs)

    async def settle(self) -> None:
        """Wait (a bounded while) until the hub has read the cluster at the current time."""
        target = self.sim.clock.wall()
        self.hub.refresh_now()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HANG
        while (reading := self.hub.mgm.reading) is None or reading.wall < target:
            assert loop.time() < deadline, "the hub did not read the cluster"
            await asyncio.sleep(0.002)

    async def drive(self, done: Callable[[], bool], what: str, limit: float = 900.0) -> None:
        """Let simulated time pass, :data:`STEP` at a time, until ``done()``."""
        for _ in range(int(limit / STEP)):
            if done():
                return
            self.manual.advance(STEP)
            self.sim.sync()
            await self.settle()
        raise AssertionError(f"{what}: not within {limit:g} simulated seconds; "
                             f"reports: {[(t, p.step, p.batch) for t, p in self.reports]}")

    def steps(self, step: str) -> list[tuple[float, Progress]]:
        return [(t, p) for t, p in self.reports if p.step == step]

    def sent(self) -> list[str]:
        return [str(r["command"]) for r in self.audit.records() if r["event"] == "sent"]


@pytest.fixture
def run_on(manual_time: Any, tmp_path: Path) -> Callable[..., Any]:
    """``async with run_on("gcp-stall", sql=False) as run``: the scenario on manual time and a
    hub on its clock (with the SQL node's ndbinfo when ``sql``)."""
    import contextlib

    @contextlib.asynccontextmanager
    async def start(scenario: str, *, sql: bool) -> AsyncIterator[Run]:
        cluster = build_scenario(scenario, ScenarioOptions(seed=1))
        sim = Simulator(cluster, SimClock(speed=1.0, real=manual_time, start_at=cluster.now))
        await sim.start(sql_port=0 if sql else None)
        ndbinfo = None
        if sql:
            options = MysqlOptions(host=sim.host, port=sim.sql_port, user="root", password="")
            ndbinfo = (NdbinfoCollector(options, clock=sim.clock.monotonic),
                       options_summary(options))
        hub = Hub(parse_connectstring(sim.connectstring), sim.clock, HUB_INTERVAL,
                  events=True, ndbinfo=ndbinfo)
        try:
            await hub.start()
            events = hub.events
            assert events is not None
            loop = asyncio.get_running_loop()
            deadline = loop.time() + HANG
            while events.listening_levels is None or hub.cluster_config() is None:
                assert loop.time() < deadline, "the hub did not connect"
                await asyncio.sleep(0.002)
            yield Run(sim, hub, manual_time, AuditLog(tmp_path / "audit.log"))
        finally:
            await hub.stop()
            await sim.close()

    return start


async def test_gcp_stall_holds_the_next_step_until_the_lag_warnings_stop(run_on: Any) -> None:
    async with run_on("gcp-stall", sql=False) as run:
        run.manual.advance(GCP_STALL_AT + 30)  # 30 s before the master's first warning
        run.sim.sync()
        await run.settle()
        plan = plan_rolling(run.sim.cluster.node_statuses(), only=[4, 5])
        engine = run.engine(plan)
        task = asyncio.create_task(engine.run())
        try:
            # Node 4 restarts; the master warns of a GCP_SAVE lag of 60 s meanwhile.
            await run.drive(lambda: bool(run.steps("gate")), "the gate before step 2")
            (held_at, gate), = run.steps("gate")
            assert gate.gate is not None and gate.batch == (5,)
            assert [f.id for f in gate.gate.findings] == ["gcp_save_lag"]
            assert gate.message == (
                "step 2 (node 5) waits for: warning gcp_save_lag: GCP_SAVE lag 60 s on the "
                "DIH master (node 2): the master kills the stalled node at 204 s (2303) (a "
                "warning about the GCP)")
            # It was seen coming while node 4 restarted, and said then.
            ahead = [p for _, p in run.steps("gate ahead") if p.gate and p.gate.held]
            assert ahead and ahead[0].batch == (4,)
            assert run.sent() == ["4 RESTART"]
            assert run.sim.cluster.data_nodes[5].stops == 0

            # The disk recovers: no more warnings; the last one counts for RECENT_S.
            run.sim.cluster.data_nodes[3].io_lag_per_s = 0.0
            await run.drive(lambda: bool(run.steps("gate cleared")), "the gate to clear")
            (cleared_at, cleared), = run.steps("gate cleared")
            assert cleared_at >= GCP_STALL_AT + 60 + RECENT_S
            assert cleared.message.startswith("step 2: the findings cleared after ")
            await run.drive(task.done, "the run to end")
        finally:
            task.cancel()
        result = await asyncio.gather(task, return_exceptions=True)
        assert not isinstance(result[0], BaseException), result
        assert result[0].done == [4, 5] and not result[0].aborted
        assert run.sent() == ["4 RESTART", "5 RESTART"]
        assert all(t >= cleared_at for t, p in run.steps("restart") if p.batch == (5,))
        assert held_at < cleared_at


async def test_a_gate_that_holds_sees_the_next_nodes_group_lose_a_node_meanwhile(
    run_on: Any,
) -> None:
    # Held before node 2 by the GCP_SAVE warnings, the run sees the master kill node 3
    # (DbdihMain.cpp crashSystemAtGcpStop): node 2's group is then down to node 2, which the
    # gate says, read from a get status of the moment, not of the end of step 1.
    async with run_on("gcp-stall", sql=False) as run:
        run.manual.advance(GCP_STALL_AT + 30)
        run.sim.sync()
        await run.settle()
        plan = RollingPlan(((4,), (2,)), groups=((2, 0), (3, 0), (4, 1), (5, 1)))
        task = asyncio.create_task(run.engine(plan).run())
        try:
            await run.drive(lambda: bool(run.steps("gate")), "the gate before step 2")
            assert [f.id for f in run.steps("gate")[0][1].gate.findings] == ["gcp_save_lag"]

            def group_held() -> bool:
                return any(f.id == "node_group_one_left" for _, p in run.steps("gate")
                           for f in p.gate.findings)

            await run.drive(group_held, "node 2's group named at the gate")
            assert run.sim.cluster.data_nodes[3].stops == 1
            _, last = run.steps("gate")[-1]
            assert last.batch == (2,)
            assert ("warning node_group_one_left: node group 0 is down to node 2: if it fails, "
                    "every data node shuts down (a warning about node group 0 of the step's "
                    "nodes)") in last.message
            assert run.sent() == ["4 RESTART"]
        finally:
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_redo_filling_holds_the_partner_until_a_checkpoint_frees_the_log(
    run_on: Any,
) -> None:
    async with run_on("redo-filling", sql=True) as run:
        await run.settle()
        # Node 3 first: node 2 holds the filling log part; its restart is the next step.
        plan = RollingPlan(((3,), (2,)), groups=((2, 0), (3, 0)))
        engine = run.engine(plan)
        task = asyncio.create_task(engine.run())
        try:
            # Step 1 goes before simulated time moves: the log fills only as time passes,
            # so a busy machine that is slow to start the run cannot see it full first.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + HANG
            while not run.sent():
                assert loop.time() < deadline, "the run did not send step 1"
                await asyncio.sleep(0.002)
            await run.drive(lambda: bool(run.steps("gate")), "the gate before step 2")
            _, gate = run.steps("gate")[0]
            assert gate.gate is not None and gate.batch == (2,)
            assert {f.id for f in gate.gate.findings} == {"redo_part_filling"}
            assert "node 2 redo log part 0" in gate.message
            assert "writes fail with 410" in gate.message
            # Node 3's own restart leaves group 0 with one node: what the run does, not a
            # reason to stop it.
            assert not any(f.id == "node_group_one_left" for _, p in run.reports if p.gate
                           for f in p.gate.findings)
            assert run.sent() == ["3 RESTART"]

            # A local checkpoint completes: the tail of part 0 moves.
            del run.sim.cluster.data_nodes[2].redo_stuck[0]
            await run.drive(lambda: bool(run.steps("gate cleared")), "the gate to clear")
            await run.drive(task.done, "the run to end")
        finally:
            task.cancel()
        result = await asyncio.gather(task, return_exceptions=True)
        assert not isinstance(result[0], BaseException), result
        assert result[0].done == [3, 2]
        assert run.sent() == ["3 RESTART", "2 RESTART"]


async def test_a_gate_that_outlasts_its_bound_aborts_the_run_on_it(run_on: Any) -> None:
    async with run_on("redo-filling", sql=True) as run:
        await run.drive(lambda: any(f.id == "redo_part_filling"
                                    for f in current_findings(run.hub.snapshot())),
                        "the redo finding")
        plan = RollingPlan(((3,), (2,)), groups=((2, 0), (3, 0)))
        result = await run.engine(plan, gate_timeout=0.0).run()
        assert result.aborted and result.done == []
        assert result.stopped_by is not None and result.stopped_by.kind == "gate"
        assert result.stopped_by.message.startswith("step 1 (node 3) waits for: ")
        assert result.stopped_by.message.endswith("; still held after 0 s")
        assert run.sent() == []


@pytest.mark.parametrize("answer", [Decision.GO, Decision.ABORT])
async def test_skipping_the_gate_is_audited_and_abort_sends_nothing(
    run_on: Any, answer: Decision
) -> None:
    async with run_on("redo-filling", sql=True) as run:
        await run.drive(lambda: any(f.id == "redo_part_filling"
                                    for f in current_findings(run.hub.snapshot())),
                        "the redo finding")
        asked: list[Gate] = []

        async def decide_gate(gate: Gate) -> Decision:
            asked.append(gate)
            return answer

        plan = RollingPlan(((3,),), groups=((2, 0), (3, 0)))
        task = asyncio.create_task(run.engine(plan, decide_gate=decide_gate).run())
        try:
            await run.drive(task.done, "the run to end")
        finally:
            task.cancel()
        result = (await asyncio.gather(task))[0]
        assert [g.batch for g in asked] == [(3,)]
        records = run.audit.records()
        if answer is Decision.ABORT:
            assert result.aborted and result.stopped_by is not None
            assert result.stopped_by.kind == "gate"
            assert records == []
            return
        assert result.done == [3]
        skipped, sent = records[0], records[1]
        assert skipped["event"] == "gate skipped"
        assert skipped["confirmed_with"] == GATE_PHRASE
        assert (skipped["step"], skipped["nodes"]) == (1, [3])
        assert [f["id"] for f in skipped["findings"]] == ["redo_part_filling"]  # type: ignore[index]
        assert sent["event"] == "sent" and sent["command"] == "3 RESTART"
