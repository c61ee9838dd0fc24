"""The field scenarios the simulator plays, with the figures users reported.

Each scenario builds a :class:`SimCluster` and schedules what happens to it
in simulated time. Requests from clients (restart, stop, start, log levels)
change the cluster in every scenario, with the real refusals.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from ndbtop.mgm.version import make_version, parse_version_text
from ndbtop.sim.backup_scenario import build_backup
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import ClusterConfig, DataNodeConfig, NodeSlot, simple_config
from ndbtop.sim.datanode import STARTED
from ndbtop.sim.startplan import NDB_7_5_PROFILE, NDB_7_6_PROFILE, RestartProfile
from ndbtop.sim.threads import auto_layout

DEFAULT_FAIL_PHASE = 5
"""Where an injected failure hangs a node restart by default: phase 5, in which the
starting node copies and restores its data and waits for a local checkpoint."""


@dataclass(frozen=True, slots=True)
class ScenarioOptions:
    """Choices a user can make when starting a scenario."""

    seed: int = 1
    fast_redo: bool = False
    ndb_version: str | None = None
    fail_node: int | None = None
    """A data node whose node restarts hang in start phase ``fail_phase`` and never
    finish (:meth:`SimCluster.fail_restarts`)."""
    fail_phase: int = DEFAULT_FAIL_PHASE
    """The start phase ``fail_node`` hangs in."""
    data_node_hosts: tuple[str, ...] = ()
    """Host names or addresses the data nodes report instead of the scenario's own,
    given in turn (for reading them over SSH on loopback aliases)."""
    report_frequency: int | None = None
    """StartupStatusReportFrequency of the data nodes (None: the scenario's own, the real
    default 0 for the initial start)."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """A named scenario: what it shows, how fast the demo plays it, and how to build it."""

    name: str
    summary: str
    demo_speed: float
    build: Callable[[ScenarioOptions], SimCluster]


def _when(
    cluster: SimCluster,
    predicate: Callable[[], bool],
    action: Callable[[], None],
    every: float = 2.0,
) -> None:
    """Run ``action`` once ``predicate`` holds, checking every ``every`` simulated seconds."""

    def check() -> None:
        if predicate():
            action()
        else:
            cluster.after(every, check)

    cluster.after(every, check)


def _started(cluster: SimCluster, *node_ids: int) -> Callable[[], bool]:
    return lambda: all(cluster.data_nodes[n].state == STARTED for n in node_ids)


def _version(options: ScenarioOptions, default: int) -> int:
    return parse_version_text(options.ndb_version) if options.ndb_version else default


# S1: the --initial start that takes an hour.

FAST_REDO_TOTAL = 312.0
"""Seconds the same initial start took once redo pages were no longer synced one by one."""


def _initial_start(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "initial-start",
        ((10, "192.168.0.10", 0), (11, "192.168.0.11", 0)),
        mgm=((1, "192.168.0.1"),),
        api=tuple((i, None) for i in range(20, 25)),
        max_exec_threads=4,
        ndb_version=_version(options, make_version(8, 4, 3)),
        data_memory_mb=12000,
        index_memory_mb=2000,
        fragment_log_file_size_mb=256,
        no_of_fragment_log_files=42,
        sql_node_id=20,
        connected_api=(21,),
        # The 2008 field log (6.x series) created the redo log in phase 4; current releases
        # do it in phase 2. The replay keeps the log's numbering.
        redo_init_phase=4,
        startup_status_report_frequency=options.report_frequency or 0,
    )
    if options.fast_redo:
        config = replace(config, redo_init_mb_per_sec=config.redo_log_mb / (FAST_REDO_TOTAL - 8))
    else:
        # Phase 4 took 38 min 47 s for 43,008 MB of redo log per node.
        config = replace(config, redo_init_mb_per_sec=config.redo_log_mb / (38 * 60 + 47))
    cluster = SimCluster(config, options.seed)
    cluster.disk_profile = "fast_redo" if options.fast_redo else "synced_redo"
    cluster.at(2.0, lambda: cluster.launch((10, 11), initial=True))
    _when(cluster, _started(cluster, 10, 11), lambda: setattr(cluster.workload, "tps", 850.0))
    return cluster


# S2: node restart, phase by phase.


def _node_restart(options: ScenarioOptions) -> SimCluster:
    version = _version(options, make_version(7, 6, 6))
    base = NDB_7_5_PROFILE if version < make_version(7, 6, 0) else NDB_7_6_PROFILE
    # Metadata 1 s, copying fragments ~0 s and hand-over 5 s (the low ends of the reported
    # ranges) leave room for the shutdown and the short steps within the reported totals.
    profile = replace(base, meta_data=1, synchronize=0, subscription_handover=5)
    config = simple_config(
        "node-restart",
        ((2, "192.168.0.2", 0), (3, "192.168.0.3", 0)),
        api=tuple((i, None) for i in range(4, 8)),
        max_exec_threads=8,
        ndb_version=version,
        data_memory_mb=65536,
        sql_node_id=4,
        connected_api=(5, 6),
        restart_profile=profile,
        host_cpus=16,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(data_fraction=60 / 64)
    cluster.workload.tps = 4000.0
    cluster.workload.ops_per_txn = 12.0
    cluster.at(60.0, lambda: cluster.restart_nodes((3,)))
    return cluster


# S3: online add node and REORGANIZE PARTITION.

S3_PROFILE = RestartProfile(
    alloc_memory=8,
    meta_data=2,
    restore_fragments=50,
    exec_redo_log=15,
    index_rebuild=35,
    synchronize=10,
    wait_lcp=163,
    subscription_handover=5,
)
"""Node restarts of about 4 min 51 s each and new-node starts of about 4 min 56 s: the
add-node procedure (restart of 3, of 4, start of 5 and 6) takes 14 min 48 s."""
REORG_SECONDS = 4 * 60 + 8


def _add_node(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "add-node",
        (
            (3, "192.168.0.3", 0),
            (4, "192.168.0.4", 0),
            (5, "192.168.0.5", None),
            (6, "192.168.0.6", None),
        ),
        api=tuple((i, None) for i in range(10, 14)),
        max_exec_threads=8,
        ndb_version=_version(options, make_version(8, 4, 3)),
        data_memory_mb=4096,
        fragment_log_file_size_mb=64,
        no_of_fragment_log_files=8,
        sql_node_id=10,
        connected_api=(11,),
        restart_profile=S3_PROFILE,
        redo_init_mb_per_sec=30.0,
        host_cpus=8,
        startup_status_report_frequency=options.report_frequency or 0,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started((3, 4), data_fraction=0.5)
    cluster.workload.tps = 1500.0
    cluster.at(60.0, lambda: cluster.restart_nodes((3,)))
    _when(
        cluster,
        lambda: cluster.now > 90 and _started(cluster, 3)(),
        lambda: cluster.restart_nodes((4,)),
    )
    _when(
        cluster,
        lambda: cluster.now > 200 and _started(cluster, 3, 4)() and cluster.data_nodes[4].stops > 0,
        lambda: cluster.launch((5, 6), initial=True),
    )

    def reorganise() -> None:
        cluster.create_nodegroup((5, 6))
        cluster.after(30.0, start_reorg)

    def start_reorg() -> None:
        cluster.workload.reorg = True
        cluster.emit(75, 3, 14, 2, 2, 3)
        cluster.after(REORG_SECONDS, stop_reorg)

    def stop_reorg() -> None:
        cluster.workload.reorg = False
        cluster.emit(75, 3, 14, 3, 2, 3)

    _when(cluster, _started(cluster, 5, 6), reorganise)
    return cluster


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


def _disk_buffer(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "disk-buffer",
        ((3, "192.168.0.3", 0), (4, "192.168.0.4", 0)),
        api=tuple((i, None) for i in range(10, 14)),
        max_exec_threads=8,
        ndb_version=_version(options, make_version(8, 4, 3)),
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
    _when(
        cluster,
        lambda: 3 in big_buffer and _started(cluster, 3)() and cluster.data_nodes[3].stops > 0,
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


# S5: multi-threaded data nodes with one hot thread.


def _threads(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "threads",
        ((2, "192.168.0.2", 0), (3, "192.168.0.3", 0)),
        api=tuple((i, None) for i in range(4, 8)),
        max_exec_threads=8,
        ndb_version=_version(options, make_version(8, 4, 3)),
        sql_node_id=4,
        connected_api=(5,),
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=7200.0)
    # Light traffic everywhere but one LDM thread of node 2 (above 90 % of a CPU): the
    # bottleneck the per-thread view should single out.
    cluster.workload.tps = 4000.0
    cluster.workload.hot[(2, 3)] = 88.0
    return cluster


# Single-user mode for a maintenance task, then back to normal.

SINGLE_USER_AT = 20.0
SINGLE_USER_FOR = 120.0
SINGLE_USER_API = 5


def _single_user(options: ScenarioOptions) -> SimCluster:
    cluster = _threads(options)
    cluster.workload.hot.clear()
    # What ENTER SINGLE USER MODE 5 and EXIT SINGLE USER MODE send: ``enter single
    # user`` (nodeId: 5) and ``exit single user``.
    cluster.after(SINGLE_USER_AT, lambda: cluster.enter_single_user(SINGLE_USER_API))
    cluster.after(SINGLE_USER_AT + SINGLE_USER_FOR, cluster.exit_single_user)
    return cluster


# Node groups that do not follow node-id order, and a configuration change.


def _node_groups(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "node-groups",
        (
            (2, "192.168.0.2", 0),
            (3, "192.168.0.3", 1),
            (4, "192.168.0.4", 0),
            (5, "192.168.0.5", 1),
        ),
        api=tuple((i, None) for i in range(50, 54)),
        max_exec_threads=4,
        ndb_version=_version(options, make_version(8, 4, 3)),
        sql_node_id=50,
        connected_api=(51,),
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started((2, 3, 4))
    cluster.workload.tps = 1200.0
    return cluster


CONFIG_CHANGE_AT = 30.0
"""When the configuration-change scenario installs its new configuration."""


def _config_change(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "config-change",
        ((2, "192.168.0.2", 0), (3, "192.168.0.3", 0), (4, "192.168.0.4", 1),
         (5, "192.168.0.5", 1)),
        api=tuple((i, None) for i in range(50, 54)),
        max_exec_threads=4,
        ndb_version=_version(options, make_version(8, 4, 3)),
        data_memory_mb=8192,
        sql_node_id=50,
        connected_api=(51,),
        generation=4,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started()
    cluster.workload.tps = 2000.0

    def reload() -> None:
        cluster.change_config(data_memory_mb=12288, disk_page_buffer_mb=256)
        cluster.restart_nodes((2,))

    cluster.at(CONFIG_CHANGE_AT, reload)
    return cluster


# Scale: large and max.


def _scale(name: str, data_nodes: int, api_nodes: int, options: ScenarioOptions) -> SimCluster:
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
        ndb_version=_version(options, make_version(8, 4, 3)),
        data_memory_mb=262144,
        sql_node_id=api_ids[0],
        connected_api=api_ids[1 : len(api_ids) * 2 // 3],
        host_cpus=36,
    )
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=86400.0)
    cluster.workload.tps = 2500.0 * data_nodes
    return cluster


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "initial-start",
            "S1: --initial start of 2 data nodes; phase 4 creates 43,008 MB of redo log "
            "per node with small synced writes (38 min 47 s); --fast-redo: 5 min 12 s. "
            "Replays the 6.x field log's phase numbers: current releases create the redo "
            "log in phase 2",
            30.0,
            _initial_start,
        ),
        Scenario(
            "node-restart",
            "S2: node restart of one of 2 loaded data nodes (60 GB each), 7.6 phase "
            "durations (6 min 49 s); --ndb-version 7.5.10 for 19 min 11 s",
            5.0,
            _node_restart,
        ),
        Scenario(
            "add-node",
            "S3: 2 data nodes grow to 4: rolling restart, new nodes start, new node "
            "group, then REORGANIZE PARTITION with busy LDM threads for 4 min 8 s",
            10.0,
            _add_node,
        ),
        Scenario(
            "disk-buffer",
            "S4: disk data reads; hit ratio 93.4%/93.7% at 64M, rolling restart to "
            "512M, then warming from 98% towards 99.5% as throughput climbs",
            60.0,
            _disk_buffer,
        ),
        Scenario(
            "threads",
            "S5: ndbmtd with MaxNoOfExecutionThreads=8 and one hot LDM thread; "
            "CLUSTERLOG STATISTICS=15 turns on the statistics events",
            1.0,
            _threads,
        ),
        Scenario(
            "single-user",
            f"2 started data nodes; after {SINGLE_USER_AT:g} s ENTER SINGLE USER MODE "
            f"{SINGLE_USER_API} (every restart refused), EXIT SINGLE USER MODE "
            f"{SINGLE_USER_FOR:g} s later",
            1.0,
            _single_user,
        ),
        Scenario(
            "backup",
            "backups of 4 data nodes with 45 GB each (4 min 50 s at 64 MB/s per node); "
            "the second is aborted when data node 5 fails 2 minutes in",
            10.0,
            build_backup,
        ),
        Scenario(
            "node-groups",
            "4 data nodes with NodeGroup set: 2 and 4 in group 0, 3 and 5 in group 1; "
            "node 5 is down (NO_CONTACT)",
            1.0,
            _node_groups,
        ),
        Scenario(
            "config-change",
            "DataMemory 8G to 12G and DiskPageBufferMemory to 256M at 30 s (generation 5); "
            "node 2 restarts onto it, 3, 4 and 5 still run generation 4",
            2.0,
            _config_change,
        ),
        Scenario(
            "large",
            "48 data nodes in 24 node groups, 32 threads each, 2 management servers, "
            "100 API nodes (for benchmarks)",
            1.0,
            lambda o: _scale("large", 48, 100, o),
        ),
        Scenario(
            "max",
            "144 data nodes (the protocol's limit), 2 management servers, the remaining "
            "ids as API nodes",
            1.0,
            lambda o: _scale("max", 144, 200, o),
        ),
    )
}
"""Every scenario by name."""

DEFAULT_SCENARIO = "initial-start"


def build_scenario(name: str, options: ScenarioOptions | None = None) -> SimCluster:
    """Build a scenario's cluster; ``KeyError`` names the unknown scenario, ``ValueError``
    a failure to inject that the scenario cannot have."""
    options = options or ScenarioOptions()
    cluster = SCENARIOS[name].build(options)
    if options.fail_node is not None:
        cluster.fail_restarts(options.fail_node, options.fail_phase)
    if options.data_node_hosts:
        cluster.place_data_nodes(options.data_node_hosts)
    return cluster
