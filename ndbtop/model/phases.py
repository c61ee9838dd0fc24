"""Start-phase timelines: where each starting data node is, and how long each phase took.

A timeline is rebuilt from what the management server says: events
(``NDBStartStarted``, ``StartPhaseCompleted``, ``NDBStartCompleted``,
``LogFileInitStatus``) when the listener saw them, and ``get status``
transitions otherwise; durations taken from status polls are marked
approximate. ``get status`` reports the *last completed* phase, so the phase in
progress is the next one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.decode import Event, log_file_init, start_phase
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.redo_progress import RedoProgress, redo_after

PHASE_ORDER = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101)
"""Start phases in the order a data node goes through them (0: before phase 1 completes)."""

INITIAL_START = 0
SYSTEM_RESTART = 1
NODE_RESTART = 2
INITIAL_NODE_RESTART = 3

START_TYPE_SHORT = {
    0: "initial start",
    1: "system restart",
    2: "node restart",
    3: "initial node restart",
}

PHASE_NAMES: dict[int, str] = {
    0: "allocate memory",
    1: "connect, heartbeats",
    2: "master",
    3: "init variables",
    4: "restore or local start",
    5: "copy data, wait LCP",
    6: "update variables",
    7: "start arbitrator",
    8: "rebuild indexes",
    9: "update variables",
    100: "API connect",
    101: "subscription hand-over",
}
"""The one name of each start phase, whatever the kind of start (the manual's summary of the
start phases; NdbcntrMain.cpp ``startPhase2Lab`` asks the master to start, QMGR's
president starts the arbitrator in STTOR phase 7): every output names a phase from this
table (or ``redo log init``, see :func:`phase_name`), so a phase never
has two names depending on what an output knew of the start's kind."""

TYPICAL_DISK_MB_PER_S = 50.0
"""Disk speed assumed for the typical length of redo-log initialisation."""


REDO_INIT = "redo log init"
"""The name of the phase in which a node was seen initialising its redo log."""


def phase_name(phase: int, redo_phase: int | None = None) -> str:
    """Short name of a start phase (:data:`PHASE_NAMES`).

    ``redo_phase`` is the phase in which the node was seen initialising its redo log (by
    its events or on its host): that phase is named ``redo log init``. Which phase does
    it depends on the release, so no phase number alone is ever given that name.
    """
    if redo_phase is not None and phase == redo_phase:
        return REDO_INIT
    return PHASE_NAMES.get(phase, f"phase {phase}")


def next_phase(completed: int) -> int | None:
    """The phase that runs after ``completed`` (None after the last one)."""
    if completed not in PHASE_ORDER:
        later = [p for p in PHASE_ORDER if p > completed]
        return later[0] if later else None
    i = PHASE_ORDER.index(completed)
    return PHASE_ORDER[i + 1] if i + 1 < len(PHASE_ORDER) else None


def typical_seconds(
    phase: int, start_type: int | None, redo_total_mb: int | None, redo_phase: int | None = None
) -> float | None:
    """A normal duration for a phase, where one can be given without knowing the data size.

    Redo-log initialisation writes the whole redo log once, so its normal
    duration is the log size at :data:`TYPICAL_DISK_MB_PER_S`. Phases that
    restore or copy data depend on the data size and have no fixed norm.
    """
    if redo_phase is not None and phase == redo_phase:
        return redo_total_mb / TYPICAL_DISK_MB_PER_S if redo_total_mb else None
    if phase in (1, 2, 3, 6, 7, 9, 100):
        return 10.0
    if phase == 0:
        return 60.0
    if phase == 101:
        return 30.0
    if phase == 4 and start_type == NODE_RESTART:
        return 10.0
    return None


@dataclass(frozen=True, **SLOTS)
class PhaseRecord:
    """One completed phase: when it began, how long it took, and whether that is exact."""

    phase: int
    began_at: float
    seconds: float | None
    """How long the phase took; None when ndbtop did not see it run (it was over, or
    only its end was seen, when ndbtop first saw the node): a figure not seen is none."""
    exact: bool
    ended_by_event: bool = False
    """True when its ``StartPhaseCompleted`` event gave the end; False when a ``get
    status`` poll showed the phase done first (the event, when it comes, re-times it)."""
    lower_bound: bool = False
    """The phase was under way when ndbtop first saw the node: ``seconds`` counts from
    then, and the phase took at least that."""
    from_file: bool = False
    """Its end was read from the cluster log file (the management host's clock, to the
    second), not heard as an event (:mod:`ndbtop.model.start_file`)."""

    @property
    def measured_s(self) -> float | None:
        """``seconds`` when the phase was seen from its beginning (exactly or within a
        poll), else None."""
        return None if self.lower_bound else self.seconds


