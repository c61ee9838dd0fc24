"""The rolling restart's pre-flight: refused with one line naming the reason, the plan and
the verdict on --dry-run, --force-degraded past a degraded cluster but never past the
server's hard rules, nodes in no node group last."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.ops.preflight import preflight
from ndbtop.ops.rolling import plan_rolling
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config

SERVER_5063 = "5063-Operation not allowed while nodes are starting or stopping."


def ndb(node_id: int, group: int | None, status: str = "STARTED") -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, 525315, 525315, 0, node_id, group, 1, "h")


HEALTHY = [ndb(2, 0), ndb(3, 0), ndb(4, 1), ndb(5, 1)]
CONFIG = ClusterConfig(
    generation=1, name="c", no_of_replicas=2,
    nodes=tuple(NodeConfig(n, "NDB") for n in (2, 3, 4, 5, 6)),
    data_nodes=(DataNodeConfig(2, 0), DataNodeConfig(3, 0), DataNodeConfig(4, 1),
                DataNodeConfig(5, 1), DataNodeConfig(6, NO_NODE_GROUP)),
)


def with_status(node_id: int, status: str, group: int | None = 0) -> list[NodeStatus]:
    return [ndb(node_id, group, status) if n.node_id == node_id else n for n in HEALTHY]


def test_a_healthy_cluster_may_begin() -> None:
    assert preflight(HEALTHY).text() == "pre-flight: ok"


@pytest.mark.parametrize(
    ("nodes", "reason"),
    [
        (with_status(3, "NO_CONTACT"),
         "data node 3 is NO_CONTACT: the management server cannot reach it"),
        (with_status(3, "SHUTTING_DOWN"), "data node 3 is stopping (SHUTTING_DOWN)"),
        (with_status(5, "NOT_STARTED", 1), "node group 1 misses node 5 (NOT_STARTED)"),
    ],
)
def test_a_degraded_cluster_is_refused_unless_forced(nodes: list[NodeStatus], reason: str) -> None:
    verdict = preflight(nodes, CONFIG)
    assert verdict.refusal == f"{reason} (--force-degraded restarts the other nodes)"
    forced = preflight(nodes, CONFIG, force_degraded=True)
    assert forced.ok and reason in forced.degraded


def test_server_rules_hold_even_when_forced() -> None:
    starting = preflight(with_status(5, "STARTING", 1), force_degraded=True)
    assert starting.refusal is not None and starting.refusal.startswith(
        f"{SERVER_5063} — data node 5 is STARTING"
    )
    single = [ndb(n.node_id, n.node_group, "SINGLE USER MODE") for n in HEALTHY]
    single.append(NodeStatus(9, "API", "CONNECTED", is_single_user=True))
    verdict = preflight(single, force_degraded=True)
    assert verdict.refusal is not None and verdict.refusal.startswith(
        f"{SERVER_5063} — the cluster is in single-user mode (API node 9 holds it)"
    )


def test_forced_run_leaves_out_what_the_server_would_refuse() -> None:
    # Node 3 is down: node 2 is the last started node of group 0 (5028 if restarted).
    nodes = with_status(3, "NO_CONTACT")
    verdict = preflight(nodes, CONFIG, force_degraded=True)
    assert dict(verdict.skipped) == {
        2: "the last started node of node group 0 (the server refuses: 5028)",
        3: "NO_CONTACT, not STARTED",
    }
    plan = plan_rolling(nodes, config=CONFIG, skip=verdict.skipped)
    assert plan.batches == ((4,), (5,))
    assert plan.notes[:2] == (
        "node 2 left out: the last started node of node group 0 (the server refuses: 5028)",
        "node 3 left out: NO_CONTACT, not STARTED",
    )


def test_nodes_in_no_node_group_come_last_and_the_plan_says_so() -> None:
    nodes = [ndb(6, None), *HEALTHY]
    plan = plan_rolling(nodes, config=CONFIG)
    assert plan.batches[-1] == (6,)
    assert plan.notes == ("node 6 in no node group (holds no data): restarted last",)


# The command line, against the simulator.

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def call(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return call


def cluster(*, no_group: bool = False) -> SimCluster:
    data: tuple[tuple[int, str, int | None], ...] = (
        (2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1))
    if no_group:
        data = (*data, (6, "10.0.0.6", None))
    c = SimCluster(simple_config("four", data, api=((7, None), (8, None)), max_exec_threads=4,
                                 connected_api=(7,)))
    c.boot_started()
    return c


def test_dry_run_of_a_healthy_cluster(run: Run, threaded_sim: Any) -> None:
    sim = threaded_sim(cluster(no_group=True))
    status, out, err = run("rolling-restart", "-c", sim.connectstring, "--dry-run", "--no-sql")
    assert (status, err) == (0, "")
    assert "  1. 2 RESTART\n" in out and "  5. 6 RESTART\n" in out
    assert "  (node 6 in no node group (holds no data): restarted last)\n" in out
    assert out.endswith(
        "pre-flight: ok\n"
        "gate: no finding holds step 1 now\n"
        "gate: redo space is not judged (--no-sql; --mysql-host names a SQL node)\n"
        "gate: the GCP, LCP and heartbeat warnings count from now: one sent before is seen "
        "when it repeats\n"
        "verdict: allowed: a run starts once answered yes (--yes); dry run, nothing sent\n")


def test_dry_run_under_read_only_says_a_run_is_refused(run: Run, threaded_sim: Any) -> None:
    sim = threaded_sim(cluster())
    status, out, err = run("--read-only", "rolling-restart", "-c", sim.connectstring,
                           "--dry-run", "--no-sql")
    assert status == 1
    assert "pre-flight: ok\n" in out
    assert out.endswith("verdict: refused: read-only (--read-only); dry run, nothing sent\n")
    assert err == "ndbtop: would be refused: read-only (--read-only)\n"
    # A run is refused at once, as mgm refuses a change: no plan, no question.
    status, out, err = run("--read-only", "rolling-restart", "-c", sim.connectstring,
                           "--no-sql", "--yes")
    assert (status, out) == (1, "")
    assert err == "ndbtop: refused: read-only (--read-only); nothing was sent\n"


def test_refused_run_prints_the_plan_and_one_line(run: Run, threaded_sim: Any) -> None:
    c = cluster()
    c.stop_nodes((3,))
    c.advance(10)
    sim = threaded_sim(c)
    for extra in ((), ("--dry-run",), ("--yes",)):
        status, out, err = run("rolling-restart", "-c", sim.connectstring, *extra)
        assert status == 1
        assert "pre-flight: refused: data node 3 is NO_CONTACT" in out
        assert out.endswith("verdict: refused (above); dry run, nothing sent\n") == (
            extra == ("--dry-run",))
        assert err == (
            "ndbtop: rolling restart refused: data node 3 is NO_CONTACT: the management "
            "server cannot reach it (--force-degraded restarts the other nodes)\n"
        )
    status, out, err = run("rolling-restart", "-c", sim.connectstring, "--dry-run",
                           "--force-degraded")
    assert (status, err) == (0, "")
    assert "2 step(s)" in out and "  1. 4 RESTART\n  2. 5 RESTART\n" in out
    assert "(node 2 left out: the last started node of node group 0" in out
    assert "(node 3 left out: NO_CONTACT, not STARTED)" in out
    assert "pre-flight: degraded, going on (--force-degraded): data node 3 is NO_CONTACT" in out


def test_single_user_mode_refuses_the_run_even_forced(run: Run, threaded_sim: Any) -> None:
    c = cluster()
    c.enter_single_user(7)
    sim = threaded_sim(c)
    status, _, err = run("rolling-restart", "-c", sim.connectstring, "--dry-run",
                         "--force-degraded")
    assert status == 1
    assert err == (
        f"ndbtop: rolling restart refused: {SERVER_5063} — the cluster is in single-user "
        "mode (API node 7 holds it): the management server refuses every restart, even "
        "with -f or -a; leave it with EXIT SINGLE USER MODE\n"
    )


def test_a_node_whose_group_is_not_known_is_not_called_groupless() -> None:
    plan = plan_rolling([ndb(2, 0), ndb(3, 0, "STARTING")])
    assert plan.batches == ((2,), (3,))
    assert plan.notes == (
        "node 3: node group not known (not STARTED, configuration not read)",
    )


def test_forced_run_with_every_node_left_out_says_so(run: Run, threaded_sim: Any) -> None:
    c = cluster()
    c.stop_nodes((3,))
    c.advance(10)
    sim = threaded_sim(c)
    status, out, err = run("rolling-restart", "-c", sim.connectstring, "--nodes", "2,3",
                           "--force-degraded", "--yes")
    assert status == 1
    assert "0 step(s)" in out
    assert err.startswith("ndbtop: rolling restart: no data node left to restart (node 2 left "
                          "out: the last started node of node group 0")
    assert err.count("\n") == 1


def test_dry_run_names_the_nodes_it_brings_onto_the_new_configuration(
    run: Run, threaded_sim: Any
) -> None:
    from ndbtop.sim.scenarios import CONFIG_CHANGE_AT, ScenarioOptions, build_scenario

    c = build_scenario("config-change", ScenarioOptions())
    c.advance_to(CONFIG_CHANGE_AT + 120)  # generation 5; node 2 restarted onto it
    assert {n: d.state for n, d in c.data_nodes.items()} == dict.fromkeys((2, 3, 4, 5),
                                                                          "STARTED")
    sim = threaded_sim(c, speed=1.0)
    status, out, err = run("rolling-restart", "-c", sim.connectstring, "--dry-run",
                           "--per-group", "--confirm", "abort transactions")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"plan for the cluster at management server {sim.connectstring}, "
                               "configuration generation 5 ")
    # Several nodes in one request only ever with -a: 5031 otherwise (server-rules.md §6).
    assert lines[0].endswith("2 step(s), one node per node group at a time, restarted "
                             "together with -a (abort: their transactions are aborted, not "
                             "drained), waiting for STARTED:")
    # Node 2 already runs generation 5: the nodes due come first, one per group at a time.
    assert lines[1:3] == ["  1. 3 4 RESTART -a", "  2. 2 5 RESTART -a"]
    assert lines[3] == ("configuration: brings node 3, 4, 5 onto configuration generation 5 "
                        "(still running an older one)")
    assert lines[4] == "  (only the nodes due: --nodes 3,4,5)"
    assert ("  (node 2 already runs the current configuration: restarted after the nodes "
            "due)") in lines
    status, out, _ = run("rolling-restart", "-c", sim.connectstring, "--dry-run")
    assert "  1. 3 RESTART\n  2. 4 RESTART\n  3. 5 RESTART\n  4. 2 RESTART\n" in out
    status, out, _ = run("rolling-restart", "-c", sim.connectstring, "--dry-run", "--nodes", "2")
    assert "1 step(s), one node at a time" in out
    assert "configuration: every node already runs configuration generation 5" in out


def test_initial_plan_says_what_each_initial_restart_does(run: Run, threaded_sim: Any) -> None:
    # The audit record of each step says the operator was told this: the plan tells it.
    sim = threaded_sim(cluster())
    status, out, err = run("rolling-restart", "-c", sim.connectstring, "--dry-run", "--initial")
    assert (status, err) == (0, "")
    assert ("  ! -i removes the node's file system: it copies all its data back from its node "
            "group (an initial node restart)\n") in out
    status, out, err = run("rolling-restart", "-c", sim.connectstring, "--dry-run")
    assert "  ! " not in out
