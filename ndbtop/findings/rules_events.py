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
from ndbtop.findings.known_nodes import is_known, known_nodes, node_type
from ndbtop.mgm.events.decode import TEXT_LINE_TYPE, Event
from ndbtop.mgm.events.text import to_int32
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
MISSED_HEARTBEAT, DEAD_DUE_TO_HEARTBEAT = 44, 45
LCP_STARTED, LCP_COMPLETED = 6, 7
MAX_HEARTBEAT_COUNT = 255
"""A MissedHeartbeat count past this is not one (the node is declared dead at 4)."""
LCP_OVERDUE_TIMES, LCP_OVERDUE_MIN_S = 3.0, 300.0
"""A running LCP is overdue past this many times the last one's duration, and at least this
many seconds (ndbtop's judgement: the server has no limit on an LCP's duration, only on
a fragment scan without progress)."""
ELECTING_FOR_S = 30.0
"""How long the president may be choosing an arbitrator before it is a finding: a
management server's restart makes it choose for a few seconds."""

_SAVE_LAG = re.compile(r"GCP Monitor:\s*GCP_SAVE lag\s+([0-9]{1,9})\s+seconds"
                       r"(?:\s*\((?:max lag:\s*([0-9]{1,9})\s*s?|(no max lag))\))?")
_COMMIT_LAG = re.compile(r"GCP Monitor:\s*GCP_COMMIT lag\s+([0-9]{1,9})\s+seconds"
                         r"(?:\s*\((?:max lag:\s*([0-9]{1,9})\s*s?|(no max lag))\))?")
_COMPUTED = re.compile(r"GCP Monitor:\s*Computed max (GCP_SAVE|GCP_COMMIT) lag to\s+"
                       r"([0-9]{1,9})\s+seconds")
_UNLIMITED = re.compile(r"GCP Monitor:\s*(?:(GCP_SAVE|GCP_COMMIT)\s*:\s*)?unlimited lags allowed")
_GCP_STOP = re.compile(r"Detected GCP stop\([0-9]{1,4}\)\.\.\.sending kill to")
GCP_COMPLETED = 5
_LCP_WATCHDOG = re.compile(r"LCP Frag watchdog\s*:\s*No progress for\s+([0-9]{1,9})\s+s,\s*"
                           r"MaxWaitTime\s+([0-9]{1,9})\s+s")
_LCP_WATCHDOG_7X = re.compile(r"LCP Frag watchdog\s*:\s*No progress on table\s+[0-9]{1,10},\s*"
                              r"frag\s+[0-9]{1,10}\s+for\s+([0-9]{1,9})\s+s")
"""The 7.x warning (diagnostics.md §c, 7.4 copies of checkLcpFragWatchdog): no limit in it."""
_LCP_KILL_7X = re.compile(r"LCP Frag watchdog\s*:\s*Checkpoint of table\s+[0-9]{1,10}\s+"
                          r"fragment\s+[0-9]{1,10}\s+too slow\s*\(no progress for\s*>\s*"
                          r"([0-9]{1,9})\s*s\)")
"""The 7.x announcement of the kill (exit 7200), with the limit it passed."""
_LCP_KILL = "Waited too long with LCP not progressing"
_FAILURE_HANDLING = re.compile(r"Failure handling of (node|api)\s+([0-9]{1,3}) has not "
                               r"completed in\s+([0-9]{1,9})\s+seconds")


def _recent(snap: ClusterSnapshot, kinds: Sequence[int], within: float = RECENT_S
            ) -> list[Event]:
    return [e for e in events_of(snap.events, *kinds) if not e.malformed
            and snap.wall - e.received_at <= within]


def _age(snap: ClusterSnapshot, e: Event) -> float:
    return max(snap.wall - e.received_at, 0.0)


def _logged_limits(snap: ClusterSnapshot) -> dict[str, int | None]:
    """The master's last logged limit per lag (None: "unlimited lags allowed"): the
    InfoEvents of ``setGCPStopTimeouts``, one line per lag in 8.x, one for both in 2018."""
    limits: dict[str, int | None] = {}
    for e in events_of(snap.events, INFO_EVENT):
        if m := _COMPUTED.search(e.text):
            limits[m.group(1)] = int(m.group(2))
        elif m := _UNLIMITED.search(e.text):
            for kind in (m.group(1),) if m.group(1) else ("GCP_SAVE", "GCP_COMMIT"):
                limits[kind] = None
    return limits


