"""What a rolling restart reports and decides: the decisions a problem or a gate waits for,
the problems that stop a step, each observation of the run, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.ops.rolling_gate import Gate


class Decision(Enum):
    """What to do about a problem."""

    RETRY = "retry"
    SKIP = "skip"
    ABORT = "abort"
    START = "start"
    """Start the nodes a failed restart wait left NOT_STARTED (``N START``)."""
    WAIT = "wait"
    """Wait for the findings that hold the next step to clear (the run goes on by itself)."""
    GO = "go"
    """Skip the gate: restart the next step although findings hold it (the operator typed
    :data:`GATE_PHRASE`; the audit log records it)."""


@dataclass(frozen=True, **SLOTS)
class Problem:
    """Why the run stopped: a refusal, a guard, a timeout or a failed node."""

    batch: tuple[int, ...]
    kind: str
    message: str
    not_started: tuple[int, ...] = ()
    """Nodes of the batch that are NOT_STARTED: they can be started (``N START``)."""


@dataclass(frozen=True, **SLOTS)
class Progress:
    """One observation during the run (for display and logs)."""

    batch: tuple[int, ...]
    step: str
    """``restart``, ``waiting``, ``started``, ``problem``; for the gate ``gate`` (the run
    waits before ``batch``), ``gate cleared``, ``gate skipped`` and ``gate ahead`` (seen
    while the step before runs: the next step will wait unless it clears)."""
    nodes: tuple[NodeStatus, ...] = ()
    message: str = ""
    gate: Gate | None = None
    """The findings that hold the step (gate reports)."""


@dataclass
class RollingResult:
    """What was restarted, skipped, and whether the run finished."""

    done: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    aborted: bool = False
    problems: list[Problem] = field(default_factory=list)
    stopped_by: Problem | None = None
    """The problem the run was aborted on (None when it finished or was aborted by hand)."""
