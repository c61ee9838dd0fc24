"""When will a starting data node be STARTED: an estimate phase by phase.

:func:`estimate_start` is the one entry point (:func:`estimate_whole_start` the same for a
start not begun yet). It takes a :class:`StartEvidence` (the
start's timeline and what else is known: the configuration's memory and redo log sizes,
the redo initialisation's measured rate, ``restart_info`` of earlier restarts, the start
history) and returns an :class:`~ndbtop.model.eta.Eta` or the reason there is none.

Each phase still to run is estimated from the best evidence at hand, in this order:

- the phase creating the redo log, while it runs: the log still to create at the
  measured rate (events or host), the range from the slowest and fastest recent rates;
- phase 0 (allocate and touch memory): the configured memory at the rate this node
  showed last time, else at the field report's :data:`FIELD_MEMORY_BYTES_PER_S`;
- a phase ``restart_info`` measures (phases 1, 2, 3, 5, 101 of a node restart): this
  node's earlier restart, else a partner's, scaled by DataMemory in use;
- the same phase of the last comparable start (history), this node's before another's;
- a short phase with a fixed norm (:func:`typical_phase`);
- else nothing: the whole estimate is missing and says for which phase
  (``phase 5 (copy data, wait LCP): no restart_info, no past start``).

Each basis has a relative spread (:data:`SPREAD`): the weaker the basis, the wider the
range. Phases done count for nothing still to go; the phase in progress counts what is
left of its estimate, and once it has run past its estimate the range opens upwards.

An estimate is about what remains, so a start ndbtop attached to mid-way has one too. Its
phase in progress goes by the work left at the measured rate where there is one (the redo
log still to create), however long ago it began; otherwise by its usual length, the time
seen in it being a lower bound of the time spent: at most "usual - seen" still to go (down
to nothing: it may have begun long before), and an open upper end once it is past its
usual length. The basis then says so (:func:`attached_note`:
``attached mid-start: phase 4 began before 12:04:31``). Where the cluster log file dated
the phase's beginning (:mod:`ndbtop.model.start_file`), the phase goes as one seen from its
beginning, and the basis says that instead (``... began at 11:32:07 (the cluster log)``).
A start whose kind no event told is estimated as the kind the evidence points to, and the
basis says which and why (:func:`ndbtop.eta.start_kind.taken_kind`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.eta.in_progress import PhasePart, left_of, left_of_unseen, most_spent
from ndbtop.model.eta import Eta, EtaMissing, EtaResult, bounded
from ndbtop.model.history import PastStart
from ndbtop.model.phases import (
    INITIAL_NODE_RESTART,
    INITIAL_START,
    NODE_RESTART,
    PHASE_ORDER,
    StartTimeline,
    phase_name,
)
from ndbtop.model.start_evidence import clock_time

FIELD_MEMORY_BYTES_PER_S = 2.7e9
"""Allocate-and-touch speed of the field report S2 (about 2.7 GB/s)."""

SPREAD: dict[str, tuple[float, float]] = {
    "redo rate": (0.10, 0.10),
    "restart_info (this node)": (0.20, 0.25),
    "restart_info (partner)": (0.30, 0.40),
    "last start": (0.25, 0.30),
    "start history": (0.40, 0.60),
    "memory rate (field report)": (0.50, 1.00),
    "typical": (1.00, 3.00),
}
"""Per basis kind: (fraction below, fraction above) the value its range reaches. ndbtop's
judgement: a measured rate is tight, a figure from another node or start is looser, a norm
looser still."""
UNSCALED_EXTRA = 0.15
"""Added to both spreads of a partner's restart_info not scaled by DataMemory in use."""
ONE_RATE_EXTRA = 0.15
"""Added to both spreads of a redo rate measured only once (no trend seen yet)."""
ATTACHED = "attached mid-start"
"""The first words of the basis of an estimate whose phase in progress began before ndbtop
first saw it (:func:`attached_note`)."""