@dataclass(frozen=True, **SLOTS)
class StartTimeline:
    """One start of one data node, phase by phase (times are wall-clock epoch seconds)."""

    node_id: int
    start_type: int | None
    began_at: float
    began_exact: bool
    completed: tuple[PhaseRecord, ...] = ()
    current_phase: int | None = 0
    current_since: float = 0.0
    current_exact: bool = True
    finished_at: float | None = None
    aborted: bool = False
    redo: RedoProgress | None = None
    redo_phase: int | None = None
    """The phase in progress when the node was first seen initialising its redo log."""
    current_from: str = "event"
    """Where ``current_since`` comes from: ``event`` (the event that ended the phase
    before, or began the start), ``file`` (that event's line in the cluster log file, to
    the second), ``host`` (measured on the node's host), ``status`` (a change ``get
    status`` showed, within one poll) or ``first_seen`` (the moment ndbtop first saw the
    node: the time in the phase is a lower bound)."""
    began_from: str | None = "event"
    """Where ``began_at`` comes from: ``event`` (NDBStartStarted), ``file`` (its line in
    the cluster log file), ``host`` (the data node process's start on its host) or None
    (only when ndbtop first saw the start)."""
    finished_exact: bool = False
    """True when ``NDBStartCompleted`` ended the start; False when ``get status`` showed
    the node STARTED first, so the start's last events may still arrive (see
    :func:`apply_event`)."""

    @property
    def active(self) -> bool:
        """True while the node is still starting."""
        return self.finished_at is None and not self.aborted

    @property
    def in_phase_lower_bound(self) -> bool:
        """True when the time in the phase counts from ndbtop's first sight of the node."""
        return self.current_from == "first_seen"

    def in_phase_s(self, now: float) -> float | None:
        """Seconds spent so far in the phase in progress (a lower bound when
        :attr:`in_phase_lower_bound`)."""
        if not self.active or self.current_phase is None:
            return None
        return max(now - self.current_since, 0.0)

    def elapsed_s(self, now: float) -> float:
        """Seconds since the start began (until it finished): a lower bound unless
        :attr:`began_exact`."""
        end = self.finished_at if self.finished_at is not None else now
        return max(end - self.began_at, 0.0)

    @property
    def kind(self) -> int | None:
        """The start type; an unknown one with redo-log initialisation is an initial start."""
        if self.start_type is None and self.redo is not None:
            return INITIAL_START
        return self.start_type

    def name_of(self, phase: int) -> str:
        """The name of one of this start's phases (see :func:`phase_name`)."""
        return phase_name(phase, self.redo_phase)

    @property
    def last_completed(self) -> int | None:
        """The last completed phase, if any."""
        return self.completed[-1].phase if self.completed else None


def _rank(phase: int) -> float:
    return PHASE_ORDER.index(phase) if phase in PHASE_ORDER else float(phase)


def _complete(t: StartTimeline, phase: int, at: float, exact: bool) -> StartTimeline:
    done = [i for i, r in enumerate(t.completed) if r.phase == phase]
    if done and exact and not t.completed[done[0]].ended_by_event:
        return _retime(t, done[0], at)
    # A phase already completed, or one before the last completed (its event arriving
    # after a get status that showed a later phase done), changes nothing.
    if any(_rank(r.phase) >= _rank(phase) for r in t.completed):
        return t
    begin = t.current_since if t.current_phase == phase else at
    spent: float | None = max(at - begin, 0.0)
    lower_bound = False
    if t.current_from == "first_seen" and (t.current_phase == phase or at == t.current_since):
        # The phase began before ndbtop first saw the node: what ndbtop saw of it is a
        # lower bound, and nothing at all when it ended at that first sight.
        lower_bound = at > t.current_since
        spent = at - t.current_since if lower_bound else None
    record = PhaseRecord(phase, begin, spent, exact and t.current_exact and spent is not None
                         and not lower_bound, ended_by_event=exact, lower_bound=lower_bound)
    if exact:
        source = "event"
    else:
        # Phases folded in at the first sight of the node began no later than that.
        first_sight = t.began_from is None and at == t.began_at
        source = "first_seen" if first_sight else "status"
    return replace(
        t,
        completed=(*t.completed, record),
        current_phase=next_phase(phase),
        current_since=at,
        current_exact=exact,
        current_from=source,
    )


