"""The backup scenario: backups of a loaded four-node cluster, one of them aborted.

Four data nodes in two node groups hold 45 GB of DataMemory each (64 GB
configured). Each node writes its primary fragments, 18 GB, at 64 MB/s, so a
backup takes about 4 min 50 s: backup 1 starts at 0:20 and completes. Backup 2
starts at 7:00; two minutes in, data node 5 fails (stopped with abort, then
restarted by its angel), and the master aborts the backup with error 1326.
Once node 5 is back, a backup started from ndbtop runs the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbtop.mgm.version import make_version
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.scenarios.steps import asked_version

if TYPE_CHECKING:
    from ndbtop.sim.scenarios.options import ScenarioOptions

FIRST_BACKUP_AT = 20.0
SECOND_BACKUP_AT = 420.0
NODE_FAILURE_AFTER = 120.0
FAILING_NODE = 5


def build_backup(options: ScenarioOptions) -> SimCluster:
    """Build the backup scenario's cluster and schedule its backups."""
    config = simple_config(
        "backup",
        ((2, "10.0.1.2", 0), (3, "10.0.1.3", 0), (4, "10.0.1.4", 1), (5, "10.0.1.5", 1)),
        mgm=((1, "10.0.1.1"),),
        api=tuple((i, None) for i in range(6, 10)),
        max_exec_threads=8,
        ndb_version=asked_version(options, make_version(8, 4, 3)),
        data_memory_mb=65536,
        sql_node_id=6,
        connected_api=(7, 8),
        host_cpus=16,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(data_fraction=45 / 64)
    cluster.workload.tps = 6000.0
    mgmd = config.mgm_nodes[0].node_id
    cluster.at(FIRST_BACKUP_AT, lambda: cluster.backups.start(mgmd))
    cluster.at(SECOND_BACKUP_AT, lambda: cluster.backups.start(mgmd))
    cluster.at(
        SECOND_BACKUP_AT + NODE_FAILURE_AFTER,
        lambda: cluster.restart_nodes((FAILING_NODE,), abort=True),
    )
    return cluster