@dataclass(frozen=True)
class RedoRate:
    """The redo log initialisation in progress, as measured.

    ``remaining_mb`` is the log still to create; ``mb_per_s`` the latest rate (MB of log
    per second), ``slowest``/``fastest`` the extremes of the recent rates; ``source`` is
    ``events`` or ``host``.
    """

    source: str
    remaining_mb: float
    mb_per_s: float
    slowest: float
    fastest: float
    samples: int = 1


@dataclass(frozen=True)
class RestartReference:
    """Phase durations a node restart took, from ``restart_info``.

    ``node_id`` is the node that restarted; ``scale`` multiplies the phases that move data
    (DataMemory in use now over then), None when it could not be measured.
    """

    node_id: int
    phases: tuple[tuple[int, float], ...]
    scale: float | None = None

    def seconds(self, phase: int) -> float | None:
        """How long ``phase`` took in that restart."""
        return dict(self.phases).get(phase)


@dataclass(frozen=True)
class StartEvidence:
    """What an estimate of one node's start rests on.

    ``now`` is on the timeline's clock (wall seconds). ``memory_bytes`` is what phase 0
    allocates and touches (DataMemory and the buffers configured beside it);
    ``redo`` is given only while the node creates its redo log in the phase in progress;
    ``references`` are ``restart_info`` rows, the best first. ``taken_kind`` is the kind
    of start the evidence points to when no event told it, with why
    (:func:`ndbtop.eta.start_kind.taken_kind`).
    """

    timeline: StartTimeline
    now: float
    memory_bytes: int | None = None
    redo: RedoRate | None = None
    references: tuple[RestartReference, ...] = ()
    history: tuple[PastStart, ...] = ()
    poll_interval: float = 0.0
    taken_kind: tuple[int, str] | None = None

    @property
    def kind(self) -> int | None:
        """The start type: the one an event told, else the one taken, else the timeline's
        own inference."""
        t = self.timeline
        if t.start_type is not None:
            return t.start_type
        if self.taken_kind is not None:
            return self.taken_kind[0]
        return t.kind


DATA_PHASES = frozenset({5})
"""Phases of a node restart whose length follows the data (restore, redo, index rebuild,
copy, wait for LCP): scaled by DataMemory in use."""


def estimate_start(evidence: StartEvidence) -> EtaResult | None:
    """The estimate of the time to STARTED, or why there is none; None when the node is
    not starting."""
    t = evidence.timeline
    if not t.active:
        return None
    if evidence.kind is None:
        return EtaMissing(KIND_UNKNOWN)
    if _redo_ahead(evidence):
        return EtaMissing("redo log init not begun yet: no rate, no past start")
    parts = phase_parts(evidence)
    if isinstance(parts, EtaMissing):
        return parts
    ahead = [p for p in parts if not p.done]
    seconds = sum(p.seconds for p in ahead)
    low = sum(p.low for p in ahead)
    high = sum(p.high for p in ahead)
    weight: dict[str, float] = {}
    for p in ahead:
        weight[p.basis] = weight.get(p.basis, 0.0) + max(p.seconds, 1e-6)
    basis = tuple(sorted(weight, key=lambda b: -weight[b]))
    if any(p.done for p in parts):
        basis = (*basis, "phases done")
    basis = (*basis, *notes(evidence))
    return bounded(Eta(seconds, min(low, seconds), max(high, seconds), evidence.now, basis))


KIND_UNKNOWN = ("kind of start not known yet: no start-phase event, no redo log creation seen "
                "(an initial start's: progress reports or --ssh show it), no data node "
                "started (a node restart's)")
"""Why a start whose kind nothing tells has no estimate: a system restart and an initial
start before its redo log creation is seen look the same."""


def attached_note(t: StartTimeline) -> str | None:
    """``attached mid-start: phase 4 began before 12:04:31`` when the phase in progress
    began before ndbtop first saw it; ``attached mid-start: phase 4 began at 11:32:07 (the
    cluster log)`` when the cluster log file dated its beginning; else None."""
    if not t.active or t.current_phase is None:
        return None
    since = clock_time(t.current_since)
    if t.current_from == "file":
        return f"{ATTACHED}: phase {t.current_phase} began at {since} (the cluster log)"
    if t.current_from != "first_seen":
        return None
    return f"{ATTACHED}: phase {t.current_phase} began before {since}"


