"""The replication rules on snapshots built from their evidence, and the data nodes'
"Disconnecting lagging nodes" read back from a cluster log file."""

from __future__ import annotations

from dataclasses import replace

from ndbtop.findings import evaluate
from ndbtop.mgm.cluster_log import parse_line
from ndbtop.model.replication import Channel, Endpoint, Lag, ReplicaThreads, ReplicationState
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus

WALL = 1.7e9
# The cluster log as a field log shows it (2017): SUMA's infoEvent, cut at 95 characters
# by the data node's 96-byte buffer, so the epoch that follows the bitmask is lost
# (Suma.cpp Suma::checkMaxBufferedEpochs: "Disconnecting lagging nodes '%s', epoch %llu").
LAGGING = ("2017-05-21 13:28:05 [MgmtSrvr] INFO     -- Node 3: Disconnecting lagging nodes "
           "'0000000000000000000000000000000000000000000000000010000000000000',")
# The SubscriptionStatus event SUMA sends for each node (EventLogger.cpp).
SUBSCRIPTION = ("2017-05-21 13:28:05 [MgmtSrvr] WARNING  -- Node 3: Disconnecting node 52 "
                "because it has exceeded MaxBufferedEpochs (100 >= 100), epoch 1234/5")


def snap(channel: Channel, *, error: str | None = None, wall: float = WALL,
         **kw: object) -> ClusterSnapshot:
    replica = Endpoint(channel.replica, "dr", error=error, read_at=WALL, channels=(
        channel.threads,))
    state = ReplicationState((replica,), (channel,), 60.0, WALL)
    up = SourceStatus("replication", SourceState.CONNECTED, last_ok=0.0)
    return ClusterSnapshot(0.0, wall, 1.0, (up,), replication=state, **kw)  # type: ignore[arg-type]


def channel(**threads: object) -> Channel:
    t = ReplicaThreads("", "10.0.1.5", 3306, 11, "Yes", "Yes", 3)
    return Channel("10.0.2.5:3306", "", replace(t, **threads), "10.0.1.5:3306", 1, 2,
                   Lag(20, 2.0, "derived"), read_at=WALL)


def ids(s: ClusterSnapshot) -> dict[str, str]:
    return {f.id: f.severity.value for f in evaluate(s)}


def test_a_healthy_channel_raises_nothing() -> None:
    assert ids(snap(channel())) == {}


def test_a_stopped_thread_is_critical_with_advice_for_its_error() -> None:
    found = {f.id: f for f in evaluate(snap(channel(io_running="Connecting",
                                                    last_io_errno=2003,
                                                    last_io_error="error connecting")))}
    stopped = found["replication_stopped"]
    assert stopped.severity.value == "critical" and "I/O (receiver) thread" in stopped.summary
    assert "1236" in stopped.advice and "10.0.1.5:3306" in stopped.advice


def test_a_replica_that_does_not_answer_is_not_judged() -> None:
    assert ids(snap(channel(sql_running="No"), error="connection refused")) == {}


def test_lag_past_the_threshold_the_derived_seconds_first() -> None:
    late = replace(channel(), lag=Lag(700, 70.0, "derived: ..."))
    assert ids(snap(late)) == {"replication_lag": "warning"}
    # Without derived seconds, the replica's own Seconds_Behind_Source.
    own = replace(channel(seconds_behind=90), lag=Lag(None, None, "not watched"))
    assert ids(snap(own)) == {"replication_lag": "warning"}
    assert ids(snap(replace(channel(), lag=Lag(500, 50.0, "derived")))) == {}


def test_conflicts_rising_warn() -> None:
    assert ids(snap(replace(channel(), conflicts_per_min=12.0))) == {
        "replication_conflicts": "warning"}
    assert ids(snap(replace(channel(), conflicts_per_min=0.0))) == {}


def test_the_lagging_sql_node_from_the_cluster_log_file() -> None:
    lines = tuple(parse_line(line) for line in (LAGGING, SUBSCRIPTION))
    at = lines[0].time
    assert at is not None and [ln.event.type for ln in lines] == [49, 69]  # type: ignore[union-attr]
    found = [f for f in evaluate(snap(channel(), wall=at + 60.0, cluster_log=lines))
             if f.id == "sql_node_disconnected_lagging"]
    # Bit 52 of the bitmask (words highest first) and the node the SubscriptionStatus names.
    assert [(f.nodes, f.severity.value) for f in found] == [((52,), "warning")]
    assert found[0].threshold.configured == "100"
    # A quarter of an hour later it is history.
    later = evaluate(snap(channel(), wall=at + 1000.0, cluster_log=lines))
    assert not [f for f in later if f.id == "sql_node_disconnected_lagging"]


def test_lost_events_advice_gives_the_manuals_failover_position_and_the_reseed() -> None:
    # The Reference Manual, "Implementing Failover with NDB Cluster Replication": on the
    # other source SQL node, the next_file/next_position of the ndb_binlog_index row WHERE
    # epoch = the replica's MAX(epoch) of ndb_apply_status (the row after it would skip an
    # epoch). Without such a node, "NDB Cluster Backups With NDB Cluster Replication":
    # ndb_restore --restore-epoch, then the first epoch after the restored one.
    stopped = channel(sql_running="No", last_sql_errno=1590, last_sql_error=(
        "The incident LOST_EVENTS occurred on the source. Message: cluster disconnect"))
    (lost,) = [f for f in evaluate(snap(stopped)) if f.id == "replication_lost_events"]
    advice = lost.advice
    assert "next_file and next_position of mysql.ndb_binlog_index WHERE epoch = the " \
           "replica's MAX(epoch) of mysql.ndb_apply_status" in advice
    assert "epoch >" not in advice
    assert "ndb_restore --restore-epoch" in advice and "START BACKUP" in advice
    assert "CHANGE REPLICATION SOURCE TO" in advice


def test_lag_advice_names_the_appliers_settings_by_the_servers_columns() -> None:
    late = replace(channel(), lag=Lag(700, 70.0, "derived: ..."))
    (found,) = evaluate(snap(late))
    assert "Replica_SQL_Running_State" in found.advice
    assert "replica_parallel_workers" in found.advice and "NDB 8.0.33" in found.advice
    old = replace(late, threads=replace(late.threads, names="slave"))
    assert "Slave_SQL_Running_State" in evaluate(snap(old))[0].advice
