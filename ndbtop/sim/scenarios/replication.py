"""Replication to a disaster-recovery cluster: a replica falling behind, and lost events.

The cluster's SQL node (API node 50) writes the binary log; a replica cluster's SQL node,
served beside it, applies it (:mod:`ndbtop.sim.replication`).

- ``replication-lag``: from :data:`LAG_FROM` the replica applies :data:`APPLY_PER_S` epochs
  a second while the source writes 10: it falls 0.6 s further behind every second (60 s
  behind at 2 min);
- ``lost-events``: at :data:`DISCONNECT_AT` the SQL node lags its event subscription by
  MaxBufferedEpochs (100) epochs: every data node's SUMA logs ``Disconnecting lagging nodes
  '<bitmask>', epoch <epoch>`` (InfoEvent, cut at 95 characters by the data node's
  infoEvent buffer: the epoch is lost) and a SubscriptionStatus per node (Suma.cpp
  ``checkMaxBufferedEpochs``), and disconnects it; it reconnects :data:`DISCONNECTED_FOR`
  seconds later and writes a LOST_EVENTS incident into its binary log, where the replica's
  applier stops (error 1590).
"""

from __future__ import annotations

from ndbtop.mgm.events.text import pack_string
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.replication import SimReplication
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import small_config

LAG_FROM, APPLY_PER_S = 20.0, 4.0
DISCONNECT_AT, DISCONNECTED_FOR = 30.0, 8.0
SQL_NODE = 50
MAX_BUFFERED_EPOCHS = 100
"""MaxBufferedEpochs, its default."""
INFO_EVENT, SUBSCRIPTION_STATUS = 49, 69
INFO_TEXT_MAX = 95
"""Characters of an InfoEvent's text (SimulatedBlock::infoEvent's 96-byte buffer with its
NUL): SUMA's bitmask of 64 hex digits leaves no room for the epoch after it."""


def _replicating(name: str, options: ScenarioOptions) -> SimCluster:
    config = small_config(name, options, ((2, 0), (3, 0)))
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=86400.0 * 3, data_fraction=0.4)
    cluster.workload.tps = 1500.0
    cluster.replication = SimReplication()
    return cluster


def replication_lag(options: ScenarioOptions) -> SimCluster:
    """The replica applies slower than the source writes."""
    cluster = _replicating("replication-lag", options)
    model = cluster.replication
    assert model is not None

    def slow() -> None:
        model.advance(cluster.now)
        model.apply_per_s = APPLY_PER_S

    cluster.at(LAG_FROM, slow)
    return cluster


def lost_events(options: ScenarioOptions) -> SimCluster:
    """The SQL node is disconnected for lagging; its binary log loses events."""
    cluster = _replicating("lost-events", options)
    model = cluster.replication
    assert model is not None

    def disconnect() -> None:
        model.advance(cluster.now)
        epoch = model.epoch_of(max(model.written - MAX_BUFFERED_EPOCHS, 0))
        text = f"Disconnecting lagging nodes '{1 << SQL_NODE:064x}', epoch {epoch}"
        for node in sorted(cluster.data_nodes):
            cluster.emit(INFO_EVENT, node, *pack_string(text[:INFO_TEXT_MAX]))
            cluster.emit(SUBSCRIPTION_STATUS, node, 1, SQL_NODE, epoch & 0xFFFFFFFF,
                         epoch >> 32, MAX_BUFFERED_EPOCHS, MAX_BUFFERED_EPOCHS)
        model.disconnect()

    def reconnect() -> None:
        model.advance(cluster.now)
        model.reconnect()

    cluster.at(DISCONNECT_AT, disconnect)
    cluster.at(DISCONNECT_AT + DISCONNECTED_FOR, reconnect)
    return cluster
