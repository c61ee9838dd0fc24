"""The events the rules judge: those ndbtop listened to, and before them the cluster log
file's lines that stand for events (:attr:`ClusterSnapshot.cluster_log`).

Each line is judged by its own time, as a live event is by the time it arrived: a warning
of the last two minutes counts as now. Lines older than :data:`JUDGED_FOR_S` (the widest
window a rule looks back over, the heartbeat rule's) are history only, shown and never
judged, except the few that rules read as context however old (the GCP monitor's computed
limits, the local checkpoints' starts and ends, whose durations set what is overdue). So
a node that died of missed heartbeats an hour ago and runs again is never a current
finding.

A line also received as an event (the file and the listener overlap when ndbtop reads the
file while it listens) is judged once.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from dataclasses import replace
from heapq import merge

from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.decode import Event
from ndbtop.model.findings import Evidence, Finding
from ndbtop.model.same_event import TimesByKey
from ndbtop.model.snapshot import ClusterSnapshot

JUDGED_FOR_S = 300.0
CONTEXT_TYPES = frozenset({49, 6, 7, 50})
"""InfoEvent (the GCP monitor's computed limits), LocalCheckpointStarted/Completed, and
MemoryUsage (a band crossed holds until the next crossing)."""
SAME_EVENT_S = 2.0

_INDEX: list[tuple[tuple[LogLine, ...], list[Event], list[Event], list[float]]] = []
_MERGED: list[tuple[tuple[object, ...], tuple[Event, ...]]] = []


def _index(lines: tuple[LogLine, ...]) -> tuple[list[Event], list[Event], list[float]]:
    if _INDEX and _INDEX[0][0] is lines:
        return _INDEX[0][1], _INDEX[0][2], _INDEX[0][3]
    events = sorted((ln.event for ln in lines if ln.event is not None
                     and not ln.event.malformed), key=lambda e: e.received_at)
    context = [e for e in events if e.type in CONTEXT_TYPES]
    others = [e for e in events if e.type not in CONTEXT_TYPES]
    _INDEX[:] = [(lines, context, others, [e.received_at for e in others])]
    return context, others, _INDEX[0][3]


def judged_events(snap: ClusterSnapshot) -> tuple[Event, ...]:
    """The live events with the file's judged lines before and among them, oldest first
    (the live events themselves when no line is judged)."""
    if not snap.cluster_log:
        return snap.events
    context, others, times = _index(snap.cluster_log)
    recent = others[bisect_left(times, snap.wall - JUDGED_FOR_S):]
    chosen = sorted([*context, *recent], key=lambda e: e.received_at) if recent else context
    if snap.events and chosen:
        first = snap.events[0].received_at - SAME_EVENT_S
        live = TimesByKey(((e.source_node, e.text), e.received_at) for e in snap.events)
        chosen = [e for e in chosen if e.received_at < first or not live.near(
            (e.source_node, e.text), e.received_at, SAME_EVENT_S)]
    if not chosen:
        return snap.events
    key = (snap.events, snap.cluster_log, len(chosen), chosen[0], chosen[-1])
    if _MERGED and all(a is b for a, b in zip(_MERGED[0][0], key)):
        return _MERGED[0][1]
    merged = tuple(merge(chosen, snap.events, key=lambda e: e.received_at))
    _MERGED[:] = [(key, merged)]
    return merged


def mark_file_evidence(findings: list[Finding], snap: ClusterSnapshot,
                       judged: tuple[Event, ...]) -> list[Finding]:
    """The findings with each figure that came from a cluster log line saying so (the
    line's own time), as a figure names its source."""
    if judged is snap.events or not snap.cluster_log:
        return findings
    live = set(map(id, snap.events))
    from_file = [e for e in judged if id(e) not in live]
    out = []
    for f in findings:
        evidence = tuple(_marked(ev, from_file, snap.wall) for ev in f.evidence)
        out.append(f if evidence == f.evidence else replace(f, evidence=evidence))
    return out


def _marked(ev: Evidence, from_file: list[Event], wall: float) -> Evidence:
    if ev.age_s is None:
        return ev
    for e in from_file:
        if abs((wall - e.received_at) - ev.age_s) <= 1.0 and e.text and (
                e.text in ev.value or e.text in ev.source):
            stamp = time.strftime("%H:%M:%S", time.localtime(e.received_at))
            return replace(ev, source=f"{ev.source} (cluster log file, {stamp})")
    return ev


def forget() -> None:
    """Drop what is remembered by identity."""
    _INDEX.clear()
    _MERGED.clear()
