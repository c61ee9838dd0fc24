"""A start ndbtop came to late, dated from the cluster log file.

The management server writes each start event into its cluster log file (``Start
initiated``, ``Start phase 4 completed (initial start)``, ``Started``, the redo log's
progress), each line stamped with the management host's clock, to the second. When ndbtop
did not see a start begin, those lines tell what its first sight could not: when the start
began and of what kind, when each phase ended and so when the one in progress began, and
where the redo log creation stands, at what rate (:mod:`ndbtop.model.redo_file`).

Only the node's current start counts: its lines from its last ``Start initiated`` on, or,
when that line is not in what was read, from the phase line after which the phases went
back, or after the node's last ``Started`` or shutdown. The lines go through the rules the
events go through (:func:`~ndbtop.model.phases.apply_event`), then what ndbtop saw itself
is laid over them: a phase end it heard as an event keeps its own, finer, time; phases
``get status`` showed done past the file's last line stay as ``get status`` showed them,
and the one of them the file saw begin takes that beginning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.decode import start_phase
from ndbtop.model.phases import PHASE_ORDER, StartTimeline, apply_event
from ndbtop.model.redo_file import file_progress
from ndbtop.model.redo_progress import with_file

FILE_SLACK_S = 2.0
"""How far the file's time of a moment may be from ndbtop's: a line's time is truncated to
the second, and stamped when the management server wrote it."""
START_INITIATED, STARTED = 10, 11
STOPS = frozenset({53, 59})
"""NDBStopCompleted and NDBStopForced: the node's start, if any, ended there."""
REDO = frozenset({71, 72})
"""LogFileInitStatus and LogFileInitCompStatus."""


def _rank(phase: int) -> float:
    return PHASE_ORDER.index(phase) if phase in PHASE_ORDER else float(phase)


def start_lines(lines: Sequence[LogLine], node_id: int) -> list[LogLine]:
    """The file's lines of ``node_id``'s last start (oldest first), empty when its last
    start ended in the file (``Started``, a shutdown) or none is there."""
    segment: list[LogLine] = []
    last: float | None = None
    for ln in lines:
        e = ln.event
        if e is None or e.malformed or ln.time is None or e.source_node != node_id:
            continue
        if e.type == START_INITIATED:
            segment, last = [ln], None
        elif (sp := start_phase(e)) is not None:
            if last is not None and _rank(sp.phase) <= last:
                # A phase again: another start, whose first line was not read.
                segment = []
            segment.append(ln)
            last = _rank(sp.phase)
        elif e.type == STARTED or e.type in STOPS:
            segment, last = [], None
        elif e.type in REDO and segment:
            segment.append(ln)
    return segment


def file_timeline(node_id: int, segment: Sequence[LogLine]) -> StartTimeline | None:
    """The start the lines of :func:`start_lines` tell, marked as read from the file;
    None when they tell no start in progress."""
    timelines: dict[int, StartTimeline] = {}
    redo_phase = None
    redo = []
    for ln in segment:
        assert ln.event is not None
        if ln.event.type in REDO:
            t = timelines.get(node_id)
            if redo_phase is None and t is not None:
                redo_phase = t.current_phase
            redo.append(ln)
        else:
            timelines = apply_event(timelines, ln.event)
    t = timelines.get(node_id)
    if t is None or not t.active:
        return None
    return replace(
        t,
        completed=tuple(replace(r, from_file=True) for r in t.completed),
        current_from="file" if t.current_from == "event" else t.current_from,
        began_from="file" if t.began_from == "event" else t.began_from,
        redo=file_progress(redo),
        redo_phase=redo_phase,
    )


def same_start(t: StartTimeline, f: StartTimeline) -> bool:
    """Whether the file's start ``f`` is ndbtop's ``t``: it began when ndbtop heard ``t``
    begin, or no later than ndbtop first saw ``t`` (when the file holds its beginning), and
    not before the node's process started (when the host told that)."""
    if f.began_from == "file" and f.began_at > t.began_at + FILE_SLACK_S:
        return False
    if t.began_from in ("event", "host"):
        return f.began_at >= t.began_at - FILE_SLACK_S
    return True


