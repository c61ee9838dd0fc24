"""Rolling restarts against a simulated server that enforces 5031 and 5063, and the
failed-wait question (server-rules.md §6).

The simulator refuses several nodes in one graceful request (Ndbcntr::execSTOP_REQ,
UnsupportedNodeShutdown → 5031) and every graceful request while a data node is
STARTING (MgmtSrvr::restartNodes, 5063); it sends START_ORD only after both of
restartNodes' waits succeed (a failed wait, 5024/5025, leaves the node NOT_STARTED).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.cli import main
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.ops.rolling import PER_GROUP_PHRASE, Decision, Problem, RollingRestart, plan_rolling
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]


def four_nodes() -> SimCluster:
    """Data nodes 2, 3 (node group 0) and 4, 5 (node group 1), started."""
    config = simple_config(
        "four", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1)),
        api=((7, None),), max_exec_threads=4, fragment_log_file_size_mb=16,
        no_of_fragment_log_files=4,
    )
    cluster = SimCluster(config)
    cluster.boot_started()
    return cluster


async def _never(problem: Problem) -> Decision:
    raise AssertionError(f"unexpected problem: {problem}")


def sent_requests(audit: AuditLog) -> list[str]:
    return [str(r["request"]) for r in audit.records() if r["event"] == "sent"]


@pytest.mark.parametrize("per_group", [False, True])
async def test_a_rolling_restart_of_two_groups_completes_against_5031_and_5063(
    start_sim: StartSim, tmp_path: Path, per_group: bool
) -> None:
    sim = await start_sim(four_nodes(), speed=300)
    cs = parse_connectstring(sim.connectstring)
    plan = plan_rolling(sim.cluster.node_statuses(), per_group=per_group)
    audit = AuditLog(tmp_path / "audit.log")
    engine = RollingRestart(plan, cs, audit, decide=_never, poll=0.05, node_timeout=120,
                            confirmed=plan.phrase)
    result = await engine.run()
    assert not result.aborted and sorted(result.done) == [2, 3, 4, 5]
    assert all(n.connect_count == 2 for n in sim.cluster.node_statuses() if n.type == "NDB")
    requests = sent_requests(audit)
    if per_group:
        assert plan.batches == ((2, 4), (3, 5))
        assert requests == [
            "restart node v2\nnode: 2 4\nabort: 1\ninitialstart: 0\nnostart: 0\nforce: 0\n\n",
            "restart node v2\nnode: 3 5\nabort: 1\ninitialstart: 0\nnostart: 0\nforce: 0\n\n",
        ]
        sent = [r for r in audit.records() if r["event"] == "sent"]
        assert all(r["confirmed_with"] == PER_GROUP_PHRASE for r in sent)
        assert all("nodes 2 4 are killed at once" in " ".join(r["told"])  # type: ignore[arg-type]
                   for r in sent[:1])
    else:
        assert [r.split("\n")[1] for r in requests] == [
            "node: 2", "node: 3", "node: 4", "node: 5"]
    # No step sent several nodes without -a: the server would have answered 5031.
    for request in requests:
        fields = dict(line.split(": ", 1) for line in request.strip().split("\n")[1:])
        assert len(fields["node"].split()) == 1 or fields["abort"] == "1"


async def test_a_failed_wait_offers_to_start_the_node_it_left_not_started(
    start_sim: StartSim, tmp_path: Path, until: Callable[..., Awaitable[None]]
) -> None:
    """MgmtSrvr::restartNodes returns 5025 before START_ORD: the node stays NOT_STARTED;
    the question names it, and starting it (``3 START``, audited) finishes the step."""
    cluster = four_nodes()
    cluster.slow_stops[3] = (0.0, 200.0)
    sim = await start_sim(cluster, speed=300)
    cs = parse_connectstring(sim.connectstring)
    plan = plan_rolling(sim.cluster.node_statuses(), only=[3])
    audit = AuditLog(tmp_path / "audit.log")
    problems: list[Problem] = []

    async def decide(problem: Problem) -> Decision:
        problems.append(problem)
        if not problem.not_started:
            # Still shutting down after 5025: once it has stopped, look again.
            await until(lambda: cluster.data_nodes[3].state == "NOT_STARTED",
                        what="node 3 NOT_STARTED")
            return Decision.RETRY
        return Decision.START

    engine = RollingRestart(plan, cs, audit, decide=decide, poll=0.05, node_timeout=120)
    result = await engine.run()
    assert result.done == [3] and not result.aborted
    first = problems[0]
    assert first.kind == "refused"
    assert first.message.startswith("5025-Time-out due to node shutdown not completing in time")
    assert ("the management server sends the start order only after both of its waits "
            "succeed; node 3 will be left NOT_STARTED once stopped") in first.message
    last = problems[-1]
    assert last.not_started == (3,)
    assert "start it with 3 START" in last.message
    commands = [(r["event"], r["command"]) for r in audit.records()]
    assert ("sent", "3 START") in commands and ("reply", "3 START") in commands
    assert sim.cluster.data_nodes[3].state == "STARTED"


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    def call(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return call


def test_per_group_asks_for_its_phrase_and_yes_never_stands_for_it(
    run: Callable[..., tuple[int, str, str]], threaded_sim: Callable[..., object], tmp_path: Path
) -> None:
    sim = threaded_sim(four_nodes())
    cs = sim.connectstring  # type: ignore[attr-defined]
    log = str(tmp_path / "audit.log")
    # A dry run exits 1 when a run with these options would send nothing, as mgm --dry-run.
    status, out, err = run("rolling-restart", "-c", cs, "--per-group", "--dry-run")
    assert (status, err) == (1, "ndbtop: would need 'abort transactions' typed (--confirm)\n")
    assert out.endswith("verdict: allowed once 'abort transactions' is typed (--confirm); dry "
                        "run, nothing sent\n")
    assert "  1. 2 4 RESTART -a\n  2. 3 5 RESTART -a\n" in out
    assert ("(one node of every node group restarts at once with -a: the transactions on "
            "those nodes are aborted, not drained (the server refuses several nodes in one "
            "graceful request with 5031))") in out
    assert ("to confirm, type: abort transactions (scripts: --confirm 'abort transactions'; "
            "--yes never skips it)") in out
    status, out, err = run("rolling-restart", "-c", cs, "--per-group", "--yes",
                           "--audit-log", log)
    assert status == 1
    assert err == ("ndbtop: rolling restart not started: one node of every node group "
                   "restarts at once with -a: the transactions on those nodes are aborted, "
                   "not drained (the server refuses several nodes in one graceful request "
                   "with 5031): confirm with --confirm 'abort transactions' (--yes never "
                   "skips it); nothing was sent\n")
    status, out, err = run("rolling-restart", "-c", cs, "--per-group", "--yes",
                           "--confirm", "abort", "--audit-log", log)
    assert status == 1 and "is not the phrase this plan asks for" in err
    assert not Path(log).exists()
    status, out, err = run("rolling-restart", "-c", cs, "--per-group", "--dry-run",
                           "--confirm", "abort transactions")
    assert (status, err) == (0, "")
    assert out.endswith("verdict: allowed: a run with this --confirm starts it; dry run, "
                        "nothing sent\n")
    status, out, err = run("rolling-restart", "-c", cs, "--confirm", "abort transactions")
    assert status == 2 and "this plan asks for no typed phrase" in err
