"""Starts seen before: how long each phase took last time, to compare the start in progress.

A finished start of a node is kept phase by phase. The comparison for a phase
uses the same node's last start of the same kind, else any node's.

A phase is *slower than last time* when it has run more than
:data:`SLOWER_FACTOR` times as long as last time and at least
:data:`SLOWER_MIN_EXCESS_S` seconds longer: the ratio catches a phase that
slowed down in proportion, the margin keeps short phases (1 s last time, 3 s
now) quiet.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.phases import TYPICAL_DISK_MB_PER_S, StartTimeline, typical_seconds

SLOWER_FACTOR = 1.5
"""A phase is flagged once it runs more than this many times as long as last time..."""
SLOWER_MIN_EXCESS_S = 30.0
"""...and at least this many seconds longer than last time."""


@dataclass(frozen=True, **SLOTS)
class PastStart:
    """One completed start of one node."""

    node_id: int
    start_type: int | None
    finished_at: float
    phases: tuple[tuple[int, float], ...]
    total_s: float
    partial: bool = False
    """Seen only in part (ndbtop attached during it, or some phase's start or end was
    not seen): kept for the record, never a "last time"."""

    def seconds(self, phase: int) -> float | None:
        """How long ``phase`` took in this start."""
        return dict(self.phases).get(phase)


def past_start(t: StartTimeline) -> PastStart | None:
    """What to remember of a finished start: the phases whose start and end were both
    seen (by events, or measured on the host). A start not seen whole is partial."""
    if t.active or t.aborted or t.finished_at is None or not t.completed:
        return None
    exact = tuple((r.phase, round(r.seconds, 1)) for r in t.completed
                  if r.exact and r.seconds is not None)
    partial = not t.began_exact or len(exact) < len(t.completed)
    return PastStart(
        t.node_id,
        t.kind,
        t.finished_at,
        exact,
        round(t.elapsed_s(t.finished_at), 1),
        partial,
    )


def last_time(
    history: Sequence[PastStart], node_id: int, start_type: int | None, phase: int
) -> float | None:
    """Seconds ``phase`` took in the most recent comparable start, or None."""
    same_kind = [p for p in history if p.start_type == start_type and not p.partial
                 and p.seconds(phase) is not None]
    mine = [p for p in same_kind if p.node_id == node_id]
    pick = max(mine or same_kind, key=lambda p: p.finished_at, default=None)
    return None if pick is None else pick.seconds(phase)


def slower_than_last_time(spent: float, previous: float | None) -> bool:
    """True when a phase has run noticeably longer than last time: more than
    :data:`SLOWER_FACTOR` times as long, and at least :data:`SLOWER_MIN_EXCESS_S`
    seconds longer. False when there is no last time."""
    return (
        previous is not None
        and spent > SLOWER_FACTOR * previous
        and spent - previous >= SLOWER_MIN_EXCESS_S
    )


@dataclass(frozen=True, **SLOTS)
class PhaseVsLastTime:
    """One phase of a start in progress next to the same phase in the last comparable start."""

    phase: int
    seconds: float
    """How long the phase took, or has run so far when ``running``."""
    last_s: float
    running: bool
    slower: bool
    """:func:`slower_than_last_time`."""

    @property
    def ratio(self) -> float | None:
        """``seconds`` over ``last_s`` (None when last time took no measurable time)."""
        return self.seconds / self.last_s if self.last_s > 0 else None


def compare_with_last_time(
    history: Sequence[PastStart], timeline: StartTimeline, now: float
) -> dict[int, PhaseVsLastTime]:
    """The phases of a start in progress that have a last time (:func:`last_time`), by phase.

    Only a start still running is compared, and only with starts of the same
    kind (initial start, system restart, node restart, initial node restart): a
    start whose kind is unknown, or a phase no comparable start went through,
    gets nothing. ``now`` is on the timeline's clock (wall seconds).
    """
    kind = timeline.kind
    if not timeline.active or kind is None or not history:
        return {}
    out: dict[int, PhaseVsLastTime] = {}
    for record in timeline.completed:
        took = record.measured_s
        last = last_time(history, timeline.node_id, kind, record.phase)
        # A phase not seen from its beginning has no duration to set beside last time's.
        if last is not None and took is not None:
            out[record.phase] = PhaseVsLastTime(
                record.phase,
                took,
                last,
                False,
                slower_than_last_time(took, last),
            )
    phase = timeline.current_phase
    spent = timeline.in_phase_s(now)
    if phase is not None and spent is not None:
        last = last_time(history, timeline.node_id, kind, phase)
        if last is not None:
            out[phase] = PhaseVsLastTime(
                phase, spent, last, True, slower_than_last_time(spent, last)
            )
    return out


def cluster_key(nodes: Iterable[NodeStatus], name: str) -> str:
    """A stable name for a cluster: what the user calls it (its management hosts) and the
    ids and types of its nodes."""
    parts = sorted(f"{n.node_id}:{n.type}" for n in nodes)
    return hashlib.sha1((name + "|" + ";".join(parts)).encode()).hexdigest()[:16]


LAST_START = "this cluster's last start"
"""The basis of a normal duration measured in a remembered start (:func:`last_time`)."""
ASSUMED_RATE = f"redo log at an assumed {TYPICAL_DISK_MB_PER_S:.0f} MB/s"
"""The basis of the redo log creation's normal duration without a remembered start."""
TYPICAL = "ndbtop's typical"
"""The basis of any other phase's normal duration without a remembered start."""


@dataclass(frozen=True, **SLOTS)
class PhaseNormal:
    """How long a phase normally takes, and what that rests on (``basis``, said beside
    the figure so that an assumption is never taken for a measurement)."""

    seconds: float
    basis: str
    measured: bool
    """Taken from this cluster's last comparable start, not assumed."""

    def slow(self, spent: float) -> bool:
        """Past twice the normal; past a measured one by :data:`SLOWER_MIN_EXCESS_S` too,
        so that a phase of 1 s last time is not slow at 3 s."""
        return spent > 2 * self.seconds and (
            not self.measured or spent - self.seconds >= SLOWER_MIN_EXCESS_S)


def phase_normal(history: Sequence[PastStart], timeline: StartTimeline, phase: int,
                 redo_mb: int | None = None) -> PhaseNormal | None:
    """``phase``'s normal duration in ``timeline``'s start: this cluster's last comparable
    start (:func:`last_time`) where there is one, else the redo log's size at
    :data:`~ndbtop.model.phases.TYPICAL_DISK_MB_PER_S` for its creation, else ndbtop's
    typical (:func:`~ndbtop.model.phases.typical_seconds`); None where none can be given.
    ``redo_mb``: the redo log's size where known better than its reports' (the host's)."""
    last = last_time(history, timeline.node_id, timeline.kind, phase)
    if last is not None and last > 0:
        return PhaseNormal(last, LAST_START, True)
    if redo_mb is None and timeline.redo is not None:
        redo_mb = timeline.redo.total_mb
    typical = typical_seconds(phase, timeline.kind, redo_mb, timeline.redo_phase)
    if not typical:
        return None
    redo = timeline.redo_phase is not None and phase == timeline.redo_phase
    return PhaseNormal(typical, ASSUMED_RATE if redo else TYPICAL, False)
