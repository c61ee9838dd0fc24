"""The rolling restart's progress: one row per node of the plan, the running line, the summary.

Pure renderers of the run's state (what the engine reported, and when) into Rich
text; the screen keeps the state and redraws them on its timer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.table import Table

from ndbtop.durations import duration
from ndbtop.eta.rolling import RollingEta, RunTimes, plan_eta, restart_info_of
from ndbtop.eta.wording import eta_text
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP
from ndbtop.model.eta import Eta
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import timer_prefix
from ndbtop.ops.rolling import Decision, Gate, Progress, RollingPlan, RollingResult
from ndbtop.ops.wait import describe
from ndbtop.tui.format import status_text
from ndbtop.tui.safe import Text

_STYLES = {
    "waiting": "dim",
    "held at the gate": "bold yellow",
    "restarting": "bold yellow",
    "done": "green",
    "problem": "bold red",
    "failed": "bold red",
    "skipped": "yellow",
    "not restarted": "dim",
}


@dataclass
class NodeProgress:
    """Where one node of the plan is: waiting, held at the gate, restarting, done, problem,
    failed, skipped."""

    node_id: int
    node_group: int | None
    step: int
    state: str = "waiting"
    status: NodeStatus | None = None
    sent_at: float | None = None
    took: float | None = None


DECIDED = {Decision.RETRY: "waiting", Decision.SKIP: "skipped", Decision.ABORT: "failed",
           Decision.START: "restarting"}
"""The state a problem's nodes take once the problem is answered."""


def plan_rows(plan: RollingPlan, groups: Mapping[int, int | None]) -> dict[int, NodeProgress]:
    """One waiting row per node of the plan, in the plan's order."""
    return {
        node_id: NodeProgress(node_id, groups.get(node_id), step)
        for step, batch in enumerate(plan.batches, 1)
        for node_id in batch
    }


def mark_progress(rows: Mapping[int, NodeProgress], progress: Progress, now: float) -> None:
    """Move the reported nodes' rows along: restart sent, status seen, started, or problem."""
    batch: Sequence[NodeProgress] = [rows[n] for n in progress.batch if n in rows]
    if progress.step == "restart":
        for row in batch:
            row.state, row.status, row.sent_at = "restarting", None, now
    elif progress.step == "waiting":
        for n in progress.nodes:
            if n.node_id in rows:
                rows[n.node_id].status = n
    elif progress.step == "started":
        for row in batch:
            row.state = "done"
            row.took = now - row.sent_at if row.sent_at is not None else None
    elif progress.step == "problem":
        for row in batch:
            row.state = "problem"
    elif progress.step == "gate":
        for row in batch:
            row.state = "held at the gate"
    elif progress.step in ("gate cleared", "gate skipped"):
        for row in batch:
            row.state = "waiting"


def mark_result(rows: Mapping[int, NodeProgress], result: RollingResult | None) -> None:
    """Set every row to what the ended run did to it; the rest were not restarted."""
    if result is not None:
        for node_id in result.done:
            rows[node_id].state = "done"
        for node_id in result.skipped:
            rows[node_id].state = "skipped"
        if result.stopped_by is not None and result.stopped_by.kind != "gate":
            for node_id in result.stopped_by.batch:
                rows[node_id].state = "failed"
    for row in rows.values():
        if row.state in ("waiting", "restarting", "problem", "held at the gate"):
            row.state = "not restarted"


def steps_table(
    plan: RollingPlan,
    rows: Mapping[int, NodeProgress],
    timelines: Mapping[int, StartTimeline],
    now: float,
) -> Table:
    """Every step of the plan: its nodes, their group, the ``ndb_mgm`` command, and progress."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    table.add_column("step", justify="right")
    table.add_column("node", justify="right")
    table.add_column("group", justify="right")
    table.add_column("ndb_mgm>")
    table.add_column("progress")
    for step, batch in enumerate(plan.batches, 1):
        command = plan.action(batch).ndb_mgm()
        for i, node_id in enumerate(batch):
            row = rows[node_id]
            group = (
                "?" if row.node_group is None
                else "none" if row.node_group == NO_NODE_GROUP
                else str(row.node_group)
            )
            table.add_row(
                f"{step}." if i == 0 else "",
                str(node_id),
                group,
                command if i == 0 else "",
                progress_text(row, plan, timelines, now),
            )
    return table


def progress_text(
    row: NodeProgress,
    plan: RollingPlan,
    timelines: Mapping[int, StartTimeline],
    now: float,
) -> Text:
    """One node's state; while it restarts, its status, start phase and time spent."""
    text = Text(row.state, style=_STYLES.get(row.state, ""))
    if row.state == "restarting":
        n = row.status
        if n is not None:
            text.append(" · ")
            text.append_text(status_text(n.status, n.type))
            t = timelines.get(n.node_id)
            phase, spent = describe(n, t, now)
            if phase:
                text.append(f" {phase}")
            if spent is not None and t is not None:
                text.append(f" · {timer_prefix(t)}{int(spent)} s in phase")
        else:
            text.append(" · sent")
        if row.sent_at is not None:
            text.append(f" · {int(now - row.sent_at)} s", style="dim")
    elif row.state == "done" and row.took is not None:
        text.append(f" (took {int(row.took)} s)", style="dim")
    return text