def _lag_over_at(snap: ClusterSnapshot, kind: str) -> float | None:
    """When the lag last provably ended: the master's GCP-stop kill (the stalled node is
    gone) or, for GCP_SAVE, a GlobalCheckpointCompleted (the durable GCI moved)."""
    kinds = (WARNING_EVENT, INFO_EVENT) + ((GCP_COMPLETED,) if kind == "GCP_SAVE" else ())
    for e in reversed(events_of(snap.events, *kinds)):
        if e.type == GCP_COMPLETED or _GCP_STOP.search(e.text):
            return e.received_at
    return None


def gcp_lag(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``gcp_save_lag`` / ``gcp_commit_lag``: the DIH master's GCP Monitor warnings, until
    the lag provably ended (:func:`_lag_over_at`)."""
    texts = _recent(snap, (WARNING_EVENT,))
    logged = _logged_limits(snap)
    for rule, pattern, kind, every in (("gcp_save_lag", _SAVE_LAG, "GCP_SAVE", 60),
                                       ("gcp_commit_lag", _COMMIT_LAG, "GCP_COMMIT", 10)):
        last = next(((e, m) for e in reversed(texts) if (m := pattern.search(e.text))), None)
        if last is None:
            continue
        e, m = last
        over = _lag_over_at(snap, kind)
        if over is not None and over >= e.received_at:
            continue
        lag = int(m.group(1))
        # The warning's own words decide: "(no max lag)" means no kill, whatever limit
        # was logged before (DbdihMain.cpp checkGcpStopLab prints the current one).
        if m.group(3):
            limit = None
        elif m.group(2):
            limit = int(m.group(2))
        else:
            limit = logged.get(kind)
        # A warning without its limit, and none logged while ndbtop listened: not known.
        unknown = not m.group(2) and not m.group(3) and kind not in logged
        near = limit is not None and lag * 2 >= limit
        where = (f"the master kills the stalled node at {limit} s (2303)" if limit is not None
                 else "the kill limit is not known (not in the warning, and the master's "
                 "'Computed max' line was not seen)" if unknown
                 else "no kill (no max lag: TimeBetweenEpochsTimeout = 0)")
        if kind == "GCP_SAVE":
            formula = ("TimeBetweenGlobalCheckpoints + max(TimeBetweenGlobalCheckpointsTimeout, "
                       "TimeBetweenEpochsTimeout) + the node-failure allowance, and only with "
                       "TimeBetweenEpochsTimeout > 0")
        else:
            formula = ("TimeBetweenEpochs + TimeBetweenEpochsTimeout + the node-failure "
                       "allowance, and only with TimeBetweenEpochsTimeout > 0")
        yield Finding(
            rule, Severity.CRITICAL if near else Severity.WARNING,
            f"{kind} lag {lag} s on the DIH master (node {e.source_node}): {where}",
            (Evidence(f"{kind} lag", f"{lag} s", f"WarningEvent from node {e.source_node}: "
                      f"{e.text}", _age(snap, e)),),
            Threshold(f"{limit} s" if limit is not None else "unknown" if unknown else "none",
                      "server",
                      "TimeBetweenEpochsTimeout", None,
                      f"DbdihMain.cpp setGCPStopTimeouts: the limit is {formula}; "
                      f"checkGcpStopLab warns every {every} s of lag"),
            "look for slow fsync on the data nodes' file-system disks, CPU starvation or "
            "swap on the master's host (Disk and Threads views)"
            + ("; raising TimeBetweenGlobalCheckpointsTimeout alone does not move a limit "
               "that TimeBetweenEpochsTimeout sets" if kind == "GCP_SAVE" and limit else ""),
            nodes=(e.source_node,))


def lcp_stalled(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``lcp_stalled``: the LCP fragment watchdog warns (no progress past a third of
    LcpScanProgressTimeout) or announces the kill (7200), or the running LCP is overdue
    (:func:`lcp_overdue`)."""
    yield from _lcp_watchdog(snap)
    yield from lcp_overdue(snap)


def _lcp_watchdog(snap: ClusterSnapshot) -> Iterator[Finding]:
    by_node: dict[int, tuple[Event, Severity, str, str | None]] = {}
    for e in _recent(snap, (WARNING_EVENT,), within=10.0):
        kill_7x = _LCP_KILL_7X.search(e.text)
        if _LCP_KILL in e.text or kill_7x is not None:
            by_node[e.source_node] = (e, Severity.CRITICAL, "the watchdog kills the node (7200)",
                                      kill_7x.group(1) if kill_7x else None)
            continue
        if e.source_node in by_node and by_node[e.source_node][1] == Severity.CRITICAL:
            continue
        if m := _LCP_WATCHDOG.search(e.text):
            by_node[e.source_node] = (e, Severity.WARNING,
                                      f"no LCP progress for {m.group(1)} s", m.group(2))
        elif m := _LCP_WATCHDOG_7X.search(e.text):
            by_node[e.source_node] = (e, Severity.WARNING,
                                      f"no LCP progress for {m.group(1)} s", None)
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
    """``node_failure_handling_slow``: failure handling of a node has not completed (a node
    id the cluster does not have, node 0 among them, is no finding)."""
    known = known_nodes(snap)
    seen: dict[tuple[str, int], tuple[Event, int]] = {}
    for e in _recent(snap, (WARNING_EVENT,), within=60.0):
        if (m := _FAILURE_HANDLING.search(e.text)) and is_known(int(m.group(2)), known):
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


def _heartbeat_count(e: Event) -> int | None:
    """MissedHeartbeat's ``count`` (hb_count - 1, printed ``%d``): None when it is not a
    count (``-1`` arrives as the word 4294967295)."""
    raw = e.get("count")
    if raw is None:
        return None
    count = to_int32(raw)
    return count if 0 <= count <= MAX_HEARTBEAT_COUNT else None


def missed_heartbeat(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``missed_heartbeat``: MissedHeartbeat events; DeadDueToHeartbeat makes it critical
    for a data node (the heartbeat ring). For an API or SQL node they are about that client
    (HeartbeatIntervalDbApi, QmgrMain.cpp ``apiHbHandlingLab``): a warning."""
    known = known_nodes(snap)
    worst: dict[int, tuple[Event, int | None, bool]] = {}
    for e in _recent(snap, (MISSED_HEARTBEAT, DEAD_DUE_TO_HEARTBEAT), within=300.0):
        node = e.get("node")
        if node is None or not is_known(node, known):
            continue
        dead = e.type == DEAD_DUE_TO_HEARTBEAT
        count = None if dead else _heartbeat_count(e)
        before = worst.get(node)
        if before is None or dead or (not before[2] and (count or 0) >= (before[1] or 0)):
            worst[node] = (e, count, dead or bool(before and before[2]))
    for node, (e, count, dead) in sorted(worst.items()):
        kind = node_type(snap, node)
        data = kind in (None, "NDB")
        missed = f"missed heartbeat {count}" if count is not None else "missed heartbeats"
        what = "declared dead" if dead else missed
        if data:
            yield Finding(
                "missed_heartbeat", Severity.CRITICAL if dead else Severity.WARNING,
                f"data node {node} {what} (seen by node {e.source_node})",
                (Evidence("heartbeat", e.text or e.name, f"node {e.source_node}",
                          _age(snap, e)),),
                Threshold("declared dead after 4 missed heartbeats", "server",
                          "HeartbeatIntervalDbDb", None, "QmgrMain.cpp checkHeartbeat"),
                f"node {node}'s threads may not be scheduled (CPU starvation, swap) or the "
                "network drops packets: check its host",
                nodes=(node,))
            continue
        client = "management node" if kind == "MGM" else "API node"
        yield Finding(
            "missed_heartbeat", Severity.WARNING,
            f"{client} {node} {what} (seen by data node {e.source_node}): that client "
            + ("was disconnected" if dead else "does not answer"),
            (Evidence("heartbeat", e.text or e.name, f"node {e.source_node}", _age(snap, e)),),
            Threshold("disconnected after 4 missed heartbeats", "server",
                      "HeartbeatIntervalDbApi", None, "QmgrMain.cpp apiHbHandlingLab"),
            f"look at {client} {node}'s host (CPU, swap, network); the data nodes go on "
            "without it",
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
    evidence = (Evidence("arbitration", status.phase.value, "ArbitState/ArbitResult events",
                         age),)
    reference = "QmgrMain.cpp arbitration; ArbitSignalData.hpp codes"
    if failed:
        # The shutdown has happened (exit 2305): say what to do before the next start.
        yield Finding(
            "no_arbitrator", Severity.CRITICAL, status.describe(snap.wall), evidence,
            Threshold("an arbitration lost or with no arbitrator", "server",
                      "ArbitrationRank", None, reference),
            "the data nodes shut down for want of an arbitrator: make sure a node with "
            "ArbitrationRank 1 or 2 (usually ndb_mgmd) is running and connected before "
            "starting them again",
            nodes=(status.arbitrator,) if status.arbitrator else ())
        return
    yield Finding(
        "no_arbitrator", Severity.WARNING, status.describe(snap.wall), evidence,
        Threshold(f"no arbitrator for {ELECTING_FOR_S:.0f} s", "ndbtop", "ArbitrationRank",
                  None, reference),
        "a network partition now shuts the cluster down: make sure a node with "
        "ArbitrationRank 1 or 2 (usually ndb_mgmd) is running and connected",
        nodes=(status.arbitrator,) if status.arbitrator else ())