def dated(t: StartTimeline, f: StartTimeline) -> StartTimeline:
    """``t`` (ndbtop's timeline of an active start) with what the file's timeline ``f`` of
    the same start dates."""
    first = _rank(f.completed[0].phase) if f.completed else float("inf")
    last = _rank(f.completed[-1].phase) if f.completed else float("-inf")
    heard = {r.phase: r for r in t.completed
             if r.ended_by_event and not r.from_file and r.exact}
    completed = [r for r in t.completed if _rank(r.phase) < first]
    completed += [heard.get(r.phase, r) for r in f.completed]
    beyond = [r for r in t.completed if _rank(r.phase) > last]
    current = f
    if beyond:
        # get status showed phases done past the file's last line: the first of them began
        # when the file says, and ended as ndbtop saw it.
        r = beyond[0]
        if r.phase == f.current_phase and (r.seconds is None or r.lower_bound):
            end = r.began_at + (r.seconds or 0.0)
            seconds = None if r.seconds is None else max(end - f.current_since, 0.0)
            beyond[0] = replace(r, began_at=f.current_since, seconds=seconds,
                                lower_bound=False,
                                exact=r.ended_by_event and seconds is not None)
        completed += beyond
        current = t
    elif t.current_phase == f.current_phase and t.current_from == "event":
        current = t
    if t.began_from == "event":
        began = (t.began_at, t.began_exact, t.began_from)
    elif f.began_from == "file":
        began = (f.began_at, True, "file")
    elif t.began_from == "host":
        began = (t.began_at, t.began_exact, t.began_from)
    else:
        began = (min(t.began_at, f.began_at), False, None)
    return replace(
        t,
        start_type=t.start_type if t.start_type is not None else f.start_type,
        began_at=began[0], began_exact=began[1], began_from=began[2],
        completed=tuple(completed),
        current_phase=current.current_phase, current_since=current.current_since,
        current_exact=current.current_exact, current_from=current.current_from,
        redo=with_file(t.redo, f.redo) if f.redo is not None else t.redo,
        redo_phase=f.redo_phase if f.redo_phase is not None else t.redo_phase,
    )


def wants_file(t: StartTimeline) -> bool:
    """Whether the file may tell more of an active start than ndbtop saw: its beginning,
    the phase in progress's, or a phase's end only ``get status`` showed (a listener gap,
    or ndbtop came late)."""
    return t.active and (t.began_from != "event" or t.current_from != "event"
                         or any(not r.ended_by_event for r in t.completed))


def apply_file(timelines: Mapping[int, StartTimeline], lines: Sequence[LogLine]
               ) -> dict[int, StartTimeline]:
    """The timelines with every active start the cluster log file's ``lines`` (merged,
    oldest first) tell more of (:func:`wants_file`) dated from them."""
    out = dict(timelines)
    if not lines:
        return out
    for node_id, t in timelines.items():
        if not wants_file(t):
            continue
        f = file_timeline(node_id, start_lines(lines, node_id))
        if f is not None and same_start(t, f):
            out[node_id] = dated(t, f)
    return out


class FileDating:
    """Dates the starts from the file's lines once per read of it, and again when a start
    ndbtop did not see begin appears (a node first seen STARTING)."""

    def __init__(self) -> None:
        self._lines: Sequence[LogLine] | None = None
        self._undated: tuple[tuple[int, float], ...] = ()

    def __call__(self, timelines: Mapping[int, StartTimeline], lines: Sequence[LogLine]
                 ) -> dict[int, StartTimeline] | None:
        """The timelines dated (:func:`apply_file`), or None when nothing new asks it."""
        undated = tuple((k, t.began_at) for k, t in sorted(timelines.items())
                        if t.active and t.began_from not in ("event", "file"))
        if not lines or (lines is self._lines and undated == self._undated):
            return None
        out = apply_file(timelines, lines)
        self._lines = lines
        self._undated = tuple((k, t.began_at) for k, t in sorted(out.items())
                              if t.active and t.began_from not in ("event", "file"))
        return out
