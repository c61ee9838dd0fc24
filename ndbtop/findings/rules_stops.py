"""Rules on data nodes that stopped: ``gcp_stop`` and ``node_stopped`` (diagnostics.md §a,
§c, §e; server-rules.md).

Every kill of a node by another node exits 2303 (``Ndbcntr::execSYSTEM_ERROR`` ends each
case with NDBD_EXIT_SYSTEM_ERROR): a GCP stop, a failed fragment copy, a failed
subscription copy during a node restart, and others. Only the DIH master's "Detected GCP
stop" text, or the victim's error data saying "killed this node because GCP stop was
detected", makes one a GCP stop; any other stop is ``node_stopped``, with the error data
of the node's error log where it was read. One finding per node, kept while the node is
down: it clears once the node completed a start after it stopped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ndbtop.findings.event_index import events_of
from ndbtop.findings.known_nodes import is_known, known_data_nodes
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.events.exitcodes import ExitStatus, exit_status, exit_texts
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.hosts import ErrorLogEntry
from ndbtop.model.snapshot import ClusterSnapshot

WARNING_EVENT, INFO_EVENT, NDB_STOP_FORCED, NDB_START_COMPLETED = 46, 49, 59, 11
SYSTEM_ERROR = 2303
KILL_WITHIN_S = 60.0
"""Seconds between the master's kill and the victim's NDBStopForced that make them one."""

_GCP_STOP = re.compile(r"Detected GCP stop\([0-9]{1,4}\)\.\.\.sending kill to (.*)")
_SIGNAL_COUNTER = re.compile(r"SignalCounter:\s*m_count=[0-9]{1,3}\s+([0-9a-fA-F]{1,64})\]")
_GCP_DATA = "GCP stop was detected"
_COPY_FAILED = re.compile(r"copyfrag failed|StartFragRef|copy a subscription|start a "
                          r"subscriber", re.I)
"""The error data of the kills during a node restart's copy (Ndbcntr::execSYSTEM_ERROR:
CopyFragRefError, StartFragRefError, CopySubscriptionRef, CopySubscriberRef)."""
_KILLERS = (
    # Ndbcntr::execSYSTEM_ERROR: GCPStopDetected, StartFragRefError, CopySubscriptionRef,
    # CopySubscriberRef ("Node %d killed this node because ..."), CopyFragRefError ("Killed
    # by node %d as copyfrag failed, error: %u") and the default ("System error %d,  this
    # node was killed by node %d").
    re.compile(r"Node\s+([0-9]{1,3})\s+killed this node because\s+(.{1,300})", re.S),
    re.compile(r"Killed by node\s+([0-9]{1,3})\s+as\s+(.{1,300})", re.S),
    re.compile(r"(System error\s+[0-9]{1,10}),\s+this node was killed by node\s+([0-9]{1,3})"),
)


@dataclass(frozen=True)
class Stop:
    """What is known of one node's last stop."""

    node: int
    at: float
    forced: Event | None = None
    """The node's NDBStopForced."""
    master_kill: Event | None = None
    """The DIH master's "Detected GCP stop ... sending kill" naming the node."""
    entry: ErrorLogEntry | None = None
    """The node's newest error-log entry, when it has the stop's exit code."""

    @property
    def gcp(self) -> bool:
        """Whether the stop was a GCP stop, by the master's text or the victim's error data."""
        return self.master_kill is not None or (
            self.entry is not None and _GCP_DATA in (self.entry.error_data or ""))


def killed_nodes(counter: str) -> tuple[int, ...]:
    """The nodes of the signal counter the master prints (``[SignalCounter: m_count=1
    0000000000000008]``: a node bitmask in hex, highest word first); none when it is not
    one."""
    m = _SIGNAL_COUNTER.search(counter)
    if m is None:
        return ()
    mask = int(m.group(1), 16)
    return tuple(i for i in range(1, 256) if mask >> i & 1)


