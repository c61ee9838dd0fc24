"""The simulator's source and replica SQL nodes read through the real reader, on a clock the
test moves: the statements of each release (SHOW SLAVE STATUS and SHOW MASTER STATUS on
7.6, the applier status table per channel on 9.x), conflicts rising, and a snapshot with
replication recorded and read back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ndbtop.collect.replication import ReplicationSource
from ndbtop.demo.hub import demo_replication
from ndbtop.findings import evaluate
from ndbtop.model.replication import ReplicationState
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.record.codec import decode, encode
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.conftest import ManualTime


@asynccontextmanager
async def watched(version: str) -> AsyncIterator[tuple[Simulator, ManualTime,
                                                       ReplicationSource]]:
    cluster = build_scenario("replication-lag", ScenarioOptions(ndb_version=version))
    time = ManualTime()
    sim = Simulator(cluster, SimClock(speed=1.0, real=time, start_at=cluster.now))
    await sim.start(sql_port=0)
    setup = demo_replication(sim)
    assert setup is not None
    source = ReplicationSource(setup, sim.clock, 1.0, lambda: None)
    try:
        yield sim, time, source
    finally:
        await source.close()
        await sim.close()


async def poll(sim: Simulator, time: ManualTime, source: ReplicationSource,
               seconds: float) -> ReplicationState:
    time.advance(seconds)
    sim.sync()
    return await source.poll_once()


def snapshot(state: ReplicationState, sim: Simulator) -> ClusterSnapshot:
    up = SourceStatus("replication", SourceState.CONNECTED, last_ok=0.0)
    return ClusterSnapshot(0.0, sim.clock.wall(), 1.0, (up,), replication=state)


async def test_ndb_7_6_names_the_columns_slave_and_master() -> None:
    async with watched("7.6.29") as (sim, time, source):
        await poll(sim, time, source, 5.0)
        state = await poll(sim, time, source, 10.0)
    (channel,) = state.channels
    source_node = state.endpoint(channel.source)
    assert channel.threads.names == "slave"
    # SHOW BINARY LOG STATUS is 8.2's: the reader fell back to SHOW MASTER STATUS.
    assert source_node is not None and source_node.binlog_file == "binlog.000001"
    assert source_node.unavailable == ()
    assert channel.lag.epochs is not None and channel.lag.epochs <= 4


async def test_ndb_9_gives_conflicts_per_channel() -> None:
    async with watched("9.1.0") as (sim, time, source):
        model = sim.cluster.replication
        assert model is not None
        await poll(sim, time, source, 5.0)
        model.conflicts_per_s = 2.0
        state = await poll(sim, time, source, 30.0)
    (channel,) = state.channels
    replica = state.endpoint(channel.replica)
    assert replica is not None and replica.channel_epochs
    # 60 conflicts counted by NDB$EPOCH2() in the 30 s between the reads.
    assert channel.conflicts_per_min == 120.0
    found = {f.id: f.severity.value for f in evaluate(snapshot(state, sim))}
    assert found == {"replication_conflicts": "warning"}


async def test_a_snapshot_with_replication_is_recorded_and_read_back() -> None:
    async with watched("8.4.3") as (sim, time, source):
        await poll(sim, time, source, 5.0)
        state = await poll(sim, time, source, 40.0)
    snap = snapshot(state, sim)
    assert decode(encode(snap)) == snap


def test_the_simulator_names_the_max_replicated_epoch_by_release() -> None:
    # NDB 8.0.23's release notes ("Terminology updates") replace the _slave_ status
    # variable by Ndb_replica_max_replicated_epoch.
    from ndbtop.mgm.version import make_version
    from ndbtop.sim.sqlnode.replication import max_replicated_epoch_name

    assert max_replicated_epoch_name(make_version(7, 6, 29)) == "Ndb_slave_max_replicated_epoch"
    assert max_replicated_epoch_name(make_version(8, 0, 22)) == "Ndb_slave_max_replicated_epoch"
    assert max_replicated_epoch_name(make_version(8, 0, 23)) == (
        "Ndb_replica_max_replicated_epoch")
