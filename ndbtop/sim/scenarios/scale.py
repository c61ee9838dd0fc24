"""Clusters at scale, for benchmarks: large and max."""

from __future__ import annotations

from ndbtop.mgm.version import make_version
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.transactions import many
from ndbtop.sim.config import ClusterConfig, DataNodeConfig, NodeSlot
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import asked_version
from ndbtop.sim.threads import auto_layout

# Scale: large and max.

MAX_TRANSACTIONS = 5000
"""Transactions open in ``max`` (with four row locks each, one in a hundred waiting)."""


def scaled(name: str, data_nodes: int, api_nodes: int, options: ScenarioOptions) -> SimCluster:
    layout = auto_layout(32)
    data = tuple(
        DataNodeConfig(i, f"10.1.{i // 250}.{i % 250}", (i - 1) // 2, layout)
        for i in range(1, data_nodes + 1)
    )
    mgm_ids = (data_nodes + 1, data_nodes + 2)
    first_api = data_nodes + 3
    api_ids = tuple(range(first_api, min(first_api + api_nodes, 256)))
    config = ClusterConfig(
        name=name,
        mgm_nodes=tuple(NodeSlot(i, f"10.2.0.{k + 1}") for k, i in enumerate(mgm_ids)),
        data_nodes=data,
        api_nodes=tuple(NodeSlot(i, f"10.3.{i // 250}.{i % 250}") for i in api_ids),
        ndb_version=asked_version(options, make_version(8, 4, 3)),
        data_memory_mb=262144,
        sql_node_id=api_ids[0],
        connected_api=api_ids[1 : len(api_ids) * 2 // 3],
        host_cpus=36,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=86400.0)
    cluster.workload.tps = 2500.0 * data_nodes
    if name == "max":
        # For the cost of reading the transactions and locks (bench/locks_read.py).
        cluster.open_transactions = many(tuple(d.node_id for d in data), api_ids[:40],
                                         MAX_TRANSACTIONS, options.seed, cluster.now)
    return cluster
