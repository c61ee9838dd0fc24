"""Starts seen before: how long each phase took last time, to compare the start in progress.

A finished start of a node is kept phase by phase. The comparison for a phase
uses the same node's last start of the same kind, else any node's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.phases import StartTimeline

SLOWER_FACTOR = 1.5
"""A phase running this much longer than last time is flagged."""
SLOWER_MIN_SECONDS = 60.0
"""Phases shorter than this are never flagged."""


@dataclass(frozen=True, slots=True)
class PastStart:
    """One completed start of one node."""

    node_id: int
    start_type: int | None
    finished_at: float
    phases: tuple[tuple[int, float], ...]
    total_s: float

    def seconds(self, phase: int) -> float | None:
        """How long ``phase`` took in this start."""
        return dict(self.phases).get(phase)


def past_start(t: StartTimeline) -> PastStart | None:
    """What to remember of a timeline: only finished starts with exact durations."""
    if t.active or t.aborted or t.finished_at is None or not t.completed:
        return None
    return PastStart(
        t.node_id,
        t.kind,
        t.finished_at,
        tuple((r.phase, round(r.seconds, 1)) for r in t.completed),
        round(t.elapsed_s(t.finished_at), 1),
    )


def last_time(
    history: Sequence[PastStart], node_id: int, start_type: int | None, phase: int
) -> float | None:
    """Seconds ``phase`` took in the most recent comparable start, or None."""
    same_kind = [p for p in history if p.start_type == start_type and p.seconds(phase) is not None]
    mine = [p for p in same_kind if p.node_id == node_id]
    pick = max(mine or same_kind, key=lambda p: p.finished_at, default=None)
    return None if pick is None else pick.seconds(phase)


def slower_than_last_time(spent: float, previous: float | None) -> bool:
    """True when a phase runs well past its previous duration."""
    return previous is not None and spent >= SLOWER_MIN_SECONDS and spent > SLOWER_FACTOR * previous


def cluster_key(nodes: Iterable[NodeStatus], name: str) -> str:
    """A stable name for a cluster: what the user calls it (its management hosts) and the
    ids and types of its nodes."""
    parts = sorted(f"{n.node_id}:{n.type}" for n in nodes)
    return hashlib.sha1((name + "|" + ";".join(parts)).encode()).hexdigest()[:16]
