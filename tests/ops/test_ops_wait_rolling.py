"""`ndbtop wait` and the rolling restart, against the simulated cluster."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.cli import main
from ndbtop.errors import MgmConnectError
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import RealClock
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, DataNodeConfig
from ndbtop.ops.rolling import (
    Decision,
    Problem,
    RollingRestart,
    check_batch,
    plan_rolling,
)
from ndbtop.ops.wait import NodeChange, Target, wait_for
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]


def ndb(node_id: int, group: int | None, status: str = "STARTED") -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, 525315, 525315, 0, node_id, group, 1, "h")


def test_plan_one_at_a_time_goes_group_by_group() -> None:
    nodes = [ndb(6, 1), ndb(3, 0), ndb(5, 1), ndb(4, 0), ndb(7, None)]
    assert plan_rolling(nodes).batches == ((3,), (4,), (5,), (6,), (7,))
    assert plan_rolling(nodes, per_group=True).batches == ((3, 5), (4, 6), (7,))
    assert plan_rolling(nodes, only=[4, 6]).batches == ((4,), (6,))
    assert plan_rolling(nodes, initial=True).commands()[0] == "3 RESTART -i"


@pytest.mark.parametrize(
    ("nodes", "batch", "reason"),
    [
        ([ndb(3, 0), ndb(4, 0)], (3,), None),
        ([ndb(3, 0), ndb(4, 0, "NO_CONTACT")], (3,), "partner of node 3 in node group 0"),
        # A NO_CONTACT node reports node group 0 (zeros); it was seen in group 1.
        ([ndb(3, 0), ndb(5, 1), ndb(4, 0, "NO_CONTACT")], (3,), None),
        ([ndb(3, 0, "STARTING"), ndb(4, 0)], (3,), "node 3 is STARTING"),
        ([ndb(3, 0), ndb(4, 0)], (3, 4), None),
        ([ndb(3, 0)], (9,), "not a data node"),
    ],
)
def test_guard(nodes: list[NodeStatus], batch: tuple[int, ...], reason: str | None) -> None:
    known = ((3, 0), (4, 1 if any(n.node_id == 5 for n in nodes) else 0), (5, 1))
    found = check_batch(batch, nodes, None, known)
    assert (found is None) if reason is None else (reason in (found or ""))


def configured(nodes: list[NodeStatus]) -> ClusterConfig:
    """A configuration that puts each node in the group given."""
    return ClusterConfig(1, "c", 2, (), tuple(
        DataNodeConfig(n.node_id, NO_NODE_GROUP if n.node_group is None else n.node_group)
        for n in nodes))


def test_guard_pairs_by_the_configured_groups_not_the_zero_of_a_node_without_contact() -> None:
    # get status sends node_group 0 for node 5, which the configuration puts in group 1.
    live = [ndb(2, 0), ndb(3, 0), ndb(4, 1), ndb(5, 0, "NO_CONTACT")]
    config = configured([ndb(2, 0), ndb(3, 0), ndb(4, 1), ndb(5, 1)])
    assert check_batch((2,), live, config) is None
    found = check_batch((4,), live, config)
    assert found == "node 5, partner of node 4 in node group 1, is NO_CONTACT"
    plan = plan_rolling(live, per_group=True, config=config)
    assert plan.batches == ((2, 4), (3, 5))


async def test_wait_reports_changes_and_returns_when_started(start_sim: StartSim) -> None:
    sim = await start_sim("threads", speed=300)
    cs = parse_connectstring(sim.connectstring)
    sim.cluster.restart_nodes((3,))
    changes: list[NodeChange] = []
    result = await wait_for(
        cs, Target.STARTED, None, 30, clock=RealClock(), interval=0.05, on_change=changes.append
    )
    assert result.reached
    seen = [(c.node_id, c.status) for c in changes]
    assert (3, "STARTED") in seen
    assert any(c.status != "STARTED" for c in changes if c.node_id == 3)


async def test_wait_times_out_naming_the_nodes(start_sim: StartSim) -> None:
    sim = await start_sim("threads", speed=1)
    cs = parse_connectstring(sim.connectstring)
    result = await wait_for(cs, Target.NOT_STARTED, [2], 0.3, clock=RealClock(), interval=0.05)
    assert not result.reached
    assert [n.node_id for n in result.missing] == [2]


async def test_a_timeout_that_ends_within_a_pause_is_late_nodes_not_a_silent_server(
    start_sim: StartSim,
) -> None:
    # Polls at 0 and 0.5 s, then the pause runs into the 0.75 s timeout: no poll is left
    # the 1 ms remaining (which no server answers in), so the wait ends with the nodes
    # late (exit 1), not with a server that stopped answering (exit 3).
    sim = await start_sim("threads", speed=1)
    cs = parse_connectstring(sim.connectstring)
    result = await wait_for(cs, Target.NOT_STARTED, [2], 0.75, clock=RealClock(), interval=0.5)
    assert (result.reached, [n.node_id for n in result.missing], result.error) == (
        False, [2], None)


async def test_wait_for_not_started_after_restart_n(start_sim: StartSim) -> None:
    sim = await start_sim("threads", speed=300)
    sim.cluster.restart_nodes((2,), nostart=True)
    cs = parse_connectstring(sim.connectstring)
    result = await wait_for(cs, Target.NOT_STARTED, [2], 30, clock=RealClock(), interval=0.05)
    assert result.reached


async def test_wait_unreachable_server_raises() -> None:
    cs = parse_connectstring("127.0.0.1:1")
    tries: list[float] = []
    with pytest.raises(MgmConnectError, match=r"connection refused.*\(tried for 1 s\)$"):
        await wait_for(cs, Target.STARTED, None, 1, clock=RealClock(),
                       on_retry=lambda error, pause: tries.append(pause))
    # Tried again, with a pause that grows (and ends at the timeout).
    assert len(tries) >= 2 and tries[1] > tries[0]


async def test_wait_tries_until_a_management_server_comes_up(start_sim: StartSim) -> None:
    # ndb_waiter connects with ndb_mgm_connect(handle, opt_connect_retries - 1,
    # opt_connect_retry_delay, 1) (storage/ndb/tools/waiter.cpp, waitClusterStatus): a
    # script around a management server's restart waits for it. wait tries until --timeout.
    sim = await start_sim("threads", speed=300)
    await sim.stop_mgmd(1)
    refused = asyncio.Event()
    errors: list[str] = []

    def retrying(error: str, pause: float) -> None:
        errors.append(error)
        refused.set()

    waiting = asyncio.create_task(wait_for(
        parse_connectstring(sim.connectstring), Target.STARTED, None, 60, clock=RealClock(),
        interval=0.05, on_retry=retrying))
    await asyncio.wait_for(refused.wait(), 60)  # its port does not listen: refused once
    await sim.start_mgmd(1)  # the same port listens again
    result = await waiting
    assert result.reached
    assert "connection refused" in errors[0]


def test_wait_command_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wait", "-c", "127.0.0.1:1", "--timeout", "1"]) == 3
    err = capsys.readouterr().err.splitlines()
    # Said once that it tries again, then the last failure once the time is up.
    assert err[0].startswith("ndbtop: the management server does not answer yet (cannot "
                             "connect") and err[0].endswith("trying again until the timeout (1 s)")
    assert err[-1].startswith("ndbtop: error: cannot connect")
    assert err[-1].endswith("(tried for 1 s)") and len(err) == 2


async def test_wait_command_json_lines(
    start_sim: StartSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = await start_sim("threads", speed=300)
    code = await asyncio.to_thread(
        main, ["wait", "-c", sim.connectstring, "--json", "--timeout", "5", "--interval", "0.1"]
    )
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {line["node_id"] for line in lines} == {2, 3}
    assert all(line["status"] == "STARTED" for line in lines)


async def _never(problem: Problem) -> Decision:
    raise AssertionError(f"unexpected problem: {problem}")


async def test_rolling_restart_of_the_large_cluster_completes(
    start_sim: StartSim, tmp_path: Path
) -> None:
    # x100: the 24 restarts of a batch are a few hundred simulated actions a real second, not
    # a thousand, so a busy machine still serves each reply well within its 5 s; the node
    # timeout counts on the cluster's clock.
    sim = await start_sim("large", speed=100)
    cs = parse_connectstring(sim.connectstring)
    nodes = sim.cluster.node_statuses()
    plan = plan_rolling(nodes, per_group=True)
    assert len(plan.batches) == 2 and len(plan.batches[0]) == 24
    audit = AuditLog(tmp_path / "audit.log")
    engine = RollingRestart(plan, cs, audit, decide=_never, poll=0.05, node_timeout=1800,
                            clock=sim.clock.monotonic)
    result = await engine.run()
    assert not result.aborted and sorted(result.done) == list(range(1, 49))
    assert all(n.connect_count == 2 for n in sim.cluster.node_statuses() if n.type == "NDB")
    sent = [r for r in audit.records() if r["event"] == "sent"]
    assert len(sent) == 2


async def test_rolling_restart_stops_at_a_guard_and_skips_on_request(
    start_sim: StartSim, tmp_path: Path
) -> None:
    sim = await start_sim("add-node", speed=500)
    cs = parse_connectstring(sim.connectstring)
    plan = plan_rolling(sim.cluster.node_statuses(), only=[3, 4])
    sim.cluster.stop_nodes((4,))
    problems: list[Problem] = []

    async def skip(problem: Problem) -> Decision:
        problems.append(problem)
        return Decision.SKIP

    result = await RollingRestart(
        plan, cs, AuditLog(tmp_path / "a.log"), decide=skip, poll=0.05
    ).run()
    assert [p.kind for p in problems] == ["guard", "guard"]
    assert "partner of node 3" in problems[0].message
    assert result.skipped == [3, 4] and result.done == []


async def test_rolling_restart_abort_sends_nothing_more(
    start_sim: StartSim, tmp_path: Path
) -> None:
    sim = await start_sim("threads", speed=500)
    cs = parse_connectstring(sim.connectstring)
    plan = plan_rolling(sim.cluster.node_statuses())
    audit = AuditLog(tmp_path / "a.log")
    engine = RollingRestart(plan, cs, audit, decide=_never, poll=0.05)
    engine.abort()
    result = await engine.run()
    assert result.aborted and result.done == [] and audit.records() == []


def test_rolling_dry_run_prints_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rolling-restart", "-c", "127.0.0.1:1", "--dry-run"]) == 3
    assert "cannot connect" in capsys.readouterr().err