def notes(evidence: StartEvidence) -> tuple[str, ...]:
    """What the basis says beside the evidence weighed: the start attached to mid-way, and
    the kind of start taken (and why) when no event told it."""
    out = []
    note = attached_note(evidence.timeline)
    if note is not None:
        out.append(note)
    if evidence.timeline.start_type is None and evidence.taken_kind is not None:
        out.append(evidence.taken_kind[1])
    return tuple(out)


def estimate_whole_start(node_id: int, kind: int, now: float, *,
                         memory_bytes: int | None = None,
                         references: tuple[RestartReference, ...] = (),
                         history: tuple[PastStart, ...] = ()) -> EtaResult:
    """How long a start of ``node_id`` that has not begun yet would take (from ``now``),
    on the same evidence as :func:`estimate_start`: for a rolling restart's nodes still to
    go. ``kind`` is the start type (:data:`~ndbtop.model.phases.NODE_RESTART`...)."""
    t = StartTimeline(node_id, kind, now, True, current_since=now)
    result = estimate_start(StartEvidence(t, now, memory_bytes=memory_bytes,
                                          references=references, history=history))
    return result if result is not None else EtaMissing("not starting")


def phase_parts(evidence: StartEvidence) -> tuple[PhasePart, ...] | EtaMissing:
    """Every phase of the start: those done with their actual durations, the one in
    progress and those ahead with their estimates; or why a phase has none."""
    t = evidence.timeline
    # A phase done that ndbtop did not see from its beginning has no duration to give.
    out = [PhasePart(r.phase, t.name_of(r.phase), s, s, s, "done", True)
           for r in t.completed if (s := r.measured_s) is not None]
    current = t.current_phase
    if current is None:
        return tuple(out)
    ahead = [p for p in PHASE_ORDER if PHASE_ORDER.index(p) >= _index(current)]
    for phase in ahead:
        part = _phase_estimate(evidence, phase)
        if part is None:
            return EtaMissing(f"phase {phase} ({phase_name(phase, t.redo_phase)})"
                              f": {_why_none(evidence, phase)}")
        if phase == current and not part.basis.startswith("redo rate"):
            seen = t.in_phase_s(evidence.now) or 0.0
            if t.current_from == "first_seen":
                part = left_of_unseen(part, seen, most_spent(t, evidence.now))
            else:
                part = left_of(part, seen, evidence.poll_interval, t.current_from)
        out.append(part)
    return tuple(out)


def _redo_ahead(evidence: StartEvidence) -> bool:
    """True for an initial start (or initial node restart) whose redo log creation is still
    ahead with nothing to say how long it takes: which phase will hold it depends on the
    release (redo-init.md §2), so no phase's norm may stand for it."""
    t = evidence.timeline
    kind = evidence.kind
    if kind not in (INITIAL_START, INITIAL_NODE_RESTART):
        return False
    if t.redo_phase is not None or t.redo is not None or evidence.redo is not None:
        return False
    return not any(p.start_type == kind and not p.partial for p in evidence.history)


def _index(phase: int) -> int:
    if phase in PHASE_ORDER:
        return PHASE_ORDER.index(phase)
    return len([p for p in PHASE_ORDER if p < phase])


def _why_none(evidence: StartEvidence, phase: int) -> str:
    t = evidence.timeline
    if phase == t.redo_phase or (phase == t.current_phase and t.redo is not None):
        return "no rate measured, no past start"
    if phase == 0:
        return "no configuration (DataMemory), no past start"
    return "no restart_info, no past start"


def _part(phase: int, name: str, value: float, basis: str, kind: str | None = None,
          extra: float = 0.0) -> PhasePart:
    below, above = SPREAD[kind or basis]
    below, above = min(below + extra, 1.0), above + extra
    return PhasePart(phase, name, value, value * (1 - below), value * (1 + above), basis)


