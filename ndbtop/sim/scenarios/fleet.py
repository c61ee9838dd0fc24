"""The three clusters of ``demo --fleet``: a DBA team's production, its disaster-recovery
replica and its staging, each a cluster of its own on its own loopback ports.

- ``prod``: 4 data nodes (8.4.3) in a rolling restart: node 2 restarts 5 s in, then 3, 4
  and 5, each once the one before is STARTED (7.6's phase durations, about 7 min each), so
  every restart after the first is estimated from those before it;
- ``dr``: 4 data nodes, every one STARTED, nothing to report; its SQL node applies prod's
  binary log (prod ``replicates_to`` dr);
- ``staging``: 2 data nodes of one node group configured on one host, which the
  ``replicas_same_host`` finding names.
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.replication import SimReplication
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import small_config, started, when
from ndbtop.sim.startplan import NDB_7_6_PROFILE

REPLICATES_TO = {"prod": ("dr",)}
"""The fleet's replication: prod's SQL node is dr's source."""
FLEET = (
    # name, colour, production, demo speed
    ("prod", "red", True, 10.0),
    ("dr", "blue", False, 1.0),
    ("staging", "green", False, 1.0),
)
"""The contexts ``demo --fleet`` plays, in the order the overview lists them."""


def fleet_prod(options: ScenarioOptions) -> SimCluster:
    """Production, with a node restart under way (a rolling restart, node by node)."""
    profile = replace(NDB_7_6_PROFILE, meta_data=1, synchronize=0, subscription_handover=5)
    config = small_config("prod", options, ((2, 0), (3, 0), (4, 1), (5, 1)),
                          data_memory_mb=16384, restart_profile=profile)
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=86400.0 * 12, data_fraction=0.6)
    cluster.workload.tps = 3000.0
    # Its SQL node's binary log goes to dr's (replicates_to = "dr"), two epochs a second
    # with changes.
    cluster.replication = SimReplication(epochs_per_s=2.0)
    cluster.at(5.0, lambda: cluster.restart_nodes((2,)))
    for before, node in ((2, 3), (3, 4), (4, 5)):
        _after(cluster, before, node)
    return cluster


def _after(cluster: SimCluster, before: int, node: int) -> None:
    """Restart ``node`` once ``before`` was restarted and is STARTED again."""
    when(cluster, lambda: cluster.data_nodes[before].stops > 0 and started(cluster, before)(),
         lambda: cluster.restart_nodes((node,)))


def fleet_dr(options: ScenarioOptions) -> SimCluster:
    """The disaster-recovery replica: healthy."""
    config = small_config("dr", options, ((2, 0), (3, 0), (4, 1), (5, 1)),
                          data_memory_mb=16384)
    cluster = SimCluster(config, options.seed + 1)
    cluster.boot_started(uptime=86400.0 * 40, data_fraction=0.6)
    cluster.workload.tps = 400.0
    return cluster


def fleet_staging(options: ScenarioOptions) -> SimCluster:
    """Staging: both replicas of its one node group on one host."""
    config = small_config("staging", options, ((2, 0), (3, 0)), data_memory_mb=4096)
    cluster = SimCluster(config, options.seed + 2)
    cluster.place_data_nodes(("192.168.7.20",))
    cluster.boot_started(uptime=3600.0 * 5, data_fraction=0.3)
    cluster.workload.tps = 50.0
    return cluster


BUILDERS = {"prod": fleet_prod, "dr": fleet_dr, "staging": fleet_staging}
"""How each cluster of :data:`FLEET` is built."""
