"""The rolling restart before it starts: the exact requests, and the pre-flight verdict.

Nothing is sent until Start; these renderers show what each step will send to
the management server and whether the live state lets the first step go.
"""

from __future__ import annotations

from ndbtop.actions.commands import wire_text
from ndbtop.model.config import pending_restarts
from ndbtop.model.freshness import stale_blocker
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ops.preflight import Verdict
from ndbtop.ops.rolling import RollingPlan, check_batch, configuration_note
from ndbtop.ops.rolling_gate import blind_spots, current_findings, gate_for
from ndbtop.tui.safe import Text

INITIAL_CONFIRM = "initial"
"""What to type to start a rolling restart with ``-i`` (every node rebuilds from its partners)."""


def confirm_phrase(plan: RollingPlan) -> str | None:
    """What must be typed before Start: ``initial`` for -i, the plan's own phrase (for
    abort restarts of one node per node group, or on a production context), both joined
    by ``and``; None for neither."""
    parts = [p for p in (INITIAL_CONFIRM if plan.initial else None, plan.phrase) if p]
    return " and ".join(parts) or None


def mode_text(plan: RollingPlan, per_group: bool) -> str:
    """How the plan restarts the nodes, for the dialog's title."""
    if plan.aborts:
        return ("one node per node group at a time, together with -a: their transactions "
                "are aborted, not drained")
    return "one node per node group at a time" if per_group else "one node at a time"


EXPLAINED = (
    "Nothing is sent until you start (S or the Start button). Each step waits for its "
    "nodes to be STARTED again; a node whose node-group partner is not STARTED is never "
    "restarted."
)


def requests_text(plan: RollingPlan) -> Text:
    """The request each step sends, line ends shown as ``⏎``."""
    text = Text("each step sends to the management server (⏎ = end of line):\n", style="dim")
    for step, batch in enumerate(plan.batches, 1):
        wire = wire_text(plan.action(batch))
        text.append(f"{step}. ", style="dim")
        text.append("⏎".join(wire.split("\n")) + "\n", style="cyan")
    return text


def plan_notes_text(plan: RollingPlan, snap: ClusterSnapshot) -> Text:
    """The plan's notes (nodes left out or last) and the configuration the restart brings
    its nodes onto, as ``ndbtop rolling-restart --dry-run`` prints them."""
    text = Text()
    for note in plan.notes:
        text.append(f"({note})\n", style="yellow")
    config = snap.config
    if config is not None:
        pending = pending_restarts(config, snap.live_ndbinfo())
        note = configuration_note(plan, config, pending)
        if note is None:
            text.append(
                f"configuration: generation {config.generation}; which nodes still run an "
                "older one needs a SQL node (ndbinfo.nodes)\n", style="dim")
        else:
            behind = any(pending.get(n) for batch in plan.batches for n in batch)
            text.append(f"configuration: {note}\n", style="bold yellow" if behind else "")
    return text


def preflight_text(plan: RollingPlan, verdict: Verdict, snap: ClusterSnapshot) -> Text:
    """The pre-flight verdict, whether step 1 may go, and the findings that would hold it at
    the gate now (and what the gate cannot judge)."""
    text = Text()
    line = Text()
    if not verdict.ok:
        line.append(f"✖ {verdict.text()}\n", style="bold red")
    else:
        style = "yellow" if verdict.degraded else "green"
        line.append(verdict.text(), style=style)
        line.append("  ·  " if not verdict.degraded else "\n")
    if plan.batches:
        guard = stale_blocker(snap) or check_batch(
            plan.batches[0], snap.data_nodes(), snap.config, plan.groups
        )
        if guard is not None and verdict.ok:
            text.append(f"✖ step 1 would stop now: {guard}\n", style="bold red")
        gate = gate_for(current_findings(snap), 1, plan.batches[0], dict(plan.groups),
                        status=snap.data_nodes())
        if gate.held:
            text.append("step 1 would wait now at the gate for:\n", style="bold yellow")
            for held in gate.lines():
                text.append(f"  {held}\n", style="yellow")
        for why in blind_spots(snap):
            text.append(f"gate: {why}\n", style="dim")
    else:
        text.append("no data node to restart\n", style="bold red")
    text.append_text(line)
    text.append("esc cancels", style="dim")
    return text