def _retime(t: StartTimeline, i: int, at: float) -> StartTimeline:
    """``t`` with its ``i``-th phase ended at ``at``, the time of its event.

    A poll can show phases done before their events arrive (events and ``get status``
    come over two connections): the events, in the order the node sent them, then give
    each phase its exact end, and the phase after it its begin.
    """
    records = list(t.completed)
    record = records[i]
    if record.seconds is None or record.lower_bound:
        # Begun before ndbtop first saw the node: the event gives its end, not its length.
        seconds = None if record.seconds is None else max(at - record.began_at, 0.0)
        records[i] = replace(record, seconds=seconds, ended_by_event=True, from_file=False)
    else:
        prev = records[i - 1] if i > 0 else None
        if prev is None:
            begin, begin_exact = t.began_at, t.began_exact
        elif prev.seconds is None:
            begin, begin_exact = record.began_at, False
        else:
            begin, begin_exact = prev.began_at + prev.seconds, prev.ended_by_event
        records[i] = replace(record, began_at=begin, seconds=max(at - begin, 0.0),
                             exact=begin_exact, ended_by_event=True, from_file=False)
    if i + 1 < len(records):
        after = records[i + 1]
        if after.seconds is not None and not after.lower_bound:
            end = after.began_at + after.seconds
            records[i + 1] = replace(after, began_at=at, seconds=max(end - at, 0.0),
                                     exact=after.ended_by_event)
        return replace(t, completed=tuple(records))
    return replace(t, completed=tuple(records), current_since=at, current_exact=True,
                   current_from="event")


def _closed_by_status(t: StartTimeline | None) -> StartTimeline | None:
    """``t`` when ``get status`` showed its start finished before the start's last events
    arrived, else None.

    The node reports its last phases and ``NDBStartCompleted`` before its state becomes
    STARTED (NDBCNTR ``sendNextSTTOR``), but events and ``get status`` reach ndbtop on
    two connections, so a poll can tell STARTED first. Those late events still belong
    to that start: a new start begins with ``NDBStartStarted`` or a STARTING status.
    """
    if t is None or t.active or t.aborted or t.finished_exact or t.finished_at is None:
        return None
    return t


def _late_phase(t: StartTimeline, phase: int, at: float) -> StartTimeline | None:
    """``t`` with ``phase`` completed at ``at`` by its event, when ``t`` still waits for
    that event (a phase never runs twice in one start); None otherwise."""
    if any(r.phase == phase and r.ended_by_event for r in t.completed):
        return None
    last = t.last_completed
    if last is not None and _rank(phase) > _rank(last):
        t = replace(t, current_phase=next_phase(last))
    elif last is None:
        t = replace(t, current_phase=phase)
    done = _complete(t, phase, at, True)
    if done.completed == t.completed:
        return None
    return replace(done, finished_at=max(t.finished_at or at, at), current_phase=None)


def _finish(t: StartTimeline, at: float) -> StartTimeline:
    return replace(t, finished_at=at, current_phase=None, finished_exact=True)


