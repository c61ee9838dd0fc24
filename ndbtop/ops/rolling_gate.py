"""The rolling restart's gate: the findings that hold the run before its next step.

Node states say whether a node may restart; the findings say whether the cluster can take a
restart now. Before each step (and, to say it early, while a step runs) the run weighs the
findings true at that moment: a critical one, or a warning about redo space, the GCP, the
LCP or heartbeats (:data:`TOPICS`), or about the node group of a node the step restarts
(:data:`GROUP_RULES`), holds the run before the step. It goes on once they clear, or when the
operator skips the gate with :data:`GATE_PHRASE` (audited).

The gate judges what the findings can see: redo space needs a SQL node (ndbinfo), the GCP,
the LCP and heartbeats need the events, and a warning sent before ndbtop listened is not
seen (:func:`blind_spots` says which).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.findings import Finding, Severity, evaluate
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState

GATE_PHRASE = "skip the gate"
"""Typed to restart the next step while findings hold it (written to the audit log)."""

TOPICS: Mapping[str, str] = {
    "redo_part_filling": "redo space",
    "redo_buffer_full": "redo space",
    "gcp_save_lag": "the GCP",
    "gcp_commit_lag": "the GCP",
    "gcp_stop": "the GCP",
    "lcp_stalled": "the LCP",
    "missed_heartbeat": "heartbeats",
}
"""The findings whose warning holds the run whatever nodes they name: a node restart needs
redo space and checkpoints that complete, and a cluster missing heartbeats may lose the
partner that carries the restarting node's data."""

CRITICAL = "critical"
"""Why a critical finding holds the run: any does."""

GROUP_RULES = frozenset({"node_group_one_left", "node_group_down", "node_stopped"})
"""Findings about a node group: a warning holds the run when it is about the node group of a
node the next step restarts (a node of that group stopped on an error and not started again
leaves the step's node as the group's last copy)."""


@dataclass(frozen=True, **SLOTS)
class Gate:
    """The findings that hold step ``step`` (restarting ``batch``), with why each holds it."""

    step: int
    batch: tuple[int, ...]
    findings: tuple[Finding, ...]
    reasons: tuple[str, ...]
    """Why each finding holds the step (``critical``, ``a warning about the GCP``)."""

    @property
    def held(self) -> bool:
        """True while some finding holds the step."""
        return bool(self.findings)

    @property
    def identities(self) -> frozenset[tuple[str, str]]:
        """What the gate holds on, to tell a new finding from one already told."""
        return frozenset(f.identity for f in self.findings)

    def lines(self) -> tuple[str, ...]:
        """One line per finding: ``warning gcp_save_lag: GCP_SAVE lag 60 s ... (a warning
        about the GCP)`` (a critical one needs no reason)."""
        return tuple(f"{f.severity.value} {f.id}: {f.summary}"
                     + ("" if why == CRITICAL else f" ({why})")
                     for f, why in zip(self.findings, self.reasons))

    def text(self) -> str:
        """``step 2 (node 3) waits for: <finding>; <finding>``."""
        nodes = ("node " if len(self.batch) == 1 else "nodes ") + " ".join(map(str, self.batch))
        return f"step {self.step} ({nodes}) waits for: " + "; ".join(self.lines())


def gate_for(findings: Iterable[Finding], step: int, batch: Sequence[int],
             groups: Mapping[int, int | None], *, running: Sequence[int] = (),
             status: Sequence[NodeStatus] | None = None) -> Gate:
    """The gate of step ``step``, restarting ``batch``, given the findings true now.

    ``groups`` gives each data node's node group. While the nodes of ``running`` restart,
    a warning that their own node group is down to one node is what that restart does: it
    does not count. ``status`` is the run's own latest ``get status``: a finding about a
    node group counts only while that status shows a node of the group not STARTED (the
    findings may come from a reading taken before the last step's node was back).
    """
    mine = _groups_of(batch, groups)
    restarting = _groups_of(running, groups)
    down = None if status is None else _groups_of(
        (n.node_id for n in status if n.type == "NDB" and n.status != "STARTED"), groups)
    held: list[Finding] = []
    reasons: list[str] = []
    for f in findings:
        if f.id in GROUP_RULES and down is not None and not _groups_of(f.nodes, groups) & down:
            continue
        why = _why(f, mine, restarting, groups)
        if why is not None:
            held.append(f)
            reasons.append(why)
    return Gate(step, tuple(batch), tuple(held), tuple(reasons))


def _groups_of(nodes: Iterable[int], groups: Mapping[int, int | None]) -> set[int]:
    return {g for n in nodes if (g := groups.get(n)) is not None and g != NO_NODE_GROUP}


def _why(f: Finding, mine: set[int], restarting: set[int],
         groups: Mapping[int, int | None]) -> str | None:
    """Why ``f`` holds the step (None: it does not)."""
    about = _groups_of(f.nodes, groups)
    if f.severity is Severity.CRITICAL:
        return CRITICAL
    if f.severity is not Severity.WARNING:
        return None
    topic = TOPICS.get(f.id)
    if topic is not None:
        return f"a warning about {topic}"
    if f.id in GROUP_RULES and about & mine and not about <= restarting:
        names = ", ".join(map(str, sorted(about & mine)))
        return f"a warning about node group {names} of the step's nodes"
    return None


def interrupted_note(step: int, total: int, holding: Gate | None) -> str:
    """Where an interrupted run stopped: ``interrupted at step N of M`` (N: the steps sent),
    and the gate it was held at (``, held at the gate of step K``)."""
    note = f"interrupted at step {step} of {total}"
    return note + (f", held at the gate of step {holding.step}" if holding is not None
                   else "")


def current_findings(snap: ClusterSnapshot) -> tuple[Finding, ...]:
    """The findings of the snapshot whose condition holds now.

    The views keep a finding for a while after its condition went away (so that it does
    not flicker); the gate goes by what holds at this moment, so that a step goes on as
    soon as its findings clear. Each keeps the time it first held.
    """
    now = {f.identity for f in evaluate(snap)}
    return tuple(f for f in snap.findings if f.identity in now)


def blind_spots(snap: ClusterSnapshot) -> tuple[str, ...]:
    """What the gate cannot judge now, and why: redo space without a SQL node, the GCP, the
    LCP and heartbeats without the events."""
    out: list[str] = []
    if snap.live_ndbinfo() is None:
        src = snap.source("ndbinfo")
        why = (src.error if src is not None and src.error else
               "no SQL node" if src is None or src.state is SourceState.DISABLED
               else "the SQL node has not answered yet")
        out.append(f"redo space is not judged ({why}; --mysql-host names a SQL node)")
    events = snap.source("events")
    if events is None or events.state is not SourceState.CONNECTED:
        why = events.error if events is not None and events.error else "not listening"
        out.append(f"the GCP, the LCP and heartbeats are not judged (events: {why})")
    return tuple(out)