def stop_victims(e: Event) -> tuple[int, ...]:
    """The data nodes a stop event is about: an NDBStopForced's source, the nodes of the DIH
    master's "Detected GCP stop ... sending kill" (a WarningEvent, an InfoEvent in the
    M_GCP_COMPLETE case; itself when it names none); none for any other event."""
    if e.type == NDB_STOP_FORCED:
        return (e.source_node,)
    if e.type not in (WARNING_EVENT, INFO_EVENT) or e.malformed:
        return ()
    m = _GCP_STOP.search(e.text)
    if m is None:
        return ()
    return killed_nodes(m.group(1)) or (e.source_node,)


def killed_by(data: str) -> tuple[int | None, str]:
    """(the killing node, why) from a 2303's error data; (None, the data) when it names
    none."""
    for pattern in _KILLERS:
        m = pattern.search(data)
        if m is None:
            continue
        if pattern is _KILLERS[2]:
            return int(m.group(2)), m.group(1)
        return int(m.group(1)), " ".join(m.group(2).split()).rstrip(".")
    return None, " ".join(data.split())


def started_since(snap: ClusterSnapshot, node: int, at: float) -> bool:
    """Whether ``node`` completed a start after ``at`` (its NDBStartCompleted, or a start
    timeline that finished later)."""
    if any(e.source_node == node and e.received_at > at
           for e in events_of(snap.events, NDB_START_COMPLETED)):
        return True
    t = snap.timeline(node)
    return t is not None and t.finished_at is not None and t.finished_at > at


def _error_entry(snap: ClusterSnapshot, node: int, code: int | None) -> ErrorLogEntry | None:
    if code is None:
        return None
    for host in snap.hosts:
        for entry in host.error_logs:
            if entry.node_id == node and entry.error_code == code:
                return entry
    return None


_STOPS: list[tuple[tuple[object, ...], dict[int, Stop]]] = []
"""The last answer, by the very events, hosts and nodes it was worked out from."""


def stops(snap: ClusterSnapshot) -> dict[int, Stop]:
    """Each data node's last stop that it has not started again from, by node id."""
    key = (snap.events, snap.hosts, snap.nodes, snap.config, snap.timelines)
    if _STOPS and all(a is b for a, b in zip(_STOPS[0][0], key)):
        return _STOPS[0][1]
    known = known_data_nodes(snap)
    found: dict[int, Stop] = {}
    for e in events_of(snap.events, WARNING_EVENT, INFO_EVENT, NDB_STOP_FORCED):
        if e.malformed:
            continue
        if e.type == NDB_STOP_FORCED:
            if not is_known(e.source_node, known):
                continue
            before = found.get(e.source_node)
            kill = before.master_kill if before is not None else None
            if kill is not None and not 0 <= e.received_at - kill.received_at <= KILL_WITHIN_S:
                kill = None
            found[e.source_node] = Stop(e.source_node, e.received_at, e, kill,
                                        _error_entry(snap, e.source_node, e.get("error")))
        elif (m := _GCP_STOP.search(e.text)) is not None:
            victims = [v for v in killed_nodes(m.group(1)) if is_known(v, known)]
            for v in victims or [e.source_node]:
                found[v] = Stop(v, e.received_at, None, e)
    out = {n: s for n, s in found.items() if not started_since(snap, n, s.at)}
    _STOPS[:] = [(key, out)]
    return out


def _age(snap: ClusterSnapshot, e: Event) -> float:
    return max(snap.wall - e.received_at, 0.0)


def _evidence(snap: ClusterSnapshot, s: Stop) -> tuple[Evidence, ...]:
    out = []
    if s.master_kill is not None:
        out.append(Evidence("kill", s.master_kill.text, f"node {s.master_kill.source_node}",
                            _age(snap, s.master_kill)))
    if s.forced is not None:
        out.append(Evidence("stop", s.forced.text, f"node {s.node}", _age(snap, s.forced)))
    if s.entry is not None and s.entry.error_data:
        out.append(Evidence("error data", s.entry.error_data, f"node {s.node}'s error log",
                            None))
    return tuple(out)