def _phase_estimate(evidence: StartEvidence, phase: int) -> PhasePart | None:
    t = evidence.timeline
    name = t.name_of(phase)
    redo = evidence.redo
    if redo is not None and phase == t.current_phase:
        return _redo_part(phase, name, redo)
    kind = evidence.kind
    if phase == 0 and evidence.memory_bytes:
        last = _history(evidence, 0, any_kind=True, own_only=True)
        if last is not None and last[0] > 0:
            return _part(0, name, last[0], "last start")
        return _part(0, name, evidence.memory_bytes / FIELD_MEMORY_BYTES_PER_S,
                     "memory rate (field report)")
    if kind in (NODE_RESTART, INITIAL_NODE_RESTART):
        for ref in evidence.references:
            seconds = ref.seconds(phase)
            if seconds is None:
                continue
            own = ref.node_id == t.node_id
            extra = 0.0
            if phase in DATA_PHASES:
                if ref.scale is not None:
                    seconds *= ref.scale
                elif not own:
                    extra = UNSCALED_EXTRA
            label = "restart_info (this node)" if own else f"restart_info (node {ref.node_id})"
            return _part(phase, name, seconds, label,
                         "restart_info (this node)" if own else "restart_info (partner)", extra)
    found = _history(evidence, phase)
    if found is not None:
        seconds, node = found
        if node == t.node_id:
            return _part(phase, name, seconds, "last start")
        return _part(phase, name, seconds, f"start history (node {node})", "start history")
    typical = typical_phase(phase, kind, t.redo_phase)
    if typical is not None:
        return _part(phase, name, typical, "typical")
    return None


def _redo_part(phase: int, name: str, redo: RedoRate) -> PhasePart:
    left = max(redo.remaining_mb, 0.0)
    below, above = SPREAD["redo rate"]
    if redo.samples < 2:
        below, above = below + ONE_RATE_EXTRA, above + ONE_RATE_EXTRA
    value = left / redo.mb_per_s
    low = left / max(redo.fastest, redo.mb_per_s) * (1 - below)
    high = left / min(redo.slowest, redo.mb_per_s) * (1 + above)
    return PhasePart(phase, name, value, low, high, f"redo rate ({redo.source})")


def _history(evidence: StartEvidence, phase: int, any_kind: bool = False,
             own_only: bool = False) -> tuple[float, int] | None:
    """(seconds, node) of ``phase`` in the most recent comparable whole start: this
    node's first, else another node's."""
    t = evidence.timeline
    usable = [p for p in evidence.history if not p.partial and p.seconds(phase) is not None
              and (any_kind or p.start_type == evidence.kind)]
    mine = [p for p in usable if p.node_id == t.node_id]
    pick = max(mine or ([] if own_only else usable), key=lambda p: p.finished_at, default=None)
    if pick is None:
        return None
    seconds = pick.seconds(phase)
    return None if seconds is None else (seconds, pick.node_id)


SHORT_PHASES = frozenset({1, 2, 3, 6, 7, 9, 100})
"""Phases that do no work in proportion to the data (heartbeats, arbitration, variables)."""


def typical_phase(phase: int, kind: int | None, redo_phase: int | None) -> float | None:
    """A norm for a phase that does little whatever the data: ``None`` for the phases that
    restore, copy or rebuild data, or create the redo log (they have no fixed length).

    An initial start has no data to restore or index: its phases 4, 5 and 8 are short too
    (ndbtop's judgement, as the field log of S1 shows: phases 5 to 101 in 5 s). A node
    restart does its local recovery, index rebuild included, in phase 5 (``restart_info``
    measures it): its phases 4 and 8 are short.
    """
    if redo_phase is not None and phase == redo_phase:
        return None
    if phase in SHORT_PHASES:
        return 2.0
    if phase == 101:
        return 10.0
    if kind in (NODE_RESTART, INITIAL_NODE_RESTART) and phase in (4, 8):
        return 2.0
    if kind == INITIAL_START and phase in (4, 5, 8):
        return 5.0
    return None
