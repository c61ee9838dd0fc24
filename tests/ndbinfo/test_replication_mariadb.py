"""Replication read from two real MariaDB servers replicating on loopback (mariadb_pair.py):
real ``SHOW ALL SLAVES STATUS`` rows with the ``Slave_*`` and ``Master_*`` names, threads
that stop, their errors, a real LOST_EVENTS incident, and NDB's replication tables as
fixtures with their real columns. Each case raises its finding, the export shows it, and
the advice says what to do next.

Time for rates comes from a clock the test moves (epochs written between two reads over
the seconds it says passed); waiting for the replica is on a condition, bounded.
"""

from __future__ import annotations

import pytest
from mariadb_pair import MONITOR_PASSWORD, MONITOR_USER, PRIMARY_ID, ReplicationPair

from ndbtop.collect.replication import ReplicationSource
from ndbtop.export.families import snapshot_families
from ndbtop.findings import evaluate
from ndbtop.model.replication import ReplicationState
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.replication.setup import REPLICA, THIS_CLUSTER, EndpointSpec, ReplicationSetup
from tests.conftest import wait_until

THRESHOLD_S = 5.0


class Clock:
    """Time that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return 1.7e9 + self.now


def source(pair: ReplicationPair, clock: Clock) -> ReplicationSource:
    def options(port: int) -> MysqlOptions:
        return MysqlOptions(host="127.0.0.1", port=port, user=MONITOR_USER,
                            password=MONITOR_PASSWORD)

    setup = ReplicationSetup((EndpointSpec(options(pair.primary.port), THIS_CLUSTER),
                              EndpointSpec(options(pair.replica.port), REPLICA)), THRESHOLD_S)
    return ReplicationSource(setup, clock, 1.0, lambda: None)


def snapshot(state: ReplicationState, clock: Clock) -> ClusterSnapshot:
    up = SourceStatus("replication", SourceState.CONNECTED, last_ok=clock.now)
    return ClusterSnapshot(clock.now, clock.wall(), 1.0, (up,), replication=state)


def found(snap: ClusterSnapshot) -> dict[str, object]:
    return {f.id: f for f in evaluate(snap)}


def served(snap: ClusterSnapshot, name: str) -> dict[tuple[str, ...], float]:
    return {tuple(s.labels.values()): s.value for fam in snapshot_families(snap, snap.taken_at)
            for s in fam.samples if fam.name == name}


async def caught_up(pair: ReplicationPair, epoch: int) -> None:
    await wait_until(lambda: pair.applied() == epoch, 10.0, "the replica applied the epoch")


@pytest.fixture
def fresh(pair: ReplicationPair) -> ReplicationPair:
    """The replica reading the primary from its current position, both threads running."""
    pair.connect_replica()
    return pair


async def test_a_channel_is_read_with_the_slave_names_and_paired_by_server_id(
        fresh: ReplicationPair) -> None:
    clock = Clock()
    src = source(fresh, clock)
    try:
        last = [fresh.write_epoch() for _ in range(3)][-1]
        await caught_up(fresh, last)
        state = await src.poll_once()
    finally:
        await src.close()
    (channel,) = state.channels
    threads = channel.threads
    # MariaDB names the columns Slave_* and Master_* (SHOW ALL SLAVES STATUS).
    assert threads.names == "slave" and threads.column("sql") == "Slave_SQL_Running"
    assert (threads.io_running, threads.sql_running) == ("Yes", "Yes")
    assert threads.source_server_id == PRIMARY_ID and threads.source_port == fresh.primary.port
    assert channel.source == f"127.0.0.1:{fresh.primary.port}"
    assert channel.applied_epoch == channel.source_epoch == last
    assert (channel.lag.epochs, channel.lag.seconds) == (0, 0.0)
    assert found(snapshot(state, clock)) == {}


async def test_a_stopped_applier_is_critical_and_served_as_not_running(
        fresh: ReplicationPair) -> None:
    clock = Clock()
    src = source(fresh, clock)
    fresh.replica_sql("STOP SLAVE SQL_THREAD")
    try:
        for _ in range(2):
            fresh.write_epoch()
        state = await src.poll_once()
    finally:
        await src.close()
        fresh.replica_sql("START SLAVE SQL_THREAD")
    snap = snapshot(state, clock)
    stopped = found(snap)["replication_stopped"]
    assert stopped.severity.value == "critical"  # type: ignore[attr-defined]
    assert "Slave_SQL_Running = No" in [f"{e.what} = {e.value}"
                                        for e in stopped.evidence]  # type: ignore[attr-defined]
    # No error: stopped by hand; the advice starts it with the server's own statement.
    assert "START SLAVE when intended" in stopped.advice  # type: ignore[attr-defined]
    labels = (f"127.0.0.1:{fresh.primary.port}", f"127.0.0.1:{fresh.replica.port}", "")
    assert served(snap, "ndb_replication_running") == {(*labels, "io"): 1.0,
                                                       (*labels, "sql"): 0.0}
    assert served(snap, "ndb_replication_lag_epochs") == {labels: 2.0}


async def test_a_delayed_replica_lags_in_epochs_and_in_derived_seconds(
        pair: ReplicationPair) -> None:
    pair.connect_replica(delay=600)
    clock = Clock()
    src = source(pair, clock)
    try:
        await src.poll_once()
        for _ in range(5):
            pair.write_epoch()
        clock.now += 10.0
        state = await src.poll_once()
    finally:
        await src.close()
        pair.connect_replica()
    (channel,) = state.channels
    # Five epochs written in the ten seconds between the reads, none applied: 0.5 epochs a
    # second, so the five behind are ten seconds.
    assert channel.lag.epochs == 5
    assert channel.lag.seconds == pytest.approx(10.0)
    assert "derived: 5 epochs / 0.5 epochs/s" in channel.lag.basis
    snap = snapshot(state, clock)
    lag = found(snap)["replication_lag"]
    assert lag.threshold.describe() == "5 s: ndbtop's judgement"  # type: ignore[attr-defined]
    assert served(snap, "ndb_replication_lag_seconds") == {
        (f"127.0.0.1:{pair.primary.port}", f"127.0.0.1:{pair.replica.port}", ""): 10.0}


async def test_a_lost_events_incident_stops_the_replica_and_is_found_on_both_sides(
        fresh: ReplicationPair) -> None:
    clock = Clock()
    src = source(fresh, clock)
    try:
        before = fresh.write_epoch()
        await caught_up(fresh, before)
        await src.poll_once()
        fresh.lose_events()
        after = fresh.write_epoch()
        await wait_until(lambda: fresh.sql_running() == "No", 10.0, "the applier stopped")
        state = await src.poll_once()
    finally:
        await src.close()
        fresh.connect_replica()
    (channel,) = state.channels
    assert channel.threads.last_sql_errno == 1590
    assert channel.threads.last_sql_error.startswith(
        "The incident LOST_EVENTS occurred on the master. Message: ")
    # The primary's binary log: the Incident event between the two epochs' transactions.
    incident = channel.incident
    assert incident is not None and incident.kind == "LOST_EVENTS"
    assert (incident.epoch_before, incident.epoch_after) == (before, after)
    assert channel.applied_epoch == before
    findings = found(snapshot(state, clock))
    lost = findings["replication_lost_events"]
    assert lost.severity.value == "critical"  # type: ignore[attr-defined]
    assert [e.what for e in lost.evidence] == ["Last_SQL_Error", "incident",  # type: ignore[attr-defined]
                                               "replica applied"]
    assert "another binlogging SQL node" in lost.advice  # type: ignore[attr-defined]
    assert findings["replication_stopped"].severity.value == "critical"  # type: ignore[attr-defined]
