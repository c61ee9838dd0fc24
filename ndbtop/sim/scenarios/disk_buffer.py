"""S4: DiskPageBufferMemory warm-up and hit ratio, with the figures users reported."""

from __future__ import annotations

import math
from collections.abc import Callable

from ndbtop.mgm.version import make_version
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import asked_version, started, when
from ndbtop.sim.startplan import RestartProfile

# S4: DiskPageBufferMemory warm-up and hit ratio.
#
# The hit ratio is the since-start figure of ndbinfo.diskpagebuffer per node,
# 100 * direct / (direct + wait_io); throughput is the TRANSACTIONS counter's growth. The
# scenario reproduces the reported figures at these simulated times (t = 0 is the start of
# the scenario; the rolling restart ends when node 4 reports Started, at about t = 1,023 s):
#   t < 900 s (64M):                 93.4 % / 93.7 % (nodes 3 / 4), 273 tps.
#   900-960 s (node 3 restarts):     node 4 alone, 91.3 % over the last interval, 200 tps.
#   413 s after the rolling restart: 98.2 % / 98.6 %, 1,145 tps (the first figure at 512M).
#   1,780 s after it:                99.2 % / 99.45 %, 1,730 tps (reported: 99.2 / 99.5, 1,670).
#   3,300 s after it:                99.5 % / 99.65 %, still climbing, 2,290 tps (reported 2,330).
# With 512M a node's hit ratio climbs from its start in two steps: the hot pages are read in
# within minutes, the long tail of the table over about half an hour.

S4_RESTART = RestartProfile(
    alloc_memory=3,
    meta_data=1,
    restore_fragments=15,
    exec_redo_log=5,
    index_rebuild=6,
    synchronize=3,
    wait_lcp=20,
    subscription_handover=2,
)
S4_CHANGE_AT = 900.0
S4_PAGE_REQUESTS_PER_TXN = 12.0
S4_STEADY = {3: 93.4, 4: 93.7}
"""Hit ratio (percent) of each node with DiskPageBufferMemory=64M."""
S4_WARM_TOP = 99.99
S4_WARM_FAST = (5.3, 84.0)
"""Percentage points missing at start that the first pages read in recover, and their time
constant (seconds)."""
S4_WARM_SLOW = ({3: 1.16, 4: 0.76}, 1740.0)
"""Percentage points per node that the long tail recovers, and its time constant."""
S4_ALONE_PENALTY = 2.4
"""Points a node loses while it serves every read alone (93.7 % -> 91.3 %)."""
S4_ALONE_TPS_SHARE = 0.923
"""Throughput left while one node serves alone (200 tps instead of 217)."""


def s4_tps(miss_pct: float) -> float:
    """Throughput of the one-thread random-read benchmark at a given miss ratio (percent):
    273 tps at the 64M miss ratio, growing as fewer reads wait for the disk."""
    base_miss = 100.0 - sum(S4_STEADY.values()) / len(S4_STEADY)
    return 273.0 * ((base_miss + 0.32) / (max(miss_pct, 0.0) + 0.32)) ** 0.8


def s4_warm_hit(node_id: int, since: float) -> float:
    """Hit ratio (percent) of a node with DiskPageBufferMemory=512M ``since`` seconds after
    its start."""
    fast, fast_seconds = S4_WARM_FAST
    slow, slow_seconds = S4_WARM_SLOW
    return (
        S4_WARM_TOP
        - fast * math.exp(-since / fast_seconds)
        - slow[node_id] * math.exp(-since / slow_seconds)
    )


def disk_buffer(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "disk-buffer",
        ((3, "192.168.0.3", 0), (4, "192.168.0.4", 0)),
        api=tuple((i, None) for i in range(10, 14)),
        max_exec_threads=8,
        ndb_version=asked_version(options, make_version(8, 4, 3)),
        disk_page_buffer_mb=64,
        sql_node_id=10,
        restart_profile=S4_RESTART,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=3600.0)
    big_buffer: set[int] = set()

    def hit_ratio(node_id: int, since: float) -> float:
        alone = sum(1 for n in cluster.data_nodes.values() if n.serving) == 1
        value = s4_warm_hit(node_id, since) if node_id in big_buffer else S4_STEADY[node_id]
        return value - S4_ALONE_PENALTY if alone else value

    def retune() -> None:
        serving = [n.node_id for n in cluster.data_nodes.values() if n.serving]
        if serving:
            miss = sum(100.0 - hit_ratio(n, _since(cluster, n)) for n in serving) / len(serving)
            share = 1.0 if len(serving) > 1 else S4_ALONE_TPS_SHARE
            cluster.workload.tps = s4_tps(miss) * share
        cluster.after(5.0, retune)

    cluster.workload.hit_ratio = hit_ratio
    cluster.workload.page_requests_per_txn = S4_PAGE_REQUESTS_PER_TXN
    cluster.workload.ops_per_txn = 1.0
    cluster.workload.read_share = 1.0
    _prewarm(cluster, 3600.0, S4_STEADY)
    retune()

    def upgrade(node_id: int) -> Callable[[], None]:
        def go() -> None:
            big_buffer.add(node_id)
            cluster.restart_nodes((node_id,))

        return go

    cluster.at(S4_CHANGE_AT, upgrade(3))
    when(
        cluster,
        lambda: 3 in big_buffer and started(cluster, 3)() and cluster.data_nodes[3].stops > 0,
        upgrade(4),
    )
    return cluster


def _since(cluster: SimCluster, node_id: int) -> float:
    node = cluster.data_nodes[node_id]
    return cluster.now - node.started_at if node.started_at is not None else 0.0


def _prewarm(cluster: SimCluster, seconds: float, hit: dict[int, float]) -> None:
    """Counters of nodes that ran ``seconds`` before the simulation began."""
    requests = s4_tps(100 - sum(hit.values()) / len(hit)) * S4_PAGE_REQUESTS_PER_TXN * seconds / 2
    for node in cluster.data_nodes.values():
        instances = node.pgman[:-1] or node.pgman
        for inst in instances:
            d = node.dpb[inst]
            share = requests / len(instances)
            d["page_requests_direct_return"] += share * hit[node.node_id] / 100
            d["page_requests_wait_io"] += share * (100 - hit[node.node_id]) / 100
            d["pages_read"] += share * (100 - hit[node.node_id]) / 100
