"""Rules on what the data nodes warn about in the cluster log (diagnostics.md §a, §c, §e).

The warnings are WarningEvent (46) and InfoEvent (49) texts, matched on their fixed words
(8.4 may space them differently), and the heartbeat and arbitration events. An event
counts while it is recent: :data:`RECENT_S` for warnings repeated while their condition
holds; failures are kept for triage as long as the event history holds them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ndbtop.findings.event_index import events_of
from ndbtop.mgm.events.decode import TEXT_LINE_TYPE, Event
from ndbtop.model.arbitration import (
    ARBIT_RESULT,
    ARBIT_STATE,
    ArbitrationPhase,
    arbitration_status,
)
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.snapshot import ClusterSnapshot

RECENT_S = 120.0
"""How long a repeated warning counts after it was last received: the GCP_SAVE warning
repeats every 60 s of lag, the LCP watchdog's every second, failure handling's every 30 s."""

WARNING_EVENT, INFO_EVENT = 46, 49
MISSED_HEARTBEAT, DEAD_DUE_TO_HEARTBEAT, NDB_STOP_FORCED = 44, 45, 59
LCP_STARTED, LCP_COMPLETED = 6, 7
LCP_OVERDUE_TIMES, LCP_OVERDUE_MIN_S = 3.0, 300.0
"""A running LCP is overdue past this many times the last one's duration, and at least this
many seconds (ndbtop's judgement: the server has no limit on an LCP's duration, only on
a fragment scan without progress)."""
GCP_STOP_ERROR = 2303
ELECTING_FOR_S = 30.0
"""How long the president may be choosing an arbitrator before it is a finding: a
management server's restart makes it choose for a few seconds."""

_SAVE_LAG = re.compile(r"GCP Monitor:\s*GCP_SAVE lag\s+([0-9]{1,9})\s+seconds\s*"
                       r"\((?:max lag:\s*([0-9]{1,9})\s*s?|no max lag)\)")
_COMMIT_LAG = re.compile(r"GCP Monitor:\s*GCP_COMMIT lag\s+([0-9]{1,9})\s+seconds\s*"
                         r"\((?:max lag:\s*([0-9]{1,9})\s*s?|no max lag)\)")
_COMPUTED = re.compile(r"GCP Monitor:\s*Computed max (GCP_SAVE|GCP_COMMIT) lag to\s+"
                       r"([0-9]{1,9})\s+seconds")
_GCP_STOP = re.compile(r"Detected GCP stop\([0-9]{1,4}\)\.\.\.sending kill to (.*)")
_SIGNAL_COUNTER = re.compile(r"SignalCounter:\s*m_count=[0-9]{1,3}\s+([0-9a-fA-F]{1,64})\]")
KILL_WITHIN_S = 60.0
"""Seconds between the master's kill and the victim's NDBStopForced that make them one."""
_LCP_WATCHDOG = re.compile(r"LCP Frag watchdog\s*:\s*No progress for\s+([0-9]{1,9})\s+s,\s*"
                           r"MaxWaitTime\s+([0-9]{1,9})\s+s")
_LCP_KILL = "Waited too long with LCP not progressing"
_FAILURE_HANDLING = re.compile(r"Failure handling of (node|api)\s+([0-9]{1,3}) has not "
                               r"completed in\s+([0-9]{1,9})\s+seconds")


def _recent(snap: ClusterSnapshot, kinds: Sequence[int], within: float = RECENT_S
            ) -> list[Event]:
    return [e for e in events_of(snap.events, *kinds) if not e.malformed
            and snap.wall - e.received_at <= within]


def _age(snap: ClusterSnapshot, e: Event) -> float:
    return max(snap.wall - e.received_at, 0.0)


