"""How much of a start ndbtop saw, and what the node's host adds to it.

A start timeline counts from what was seen: the management server's events, a change
in ``get status``, or only the moment ndbtop first saw the node. The node's host can
tell more (with ``--ssh``): when its worker process started and when its redo log files
were born. :func:`apply_host` folds that into the timelines, so every output (the live
view, ``--once``, JSON, the exporter, the start history) reads the same evidence from
the timeline; :func:`timer_prefix` and :func:`since_text` say how far a timer is to
be trusted, :func:`phase_seconds_text` and :func:`elapsed_text` how a phase's and a
start's durations are written, :func:`in_phase_json` and :func:`phase_json` the same in
JSON: a figure ndbtop did not see is ``not seen`` (null), a lower bound ``≥`` (its own
``..._at_least_s`` field, the exact field null).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import replace

from ndbtop.durations import duration
from ndbtop.model.hosts import NodeStart
from ndbtop.model.phases import PhaseRecord, StartTimeline

IN_PHASE_FROM = ("event", "file", "host", "status", "first_seen")
"""The values of a timeline's ``current_from`` (JSON ``in_phase_from``)."""


def apply_host(
    timelines: Mapping[int, StartTimeline], measured: Iterable[NodeStart]
) -> dict[int, StartTimeline]:
    """Timelines with what the hosts measured where events did not tell.

    The worker process's start is when the start began (unless NDBStartStarted was
    seen); it is also when the phase in progress began if no phase has completed. The
    redo log files' birth is when the redo phase began. A measure later than what
    ndbtop saw itself belongs to another process and is ignored.
    """
    out = dict(timelines)
    for m in measured:
        t = out.get(m.node_id)
        if t is None or not t.active or m.process_started_at is None:
            continue
        started = m.process_started_at
        if started > t.began_at + 1.0:
            continue
        if t.began_from not in ("event", "file"):
            # (The start's own line in the cluster log dates it as its event does.)
            t = replace(t, began_at=started, began_exact=True, began_from="host")
        if t.current_from in ("first_seen", "status") and t.current_phase is not None:
            redo = m.redo_began_at
            if (redo is not None and t.redo_phase == t.current_phase
                    and started - 1.0 <= redo <= t.current_since + 1.0):
                t = replace(t, current_since=redo, current_exact=True, current_from="host")
            elif not t.completed and t.current_from == "first_seen":
                t = replace(t, current_since=started, current_exact=True, current_from="host")
        out[m.node_id] = t
    return out


def timer_prefix(t: StartTimeline) -> str:
    """``≥`` before a time in phase that is a lower bound, ``≈`` before one within a
    poll, nothing before one from an event or the host."""
    if t.current_from == "first_seen":
        return "≥"
    return "≈" if t.current_from == "status" else ""


def clock_time(epoch: float) -> str:
    """``12:04:31`` in local time."""
    return dt.datetime.fromtimestamp(epoch).strftime("%H:%M:%S")


def since_text(t: StartTimeline) -> str:
    """Where the time in the phase counts from, in words."""
    if t.current_from == "first_seen":
        return f"since ndbtop connected at {clock_time(t.current_since)}"
    if t.current_from == "host":
        return f"since {clock_time(t.current_since)}, from the host"
    if t.current_from == "file":
        return f"since {clock_time(t.current_since)}, from the cluster log"
    if t.current_from == "status":
        return f"since {clock_time(t.current_since)}, within one poll"
    return f"since {clock_time(t.current_since)}"


NOT_SEEN = "not seen"
"""What a phase that ended before ndbtop first saw the node shows instead of a duration."""


def phase_seconds_text(r: PhaseRecord) -> str:
    """How long a completed phase took: ``12s``, ``≈12s`` within a poll, ``≥12s`` from
    ndbtop's first sight of the node, ``not seen`` when it ended before that."""
    if r.seconds is None:
        return NOT_SEEN
    if r.lower_bound:
        return "≥" + duration(r.seconds)
    return ("" if r.exact else "≈") + duration(r.seconds)


def elapsed_text(t: StartTimeline, now: float) -> str:
    """How long the start has run (or took): ``≥`` when its beginning was not seen."""
    return ("" if t.began_exact else "≥") + duration(t.elapsed_s(now))


def in_phase_json(t: StartTimeline | None, now: float) -> dict[str, object]:
    """``in_phase_s`` (null when not measured from the phase's beginning),
    ``in_phase_at_least_s`` (the lower bound from ndbtop's first sight, else null) and
    ``in_phase_from`` (:data:`IN_PHASE_FROM`, null when no phase is in progress)."""
    spent = t.in_phase_s(now) if t is not None else None
    if t is None or spent is None:
        return {"in_phase_s": None, "in_phase_at_least_s": None, "in_phase_from": None}
    spent = round(spent, 1)
    bound = t.in_phase_lower_bound
    return {"in_phase_s": None if bound else spent,
            "in_phase_at_least_s": spent if bound else None,
            "in_phase_from": t.current_from}


def ended_from(r: PhaseRecord) -> str:
    """What told a completed phase's end: ``event``, ``file`` (its line in the cluster log
    file, to the second) or ``status`` (``get status``, within one poll)."""
    if r.from_file:
        return "file"
    return "event" if r.ended_by_event else "status"


def phase_json(r: PhaseRecord) -> dict[str, object]:
    """A completed phase: ``seconds`` (null when not seen from its beginning),
    ``at_least_s`` (the lower bound from ndbtop's first sight, else null), ``exact`` and
    ``ended_from`` (:func:`ended_from`)."""
    return {"phase": r.phase,
            "seconds": None if r.measured_s is None else round(r.measured_s, 3),
            "at_least_s": round(r.seconds, 3) if r.lower_bound and r.seconds is not None
            else None,
            "exact": r.exact,
            "ended_from": ended_from(r)}