def gcp_stop(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``gcp_stop``: a node killed for a GCP stop (one per node, while it is down)."""
    for node, s in sorted(stops(snap).items()):
        if not s.gcp:
            continue
        master = s.master_kill.source_node if s.master_kill is not None else None
        if s.master_kill is not None and s.master_kill.source_node == node and s.forced is None:
            summary = f"the DIH master, node {node}, detected a GCP stop and is killing itself"
        elif s.master_kill is not None and s.forced is None:
            summary = (f"the DIH master, node {master}, detected a GCP stop and is killing "
                       f"node {node}")
        else:
            by = f"the DIH master, node {master}," if master is not None else "the DIH master"
            summary = f"node {node} was killed by {by} for a GCP stop (2303)"
        yield Finding(
            "gcp_stop", Severity.CRITICAL, summary, _evidence(snap, s),
            Threshold("the computed max GCP lag", "server", "TimeBetweenEpochsTimeout",
                      reference="DbdihMain.cpp crashSystemAtGcpStop; Ndbcntr::execSYSTEM_ERROR "
                      "GCPStopDetected"),
            "find what stalled the global checkpoint (disk fsync, CPU, swap) before "
            f"starting node {node} again",
            nodes=(node,), key=str(node))


def node_stopped(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``node_stopped``: a data node stopped on an error (NDBStopForced) and has not started
    again; a 2303 names the node that killed it and why, from its error log."""
    for node, s in sorted(stops(snap).items()):
        if s.gcp or s.forced is None:
            continue
        code = s.forced.get("error") or 0
        signum = s.forced.get("signum") or 0
        if not code and not signum:
            continue
        status = exit_status(code) if code else ExitStatus.TEMPORARY
        message = exit_texts(code)[0] if code else ""
        if code == SYSTEM_ERROR:
            killer, why = killed_by(s.entry.error_data or "") if s.entry else (None, "")
            if killer is not None and is_known(killer, known_data_nodes(snap)):
                summary = f"node {node} was killed by node {killer} (2303): {why}"
            else:
                summary = (f"node {node} was killed by another node (2303); its error log "
                           "says which and why")
            if _COPY_FAILED.search(why):
                advice = ("a restart repeats what failed (a fragment or subscription copy "
                          "during its node restart): clear the cause the error data names "
                          "first")
            elif s.entry is None:
                advice = (f"read node {node}'s error log (--ssh, or on its host): its error "
                          "data names the node that killed it and why; clear that before "
                          "starting it again")
            else:
                advice = (f"clear what the error data names before starting node {node} "
                          "again")
        elif code:
            summary = f"node {node} stopped with error {code}: {message}"
            advice = {
                ExitStatus.PERMANENT: f"act before starting node {node}: {message}; a plain "
                                      "restart stops again",
                ExitStatus.FILESYSTEM_ERROR: f"start node {node} with --initial: its file "
                                             "system must be rebuilt",
            }.get(status, f"start node {node} again once its error log shows why it stopped")
        else:
            summary = f"node {node} was stopped by signal {signum}"
            advice = f"start node {node} again; find who sent the signal on its host"
        critical = status in (ExitStatus.PERMANENT, ExitStatus.FILESYSTEM_ERROR)
        yield Finding(
            "node_stopped", Severity.CRITICAL if critical else Severity.WARNING,
            summary, _evidence(snap, s),
            Threshold(f"exit {code}" if code else f"signal {signum}", "server",
                      reference="ndbd_exit_codes.cpp" + (
                          "; Ndbcntr::execSYSTEM_ERROR" if code == SYSTEM_ERROR else "")),
            advice, nodes=(node,), key=str(node))


def forget() -> None:
    """Drop the result remembered by the identity of its inputs."""
    _STOPS.clear()