def run_times(plan: RollingPlan, snap: ClusterSnapshot, *, initial: bool) -> RunTimes:
    """The steps' times of a run about to start, with the cluster's start history and
    ``restart_info`` to go by until a step of the run is done."""
    return RunTimes(plan.batches, history=snap.past_starts,
                    restart_info=restart_info_of(snap.ndbinfo), initial=initial)


def plan_time_text(plan: RollingPlan, snap: ClusterSnapshot, now: float, *,
                   initial: bool) -> Text:
    """``takes about 6m10s (3m05s–9m15s) · start history``, or why it is not estimated."""
    times = run_times(plan, snap, initial=initial)
    result = plan_eta(plan.batches, now, history=times.history,
                      restart_info=times.restart_info, initial=initial)
    if not isinstance(result, Eta):
        return Text(f"takes: not estimated, no history: {result.reason}", style="dim")
    text = Text("takes about ")
    text.append(f"{duration(result.seconds)} ({duration(result.low)}–{duration(result.high)})",
                style="bold")
    text.append(" · " + ", ".join(result.basis), style="dim")
    return text


def eta_lines(found: RollingEta) -> Text:
    """The whole run's estimate and the current step's, each with its basis."""
    text = Text("rolling restart: ")
    text.append(eta_text(found.run), style="bold" if isinstance(found.run, Eta) else "dim")
    if found.current is not None:
        text.append("\nthis step: ")
        text.append(eta_text(found.current),
                    style="bold" if isinstance(found.current, Eta) else "dim")
    return text


def running_text(step: int, count: int, elapsed: int, *, aborting: bool, paused: bool,
                 eta: RollingEta | None = None, gate: Gate | None = None,
                 ahead: Gate | None = None) -> Text:
    """The line under a running restart: the step, the time, the estimates, what holds (or
    would hold) the next step, and pause or abort."""
    text = Text(f"step {step}/{count} · {elapsed} s", style="bold")
    if eta is not None:
        text.append("\n")
        text.append_text(eta_lines(eta))
        if gate is not None:
            text.append(" (paused while the gate holds)", style="yellow")
    if gate is not None:
        text.append(f" · HELD at the gate before step {gate.step}", style="bold yellow")
    elif ahead is not None:
        ids = ", ".join(f.id for f in ahead.findings)
        text.append(f"\nnext step: step {ahead.step} will wait unless they clear: {ids}",
                    style="yellow")
    if aborting:
        text.append(" · ABORTING after the current step", style="bold red")
    elif paused:
        text.append(" · PAUSED before the next step (p resumes)", style="bold yellow")
    text.append("\np pause/resume · a abort · esc asks to abort", style="dim")
    return text


def summary(result: RollingResult, took: int) -> Text:
    """What the run did: the nodes restarted and skipped, and what stopped it."""
    line = f"restarted: {' '.join(map(str, result.done)) or 'none'}"
    if result.skipped:
        line += f"; skipped: {' '.join(map(str, result.skipped))}"
    ok = not result.aborted and not result.skipped
    text = Text(
        ("finished, " if ok else "")
        + line
        + ("; ABORTED" if result.aborted else "")
        + f" ({took} s)",
        style="bold green" if ok else "bold yellow",
    )
    problem = result.stopped_by
    if problem is not None:
        nodes = ("node " if len(problem.batch) == 1 else "nodes ") + " ".join(
            map(str, problem.batch)
        )
        text.append(
            f"\nrolling restart aborted at {nodes} ({problem.kind}): {problem.message}",
            style="bold red",
        )
    text.append("\nesc closes", style="dim")
    return text