def apply_event(timelines: Mapping[int, StartTimeline], event: Event) -> dict[int, StartTimeline]:
    """Fold one management-server event into the timelines.

    The events of a start arrive in the order the node sends them
    (mgm-protocol.md §6): ``NDBStartStarted``, ``StartPhaseCompleted`` for each phase
    through 101, then ``NDBStartCompleted``. Those that arrive after ``get status``
    already showed the node STARTED still complete the same start.
    """
    out = dict(timelines)
    node = event.source_node
    at = event.received_at
    current = out.get(node)
    if event.type == 10:
        out[node] = StartTimeline(node, None, at, True, current_since=at)
    elif (sp := start_phase(event)) is not None:
        closed = _closed_by_status(current)
        late = _late_phase(closed, sp.phase, at) if closed is not None else None
        if late is not None:
            out[node] = late
            return out
        if current is None or not current.active:
            current = StartTimeline(
                node,
                sp.start_type,
                at,
                False,
                current_phase=sp.phase,
                current_since=at,
                current_exact=False,
                current_from="first_seen",
                began_from=None,
            )
        if current.start_type is None:
            current = replace(current, start_type=sp.start_type)
        out[node] = _complete(current, sp.phase, at, True)
    elif event.type == 11 and current is not None and current.active:
        if current.current_phase == 101:
            current = _complete(current, 101, at, True)
        out[node] = _finish(current, at)
    elif event.type == 11 and (closed := _closed_by_status(current)) is not None:
        # get status showed STARTED first: the start ended when the node said so.
        out[node] = _finish(closed, at)
    elif (init := log_file_init(event)) is not None:
        target = init.node_id or node
        timeline = out.get(target)
        if timeline is not None and timeline.active:
            redo = redo_after(timeline.redo, init, at, init.completed)
            out[target] = replace(timeline, redo=redo, redo_phase=redo_phase_of(timeline))
    return out


def redo_phase_of(t: StartTimeline) -> int | None:
    """The timeline's redo phase, or the phase in progress now that redo work is seen."""
    return t.redo_phase if t.redo_phase is not None else t.current_phase


def apply_status(
    timelines: Mapping[int, StartTimeline], nodes: Iterable[NodeStatus], now: float
) -> dict[int, StartTimeline]:
    """Fold one ``get status`` answer into the timelines (for what events did not tell)."""
    out = dict(timelines)
    for n in nodes:
        if n.type != "NDB":
            continue
        t = out.get(n.node_id)
        if n.status == "STARTING":
            if t is not None and not t.aborted and t.finished_at is not None \
                    and t.finished_at >= now:
                # Asked before the start's end arrived: the poll is older than that end.
                continue
            if t is None or not t.active:
                t = StartTimeline(
                    n.node_id, None, now, False, current_since=now, current_exact=False,
                    current_from="first_seen", began_from=None,
                )
            last = t.last_completed
            for phase in PHASE_ORDER[1:]:
                if phase > n.start_phase:
                    break
                if last is None or phase > last:
                    t = _complete(t, phase, now, False)
            out[n.node_id] = t
        elif t is not None and t.active and t.began_at <= now:
            # (A start that began after the status was asked for is newer than it.)
            if n.status == "STARTED":
                out[n.node_id] = replace(t, finished_at=now, current_phase=None)
            elif n.status in ("NO_CONTACT", "NOT_STARTED", "SHUTTING_DOWN", "UNKNOWN"):
                out[n.node_id] = replace(t, aborted=True, current_phase=None)
    return out


def phase_in_progress(node: NodeStatus, timeline: StartTimeline | None) -> int | None:
    """The start phase a STARTING node is in: the timeline's, or the one after the last
    completed phase ``get status`` reports; None when it reported the last one."""
    current = timeline.current_phase if timeline is not None and timeline.active else None
    return current if current is not None else next_phase(node.start_phase)


def phase_text(node: NodeStatus, timeline: StartTimeline | None = None) -> str:
    """Where a data node is in its start or stop, the one way every output names it.

    ``2 redo log init`` for a STARTING node (the phase in progress and its name;
    ``redo log init`` only for the phase the node was seen initialising its redo log in),
    ``done 101`` once it reported the last phase, ``stop level 3`` for a node
    SHUTTING_DOWN, ``""`` otherwise. The live view, ``--once`` (text and JSON), ``wait``,
    ``rolling-restart``, replay and the exporter all use it.
    """
    if node.status == "STARTING":
        current = phase_in_progress(node, timeline)
        if current is None:
            return f"done {node.start_phase}"
        redo_phase = timeline.redo_phase if timeline is not None else None
        return f"{current} {phase_name(current, redo_phase)}"
    if node.status == "SHUTTING_DOWN":
        return f"stop level {node.start_phase}"
    return ""
