"""The events the rules judge: those ndbtop listened to, and before them the cluster log
file's lines that stand for events (:attr:`ClusterSnapshot.cluster_log`).

Each line is judged by its own time, as a live event is by the time it arrived: a warning
of the last two minutes counts as now. Lines older than :data:`JUDGED_FOR_S` (the widest
window a rule looks back over, the heartbeat rule's) are history only, shown and never
judged, except the few that rules read as context however old (the GCP monitor's computed
limits, the local checkpoints' starts and ends, whose durations set what is overdue, the
starts completed), and a data node's stop (its NDBStopForced, the DIH master's GCP-stop
kill) while that node is not STARTED: ``node_stopped`` and ``gcp_stop`` hold while the node
is down, as they do in a live view that saw it stop. So a node that died of missed
heartbeats an hour ago and runs again is never a current finding, and one that is still
down is one however long ago it stopped.

A line also received as an event (the file and the listener overlap when ndbtop reads the
file while it listens) is judged once.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from dataclasses import replace
from heapq import merge

from ndbtop.findings.rules_stops import NDB_START_COMPLETED, stop_victims
from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.decode import Event
from ndbtop.model.findings import Evidence, Finding
from ndbtop.model.same_event import TimesByKey
from ndbtop.model.snapshot import ClusterSnapshot

JUDGED_FOR_S = 300.0
CONTEXT_TYPES = frozenset({49, 6, 7, 50, NDB_START_COMPLETED})
"""InfoEvent (the GCP monitor's computed limits), LocalCheckpointStarted/Completed,
MemoryUsage (a band crossed holds until the next crossing) and NDBStartCompleted (a stop
before it is over)."""
SAME_EVENT_S = 2.0

_Index = tuple[list[Event], list[Event], list[Event], list[float]]
_INDEX: list[tuple[tuple[LogLine, ...], _Index]] = []
_MERGED: list[tuple[tuple[object, ...], tuple[Event, ...]]] = []


def _index(lines: tuple[LogLine, ...]) -> _Index:
    """(context, stops, the others, the others' times) of the file's events, oldest first."""
    if _INDEX and _INDEX[0][0] is lines:
        return _INDEX[0][1]
    events = sorted((ln.event for ln in lines if ln.event is not None
                     and not ln.event.malformed), key=lambda e: e.received_at)
    context = [e for e in events if e.type in CONTEXT_TYPES]
    stops = [e for e in events if e.type not in CONTEXT_TYPES and stop_victims(e)]
    others = [e for e in events if e.type not in CONTEXT_TYPES and not stop_victims(e)]
    _INDEX[:] = [(lines, (context, stops, others, [e.received_at for e in others]))]
    return _INDEX[0][1]


def _still_down(stops: list[Event], snap: ClusterSnapshot, since: float) -> list[Event]:
    """The stops older than ``since`` of a data node that is not STARTED now."""
    up = {n.node_id for n in snap.data_nodes()
          if n.status in ("STARTED", "SINGLE USER MODE")}
    return [e for e in stops
            if e.received_at < since and not up.issuperset(stop_victims(e))]


def judged_events(snap: ClusterSnapshot) -> tuple[Event, ...]:
    """The live events with the file's judged lines before and among them, oldest first
    (the live events themselves when no line is judged)."""
    if not snap.cluster_log:
        return snap.events
    context, stops, others, times = _index(snap.cluster_log)
    since = snap.wall - JUDGED_FOR_S
    recent = others[bisect_left(times, since):]
    kept = [*_still_down(stops, snap, since), *(e for e in stops if e.received_at >= since)]
    chosen = (sorted([*context, *kept, *recent], key=lambda e: e.received_at)
              if recent or kept else context)
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
