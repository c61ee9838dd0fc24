"""The gate's rule (which findings hold the next step of a rolling restart), the plan that
offers the nodes due for the current configuration first, and the estimate that names only
the sources it read."""

from __future__ import annotations

import pytest

from ndbtop.eta.rolling import plan_eta, restart_info_of
from ndbtop.findings import Evidence, Finding, Severity, Threshold
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.eta import EtaMissing
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.ops.rolling import plan_rolling
from ndbtop.ops.rolling_gate import GROUP_RULES, TOPICS, gate_for
from ndbtop.ops.rolling_plan import due_nodes

GROUPS = {2: 0, 3: 0, 4: 1, 5: 1}


def finding(rule: str, severity: Severity, *nodes: int) -> Finding:
    return Finding(rule, severity, f"{rule} summary", (Evidence("x", "1", "test"),),
                   Threshold("1", "ndbtop"), "advice", nodes=nodes)


def ndb(node_id: int, group: int, status: str = "STARTED") -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, 525315, 525315, 0, node_id, group, 1, "h")


@pytest.mark.parametrize(
    ("found", "holds"),
    [
        # Any critical finding, whatever it is about.
        (finding("memory_high", Severity.CRITICAL, 4), "critical"),
        # A warning about redo space, the GCP, the LCP or heartbeats, about any node.
        (finding("redo_part_filling", Severity.WARNING, 4), "a warning about redo space"),
        (finding("redo_buffer_full", Severity.WARNING, 5), "a warning about redo space"),
        (finding("gcp_save_lag", Severity.WARNING, 2), "a warning about the GCP"),
        (finding("gcp_commit_lag", Severity.WARNING, 2), "a warning about the GCP"),
        (finding("lcp_stalled", Severity.WARNING, 5), "a warning about the LCP"),
        (finding("missed_heartbeat", Severity.WARNING, 4), "a warning about heartbeats"),
        # The node group of the step's node (3 is in group 0; node 2 is down).
        (finding("node_group_one_left", Severity.WARNING, 3),
         "a warning about node group 0 of the step's nodes"),
        # Node 2 of the step's group stopped on an error and has not started again.
        (finding("node_stopped", Severity.WARNING, 2),
         "a warning about node group 0 of the step's nodes"),
        # Another group's, another warning, an info: not a reason to stop.
        (finding("node_stopped", Severity.WARNING, 4), None),
        (finding("node_group_one_left", Severity.WARNING, 5), None),
        (finding("memory_high", Severity.WARNING, 3), None),
        (finding("send_buffer_overload", Severity.WARNING, 3), None),
        (finding("config_not_applied", Severity.INFO, 3), None),
    ],
)
def test_what_holds_the_step_of_node_3(found: Finding, holds: str | None) -> None:
    status = [ndb(2, 0, "NO_CONTACT"), ndb(3, 0), ndb(4, 1, "NO_CONTACT"), ndb(5, 1)]
    gate = gate_for([found], 2, (3,), GROUPS, status=status)
    if holds is None:
        assert not gate.held
        return
    assert gate.findings == (found,) and gate.reasons == (holds,)
    suffix = "" if holds == "critical" else f" ({holds})"
    assert gate.text() == (f"step 2 (node 3) waits for: {found.severity.value} {found.id}: "
                           f"{found.id} summary{suffix}")


def test_every_topic_names_a_rule_the_findings_raise() -> None:
    from ndbtop.findings import RULE_IDS

    assert set(TOPICS) | GROUP_RULES <= set(RULE_IDS)


def test_the_restart_in_progress_does_not_hold_the_next_step_of_its_own_group() -> None:
    one_left = finding("node_group_one_left", Severity.WARNING, 3)
    restarting = [ndb(2, 0, "STARTING"), ndb(3, 0), ndb(4, 1), ndb(5, 1)]
    # While node 2 restarts, group 0 down to node 3 is what the run does.
    assert not gate_for([one_left], 2, (3,), GROUPS, running=(2,), status=restarting).held
    # Before the step, with node 2 still not back, it holds node 3.
    assert gate_for([one_left], 2, (3,), GROUPS, status=restarting).held
    # A finding read before node 2 was back, when the run's own status shows it STARTED.
    back = [ndb(2, 0), ndb(3, 0), ndb(4, 1), ndb(5, 1)]
    assert not gate_for([one_left], 2, (3,), GROUPS, status=back).held
    # A critical finding about the group holds even the next step while one runs.
    down = finding("node_group_down", Severity.CRITICAL, 2, 3)
    gone = [ndb(2, 0, "STARTING"), ndb(3, 0, "NO_CONTACT"), ndb(4, 1), ndb(5, 1)]
    assert gate_for([down], 2, (4,), GROUPS, running=(2,), status=gone).reasons == ("critical",)


def test_the_plan_offers_the_nodes_due_for_the_configuration_first() -> None:
    nodes = [ndb(2, 0), ndb(3, 0), ndb(4, 1), ndb(5, 1)]
    due = {2: False, 3: True, 4: True, 5: True}  # node 2 already restarted onto it
    plan = plan_rolling(nodes, due=due)
    assert plan.batches == ((3,), (4,), (5,), (2,))
    assert plan.notes == ("node 2 already runs the current configuration: restarted after the "
                          "nodes due",)
    assert due_nodes(plan, due) == (3, 4, 5)
    # One node per group at a time: each group's node due first, still one per group.
    assert plan_rolling(nodes, due=due, per_group=True).batches == ((3, 4), (2, 5))
    # Every node due, none, or one not known: the usual order, nothing said.
    for same in ({n: True for n in due}, {n: False for n in due}, {**due, 4: None}):
        plan = plan_rolling(nodes, due=same)
        assert plan.batches == ((2,), (3,), (4,), (5,)) and plan.notes == ()
        assert due_nodes(plan, same) is None


def test_the_estimate_names_restart_info_only_when_it_was_read() -> None:
    unread = plan_eta(((2,),), 0.0)
    assert isinstance(unread, EtaMissing)
    assert unread.reason == "no earlier start of node 2 (start history)"
    read = plan_eta(((2,),), 0.0, restart_info=())
    assert isinstance(read, EtaMissing)
    assert read.reason == "no earlier start of node 2 (start history, restart_info)"
    assert restart_info_of(None) is None
    assert restart_info_of(NdbinfoSample(0.0, None)) is None
    assert restart_info_of(NdbinfoSample(0.0, None, read_at=(("restart_info", 0.0),))) == ()


def test_the_dry_runs_last_line_names_each_rule_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # memory-full: both nodes' DataMemory past 95% hold step 1, one finding each.
    import argparse

    from ndbtop.cli.rolling_plan import dry_run_verdict
    from ndbtop.ops.rolling import RollingPlan

    held = gate_for([finding("memory_high", Severity.CRITICAL, 2),
                     finding("memory_high", Severity.CRITICAL, 3)], 1, (2,), GROUPS)
    args = argparse.Namespace(read_only=False, confirm=None)
    assert dry_run_verdict(args, RollingPlan(((2,), (3,))), held, text=False) == 1
    assert capsys.readouterr().err == "ndbtop: step 1 would wait at the gate for memory_high\n"
