"""Rules on replication between clusters: a stopped channel, a replica falling behind, lost
events, conflicts; and a SQL node the data nodes disconnected for lagging.

The channel rules judge what the replica SQL nodes answered at their last read (a channel
whose replica does not answer now is not judged: the ``replication`` source says why).
``sql_node_disconnected_lagging`` reads the cluster log: the data nodes' SUMA logs
``Disconnecting lagging nodes '<bitmask>', epoch <epoch>`` (InfoEvent) and one
SubscriptionStatus per node when a subscriber's unacknowledged epochs reach
MaxBufferedEpochs (Suma.cpp ``Suma::checkMaxBufferedEpochs``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ndbtop.findings.event_index import events_of
from ndbtop.mgm.events.decode import Event
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.replication import Channel, ReplicationState, epoch_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.replication.rows import INCIDENT_ERRNO, incident_of

INFO_EVENT, SUBSCRIPTION_STATUS = 49, 69
LAGGING_RECENT_S = 900.0
"""How long a disconnection for lagging stays a finding (ndbtop's judgement): the SQL node
reconnects within seconds, but what it lost stays lost."""
_LAGGING = re.compile(r"Disconnecting lagging nodes '([0-9a-fA-F]{1,128})'"
                      r"(?:, epoch ([0-9]{1,20}))?")
_EXCEEDED = re.compile(r"MaxBufferedEpochs \(([0-9]{1,10}) >= ([0-9]{1,10})\)")
MAX_NODE_ID = 255
LOST_EVENTS_ADVICE = (
    "the source's binary log misses the changes made while its SQL node was away: "
    "replication alone cannot bring the replica level (skipping the incident leaves it "
    "different). Fail the channel over to another binlogging SQL node of the source whose "
    "binary log has no gap there: on it, the next_file and next_position of "
    "mysql.ndb_binlog_index WHERE epoch = the replica's MAX(epoch) of "
    "mysql.ndb_apply_status; CHANGE REPLICATION SOURCE TO (CHANGE MASTER TO before 8.0.23) "
    "that file and position, and start the replica. With no such SQL node, re-seed the "
    "replica: a new backup of the source (START BACKUP), ndb_restore --restore-epoch on the "
    "replica, then replicate from the File and Position of the source's first "
    "ndb_binlog_index epoch after the restored one. Then find why the SQL node lost events "
    "(sql_node_disconnected_lagging)")
"""What an operator does after a LOST_EVENTS incident: the Reference Manual's "Implementing
Failover with NDB Cluster Replication" and "NDB Cluster Backups With NDB Cluster
Replication" (25.7.8, 25.7.9 in 8.0 and 8.4)."""


def _fresh(state: ReplicationState, channel: Channel, wall: float) -> float | None:
    """The age of the channel's read when its replica answered at its last read, else
    None (not judged)."""
    replica = state.endpoint(channel.replica)
    if replica is None or replica.error is not None or channel.read_at is None:
        return None
    return max(wall - channel.read_at, 0.0)


def _judged(snap: ClusterSnapshot) -> Iterator[tuple[Channel, float]]:
    state = snap.replication
    if state is None:
        return
    for channel in state.channels:
        age = _fresh(state, channel, snap.wall)
        if age is not None:
            yield channel, age


def _where(channel: Channel) -> str:
    return f"{channel.threads.column('status')} on {channel.replica}"


def replication_stopped(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``replication_stopped`` (critical): a channel's receiver or applier thread does not
    run."""
    for channel, age in _judged(snap):
        t = channel.threads
        if t.io_ok and t.sql_ok:
            continue
        stopped = [name for name, ok in (("I/O (receiver)", t.io_ok),
                                         ("SQL (applier)", t.sql_ok)) if not ok]
        evidence = [Evidence(t.column("io"), t.io_running or "?", _where(channel), age),
                    Evidence(t.column("sql"), t.sql_running or "?", _where(channel), age)]
        errors = []
        if t.last_io_errno:
            errors.append(f"I/O error {t.last_io_errno}: {t.last_io_error}")
            evidence.append(Evidence("Last_IO_Error", f"{t.last_io_errno}: {t.last_io_error}",
                                     _where(channel), age))
        if t.last_sql_errno:
            errors.append(f"SQL error {t.last_sql_errno}: {t.last_sql_error}")
            evidence.append(Evidence("Last_SQL_Error",
                                     f"{t.last_sql_errno}: {t.last_sql_error}",
                                     _where(channel), age))
        start = "START SLAVE" if t.names == "slave" else "START REPLICA"
        if t.last_sql_errno == INCIDENT_ERRNO:
            advice = ("the applier stopped on a LOST_EVENTS incident: see replication_lost_"
                      "events; starting it again skips nothing and stops there again")
        elif t.last_sql_errno:
            advice = (f"fix what Last_SQL_Error names on the replica, then {start} "
                      "SQL_THREAD; never skip an epoch's transaction (the replica would "
                      "differ from the source from then on)")
        elif t.last_io_errno:
            advice = ("the replica cannot read the source's binary log: check that the "
                      f"source {t.source} answers and the replication user's grants; error "
                      "1236 means the source purged the binary log the replica still needs: "
                      "re-seed the replica")
        else:
            advice = (f"no error: stopped by hand (STOP REPLICA)? {start} when intended; "
                      "the DR site falls behind meanwhile")
        summary = (f"replication {channel.label}: {' and '.join(stopped)} "
                   f"thread{'s' if len(stopped) > 1 else ''} not running"
                   + (f" ({'; '.join(errors)})" if errors else ""))
        yield Finding(
            "replication_stopped", Severity.CRITICAL, summary, tuple(evidence),
            Threshold(f"{t.column('io')} and {t.column('sql')} Yes", "ndbtop",
                      reference=t.column("status")),
            advice, key=channel.key)


def replication_lag(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``replication_lag`` (warning): a replica further behind than the threshold, in the
    seconds derived from its epochs behind (else its own Seconds_Behind_Source)."""
    state = snap.replication
    if state is None:
        return
    limit = state.lag_threshold_s
    for channel, age in _judged(snap):
        lag, t = channel.lag, channel.threads
        seconds, measure = lag.seconds, "derived from the epochs behind"
        if seconds is None and t.seconds_behind is not None:
            seconds, measure = float(t.seconds_behind), t.column("behind")
        if seconds is None or seconds <= limit:
            continue
        evidence = []
        if lag.epochs is not None:
            more = "at least " if lag.at_least else ""
            evidence.append(Evidence(
                "epochs behind", f"{more}{lag.epochs:,} (source at "
                f"{epoch_text(channel.source_epoch)}, replica applied "
                f"{epoch_text(channel.applied_epoch)})",
                f"ndb_binlog_index on {channel.source}, ndb_apply_status on {channel.replica}",
                age))
        if lag.seconds is not None:
            evidence.append(Evidence("lag (derived)", f"{lag.seconds:,.0f} s", lag.basis, age))
        behind = "NULL" if t.seconds_behind is None else f"{t.seconds_behind} s"
        evidence.append(Evidence(
            t.column("behind"), behind,
            f"{_where(channel)}: the replica's own estimate, from the source's timestamp of "
            "the event it applies now; blind to what its receiver has not fetched", age))
        yield Finding(
            "replication_lag", Severity.WARNING,
            f"replication {channel.label}: {seconds:,.0f} s behind ({measure})",
            tuple(evidence),
            Threshold(f"{limit:g} s", "ndbtop", "--replication-lag-threshold"),
            "the replica applies slower than the source writes: look at its applier "
            f"({t.column('sql')}_State; replica_allow_batching ON; parallel workers, "
            "replica_parallel_workers, apply NDB epochs only from NDB 8.0.33), its cluster's "
            "data nodes (redo log, disks, CPU) and the link between the sites; a failover "
            "now loses this much",
            key=channel.key)


def replication_lost_events(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``replication_lost_events`` (critical): the replica stopped on a LOST_EVENTS
    incident, or the source's binary log holds one the replica has not applied past."""
    for channel, age in _judged(snap):
        stopped_on = incident_of(channel.threads)
        incident = channel.incident
        if stopped_on is None and incident is None:
            continue
        evidence = []
        if stopped_on is not None:
            t = channel.threads
            summary = (f"replication {channel.label}: the applier stopped on the source's "
                       f"{stopped_on[0]} incident ({stopped_on[1]})")
            evidence.append(Evidence("Last_SQL_Error", f"{t.last_sql_errno}: "
                                     f"{t.last_sql_error}", _where(channel), age))
        else:
            assert incident is not None
            summary = (f"replication {channel.label}: the source's binary log holds a "
                       f"{incident.kind} incident the replica will stop at")
        if incident is not None:
            between = (f"between epochs {epoch_text(incident.epoch_before)} and "
                       f"{epoch_text(incident.epoch_after)}")
            evidence.append(Evidence(
                "incident", f"{incident.info} at {incident.file}:{incident.position}, "
                f"{between}", f"SHOW BINLOG EVENTS on {channel.source} at a gap of its "
                "ndb_binlog_index", max(snap.wall - incident.seen_at, 0.0)))
        evidence.append(Evidence("replica applied", epoch_text(channel.applied_epoch),
                                 f"ndb_apply_status on {channel.replica}", age))
        yield Finding(
            "replication_lost_events", Severity.CRITICAL, summary, tuple(evidence),
            Threshold("any LOST_EVENTS incident", "server", reference=(
                "ha_ndbcluster_binlog.cc Ndb_binlog_thread::check_reconnect_incident; "
                f"the replica stops with {INCIDENT_ERRNO}")),
            LOST_EVENTS_ADVICE,
            key=channel.key)


def replication_conflicts(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``replication_conflicts`` (warning): the conflict counters of a replica rose between
    its last two reads."""
    for channel, age in _judged(snap):
        rate = channel.conflicts_per_min
        if rate is None or rate <= 0:
            continue
        yield Finding(
            "replication_conflicts", Severity.WARNING,
            f"replication {channel.label}: {rate:,.1f} conflicts per minute",
            (Evidence("conflicts", f"{rate:,.1f} per minute",
                      f"Ndb_conflict_* on {channel.replica}", age),),
            Threshold("any rise", "ndbtop", reference="Ndb_conflict_fn_* status variables"),
            "rows were changed on both clusters; the conflict function kept one version, "
            "and the table's exceptions table (<table>$EX), where one was created, holds "
            "the rows in conflict: read them there, and find the application that writes "
            "on both sides",
            key=channel.key)


def _lagging_nodes(event: Event) -> tuple[tuple[int, ...], str | None]:
    """The SQL (API) nodes an event says were disconnected for lagging, and the epoch."""
    if event.type == INFO_EVENT:
        m = _LAGGING.search(event.text)
        if m is None:
            return (), None
        mask = int(m.group(1), 16)
        nodes = tuple(i for i in range(1, MAX_NODE_ID + 1) if mask >> i & 1)
        return nodes, (epoch_text(int(m.group(2))) if m.group(2) else None)
    if event.type == SUBSCRIPTION_STATUS and event.word(1) == 1:
        node = event.word(2)
        return ((node,) if 1 <= node <= MAX_NODE_ID else ()), None
    return (), None


def sql_node_disconnected_lagging(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``sql_node_disconnected_lagging`` (warning): the data nodes disconnected a SQL (API)
    node whose event subscription lagged MaxBufferedEpochs epochs."""
    newest: dict[int, tuple[Event, str | None]] = {}
    limit: str | None = None
    for e in events_of(snap.events, INFO_EVENT, SUBSCRIPTION_STATUS):
        if e.malformed or snap.wall - e.received_at > LAGGING_RECENT_S:
            continue
        nodes, epoch = _lagging_nodes(e)
        if e.type == SUBSCRIPTION_STATUS and (m := _EXCEEDED.search(e.text)):
            limit = m.group(2)
        for node in nodes:
            before = newest.get(node)
            if before is None or e.type == INFO_EVENT or before[0].type != INFO_EVENT:
                newest[node] = (e, epoch or (before[1] if before else None))
    for node, (e, epoch) in sorted(newest.items()):
        status = snap.node(node)
        where = f" ({status.address})" if status is not None and status.address else ""
        at = f" at epoch {epoch}" if epoch else ""
        yield Finding(
            "sql_node_disconnected_lagging", Severity.WARNING,
            f"SQL node {node}{where} disconnected by the data nodes for lagging{at}",
            (Evidence("event", e.text, f"node {e.source_node}",
                      max(snap.wall - e.received_at, 0.0)),),
            Threshold(f"{limit or 'MaxBufferedEpochs'} epochs unacknowledged", "server",
                      "MaxBufferedEpochs", limit, "Suma.cpp Suma::checkMaxBufferedEpochs"),
            f"if node {node} writes a binary log, that log now has a LOST_EVENTS gap and its "
            "replicas stop there (replication_lost_events): fail them over to another "
            "binlogging SQL node. Then find why it lagged (its host's CPU, the network, a "
            "slow binary log disk) and raise MaxBufferedEpochs or MaxBufferedEpochBytes if "
            "it only falls behind in bursts",
            nodes=(node,))