def gcp_lag(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``gcp_save_lag`` / ``gcp_commit_lag``: the DIH master's GCP Monitor warnings."""
    texts = _recent(snap, (WARNING_EVENT,))
    computed: dict[str, int] = {}
    for e in events_of(snap.events, INFO_EVENT):
        if m := _COMPUTED.search(e.text):
            computed[m.group(1)] = int(m.group(2))
    for rule, pattern, kind, every in (("gcp_save_lag", _SAVE_LAG, "GCP_SAVE", 60),
                                       ("gcp_commit_lag", _COMMIT_LAG, "GCP_COMMIT", 10)):
        last = next(((e, m) for e in reversed(texts) if (m := pattern.search(e.text))), None)
        if last is None:
            continue
        e, m = last
        lag = int(m.group(1))
        limit = int(m.group(2)) if m.group(2) else computed.get(kind)
        near = limit is not None and lag * 2 >= limit
        where = (f"the node is killed at {limit} s (2303)" if limit is not None
                 else "no kill limit (TimeBetweenEpochsTimeout = 0)")
        yield Finding(
            rule, Severity.CRITICAL if near else Severity.WARNING,
            f"{kind} lag {lag} s on the DIH master (node {e.source_node}): {where}",
            (Evidence(f"{kind} lag", f"{lag} s", f"WarningEvent from node {e.source_node}: "
                      f"{e.text}", _age(snap, e)),),
            Threshold(f"{limit} s" if limit is not None else "none", "server",
                      "TimeBetweenGlobalCheckpointsTimeout" if kind == "GCP_SAVE"
                      else "TimeBetweenEpochsTimeout",
                      None, f"DbdihMain.cpp checkGcpStopLab (warned every {every} s of lag)"),
            "look for slow fsync on the data nodes' file-system disks, CPU starvation or "
            "swap on the master's host (Disk and Threads views)",
            nodes=(e.source_node,))


def _killed_nodes(counter: str) -> tuple[int, ...]:
    """The nodes of the signal counter the master prints (``[SignalCounter: m_count=1
    0000000000000008]``: a node bitmask in hex, highest word first); none when it is not
    one."""
    m = _SIGNAL_COUNTER.search(counter)
    if m is None:
        return ()
    mask = int(m.group(1), 16)
    return tuple(i for i in range(1, 256) if mask >> i & 1)


def gcp_stop(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``gcp_stop``: a node was killed for a GCP stop (kept for triage); the master's kill
    and the victim's NDBStopForced are one finding."""
    kills: list[tuple[Event, tuple[int, ...], str]] = []
    for e in events_of(snap.events, WARNING_EVENT, INFO_EVENT, NDB_STOP_FORCED):
        if e.type in (WARNING_EVENT, INFO_EVENT) and (m := _GCP_STOP.search(e.text)):
            victims = _killed_nodes(m.group(1))
            kills.append((e, victims, ", ".join(map(str, victims)) or m.group(1).strip()))
        elif e.type == NDB_STOP_FORCED and e.get("error") == GCP_STOP_ERROR:
            if any(e.source_node in v and 0 <= e.received_at - k.received_at <= KILL_WITHIN_S
                   for k, v, _ in kills):
                continue
            kills.append((e, (e.source_node,), str(e.source_node)))
    for e, victims, killed in kills:
        yield Finding(
            "gcp_stop", Severity.CRITICAL,
            f"GCP stop: the master killed node {killed} (2303)",
            (Evidence("event", e.text or e.name, f"node {e.source_node}", _age(snap, e)),),
            Threshold("the computed max GCP lag", "server",
                      reference="DbdihMain.cpp crashSystemAtGcpStop"),
            "find what stalled the global checkpoint (disk fsync, CPU, swap) before "
            "starting the node again",
            nodes=victims or (e.source_node,), key=f"{e.source_node}:{e.received_at}")


def lcp_stalled(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``lcp_stalled``: the LCP fragment watchdog warns (no progress past a third of
    LcpScanProgressTimeout) or announces the kill (7200), or the running LCP is overdue
    (:func:`lcp_overdue`)."""
    yield from _lcp_watchdog(snap)
    yield from lcp_overdue(snap)


def _lcp_watchdog(snap: ClusterSnapshot) -> Iterator[Finding]:
    by_node: dict[int, tuple[Event, Severity, str, str | None]] = {}
    for e in _recent(snap, (WARNING_EVENT,), within=10.0):
        if _LCP_KILL in e.text:
            by_node[e.source_node] = (e, Severity.CRITICAL, "the watchdog kills the node (7200)",
                                      None)
        elif (m := _LCP_WATCHDOG.search(e.text)) and (
                e.source_node not in by_node or by_node[e.source_node][1] != Severity.CRITICAL):
            by_node[e.source_node] = (e, Severity.WARNING,
                                      f"no LCP progress for {m.group(1)} s", m.group(2))
    for node, (e, severity, what, limit) in sorted(by_node.items()):
        yield Finding(
            "lcp_stalled", severity, f"node {node}: {what}",
            (Evidence("LCP watchdog", e.text, f"WarningEvent from node {node}",
                      _age(snap, e)),),
            Threshold(f"{limit} s" if limit else "LcpScanProgressTimeout", "server",
                      "LcpScanProgressTimeout", limit and f"{limit} s",
                      "DblqhMain.cpp checkLcpFragWatchdog (warns from a third of it)"),
            "check the node's disk (LCP writes) and its LDM threads' CPU",
            nodes=(node,))


def lcp_overdue(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``lcp_stalled`` without the watchdog: the running LCP (LocalCheckpointStarted with
    no LocalCheckpointCompleted yet) has taken :data:`LCP_OVERDUE_TIMES` the last complete
    one's duration, and at least :data:`LCP_OVERDUE_MIN_S`."""
    started: dict[int, Event] = {}
    last: float | None = None
    for e in events_of(snap.events, LCP_STARTED, LCP_COMPLETED):
        if e.malformed:
            continue
        lci = e.word(1)
        if e.type == LCP_STARTED:
            started[lci] = e
        elif e.type == LCP_COMPLETED and (s := started.pop(lci, None)) is not None:
            last = e.received_at - s.received_at
            started = {k: v for k, v in started.items() if k > lci}
    if last is None or not started:
        return
    lci, e = max(started.items())
    running = snap.wall - e.received_at
    limit = max(LCP_OVERDUE_TIMES * last, LCP_OVERDUE_MIN_S)
    if running < limit:
        return
    yield Finding(
        "lcp_stalled", Severity.WARNING,
        f"local checkpoint {lci} has run {running:,.0f} s; the last one took {last:,.0f} s",
        (Evidence("LCP running", f"{running:,.0f} s since LocalCheckpointStarted {lci}",
                  f"node {e.source_node}", _age(snap, e)),
         Evidence("last LCP", f"{last:,.0f} s", "LocalCheckpointStarted/Completed", None)),
        Threshold(f"{LCP_OVERDUE_TIMES:g} x the last LCP (at least {LCP_OVERDUE_MIN_S:g} s)",
                  "ndbtop", "LcpScanProgressTimeout"),
        "the redo log is trimmed only when an LCP completes: look for the LCP watchdog's "
        "warnings in the cluster log, and at the data nodes' disks",
        nodes=(e.source_node,), key=f"lcp:{lci}")


def node_failure_handling_slow(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``node_failure_handling_slow``: failure handling of a node has not completed."""
    seen: dict[tuple[str, int], tuple[Event, int]] = {}
    for e in _recent(snap, (WARNING_EVENT,), within=60.0):
        if m := _FAILURE_HANDLING.search(e.text):
            seen[(m.group(1), int(m.group(2)))] = (e, int(m.group(3)))
    for (kind, failed), (e, secs) in sorted(seen.items()):
        yield Finding(
            "node_failure_handling_slow", Severity.WARNING,
            f"failure handling of {kind} {failed} not completed after {secs} s "
            f"(reported by node {e.source_node})",
            (Evidence("failure handling", e.text, f"WarningEvent from node {e.source_node}",
                      _age(snap, e)),),
            Threshold("30 s", "server", reference="QmgrMain.cpp checkStartInterface"),
            f"node {failed} cannot start again until its failure is handled; look for the "
            "blocks named in the cluster log",
            nodes=(failed,), key=f"{kind}:{failed}")


def missed_heartbeat(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``missed_heartbeat``: MissedHeartbeat events; DeadDueToHeartbeat makes it critical."""
    worst: dict[int, tuple[Event, int, bool]] = {}
    for e in _recent(snap, (MISSED_HEARTBEAT, DEAD_DUE_TO_HEARTBEAT), within=300.0):
        node = e.get("node")
        if node is None or not 1 <= node <= 255:
            continue
        dead = e.type == DEAD_DUE_TO_HEARTBEAT
        count = e.get("count") or 0
        before = worst.get(node)
        if before is None or dead or (not before[2] and count >= before[1]):
            worst[node] = (e, count, dead or bool(before and before[2]))
    for node, (e, count, dead) in sorted(worst.items()):
        what = "declared dead" if dead else f"missed heartbeat {count}"
        yield Finding(
            "missed_heartbeat", Severity.CRITICAL if dead else Severity.WARNING,
            f"node {node} {what} (seen by node {e.source_node})",
            (Evidence("heartbeat", e.text or e.name, f"node {e.source_node}",
                      _age(snap, e)),),
            Threshold("declared dead after 4 missed heartbeats", "server",
                      "HeartbeatIntervalDbDb", None, "QmgrMain.cpp checkHeartbeat"),
            f"node {node}'s threads may not be scheduled (CPU starvation, swap) or the "
            "network drops packets: check its host",
            nodes=(node,))


def no_arbitrator(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``no_arbitrator``: the arbitrator was lost and none started since, or an
    arbitration failed."""
    status = arbitration_status(events_of(snap.events, ARBIT_STATE, ARBIT_RESULT,
                                          TEXT_LINE_TYPE))
    if status.phase not in (ArbitrationPhase.ELECTING, ArbitrationPhase.FAILED):
        return
    age = None if status.since is None else max(snap.wall - status.since, 0.0)
    failed = status.phase is ArbitrationPhase.FAILED
    if not failed and (age is None or age < ELECTING_FOR_S):
        return
    yield Finding(
        "no_arbitrator", Severity.CRITICAL if failed else Severity.WARNING,
        status.describe(snap.wall),
        (Evidence("arbitration", status.phase.value, "ArbitState/ArbitResult events", age),),
        Threshold(f"no arbitrator for {ELECTING_FOR_S:.0f} s", "ndbtop", "ArbitrationRank",
                  None, "QmgrMain.cpp arbitration; ArbitSignalData.hpp codes"),
        "a network partition now shuts the cluster down: make sure a node with "
        "ArbitrationRank 1 or 2 (usually ndb_mgmd) is running and connected",
        nodes=(status.arbitrator,) if status.arbitrator else ())
