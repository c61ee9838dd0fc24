"""The field scenarios S1, S2, S3 and S5: an initial start, a node restart, online add
node, and one hot thread (S4 is disk_buffer.py)."""

from __future__ import annotations

from dataclasses import replace

from ndbtop.mgm.version import make_version
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import asked_version, started, when
from ndbtop.sim.startplan import NDB_7_5_PROFILE, NDB_7_6_PROFILE, RestartProfile

# S1: the --initial start that takes an hour.

FAST_REDO_TOTAL = 312.0
"""Seconds the same initial start took once redo pages were no longer synced one by one."""


def initial_start(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "initial-start",
        ((10, "192.168.0.10", 0), (11, "192.168.0.11", 0)),
        mgm=((1, "192.168.0.1"),),
        api=tuple((i, None) for i in range(20, 25)),
        max_exec_threads=4,
        ndb_version=asked_version(options, make_version(8, 4, 3)),
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
    when(cluster, started(cluster, 10, 11), lambda: setattr(cluster.workload, "tps", 850.0))
    return cluster


# S2: node restart, phase by phase.


def node_restart(options: ScenarioOptions) -> SimCluster:
    version = asked_version(options, make_version(7, 6, 6))
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


def add_node(options: ScenarioOptions) -> SimCluster:
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
        ndb_version=asked_version(options, make_version(8, 4, 3)),
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
    when(
        cluster,
        lambda: cluster.now > 90 and started(cluster, 3)(),
        lambda: cluster.restart_nodes((4,)),
    )
    when(
        cluster,
        lambda: cluster.now > 200 and started(cluster, 3, 4)() and cluster.data_nodes[4].stops > 0,
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

    when(cluster, started(cluster, 5, 6), reorganise)
    return cluster


# S5: multi-threaded data nodes with one hot thread.


def threads(options: ScenarioOptions) -> SimCluster:
    config = simple_config(
        "threads",
        ((2, "192.168.0.2", 0), (3, "192.168.0.3", 0)),
        api=tuple((i, None) for i in range(4, 8)),
        max_exec_threads=8,
        ndb_version=asked_version(options, make_version(8, 4, 3)),
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
