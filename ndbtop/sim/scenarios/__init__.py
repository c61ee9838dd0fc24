"""The field scenarios the simulator plays, with the figures users reported.

Each scenario builds a :class:`SimCluster` and schedules what happens to it
in simulated time: a new scenario is a module here that builds one, and an
entry in :data:`SCENARIOS`. Requests from clients (restart, stop, start, log levels)
change the cluster in every scenario, with the real refusals.
"""

from __future__ import annotations

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.scenarios.backup import build_backup
from ndbtop.sim.scenarios.diagnostics import (
    arbitrator_lost,
    gcp_stall,
    heartbeat,
    lcp_stall,
    start_waiting,
)
from ndbtop.sim.scenarios.disk_buffer import disk_buffer
from ndbtop.sim.scenarios.field import add_node, initial_start, node_restart, threads
from ndbtop.sim.scenarios.maintenance import (
    CONFIG_CHANGE_AT,
    SINGLE_USER_API,
    SINGLE_USER_AT,
    SINGLE_USER_FOR,
    config_change,
    node_groups,
    single_user,
)
from ndbtop.sim.scenarios.options import DEFAULT_FAIL_PHASE, Scenario, ScenarioOptions
from ndbtop.sim.scenarios.pressure import memory_full, overload, redo_filling
from ndbtop.sim.scenarios.replication import lost_events, replication_lag
from ndbtop.sim.scenarios.scale import scaled
from ndbtop.sim.scenarios.triage import arbitrator_change, lock_chain, node_down

__all__ = [
    "CONFIG_CHANGE_AT",
    "DEFAULT_FAIL_PHASE",
    "DEFAULT_SCENARIO",
    "SCENARIOS",
    "SINGLE_USER_API",
    "SINGLE_USER_AT",
    "SINGLE_USER_FOR",
    "Scenario",
    "ScenarioOptions",
    "build_scenario",
]

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
            initial_start,
        ),
        Scenario(
            "node-restart",
            "S2: node restart of one of 2 loaded data nodes (60 GB each), 7.6 phase "
            "durations (6 min 49 s); --ndb-version 7.5.10 for 19 min 11 s",
            5.0,
            node_restart,
        ),
        Scenario(
            "add-node",
            "S3: 2 data nodes grow to 4: rolling restart, new nodes start, new node "
            "group, then REORGANIZE PARTITION with busy LDM threads for 4 min 8 s",
            10.0,
            add_node,
        ),
        Scenario(
            "disk-buffer",
            "S4: disk data reads; hit ratio 93.4%/93.7% at 64M, rolling restart to "
            "512M, then warming from 98% towards 99.5% as throughput climbs",
            60.0,
            disk_buffer,
        ),
        Scenario(
            "threads",
            "S5: ndbmtd with MaxNoOfExecutionThreads=8 and one hot LDM thread; "
            "CLUSTERLOG STATISTICS=15 turns on the statistics events",
            1.0,
            threads,
        ),
        Scenario(
            "single-user",
            f"2 started data nodes; after {SINGLE_USER_AT:g} s ENTER SINGLE USER MODE "
            f"{SINGLE_USER_API} (every restart refused), EXIT SINGLE USER MODE "
            f"{SINGLE_USER_FOR:g} s later",
            1.0,
            single_user,
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
            node_groups,
        ),
        Scenario(
            "node-down",
            "4 data nodes; node 3 stopped on a full file system (2810) before ndbtop "
            "started and stays NO_CONTACT: its host holds its error log, and no ndbmtd "
            "runs for it",
            1.0,
            node_down,
        ),
        Scenario(
            "arbitrator-change",
            "4 data nodes, management servers 1 and 49; at 30 s data node 2, the president, "
            "fails (node 3 takes over); at 40 s management server 1, the arbitrator, loses "
            "the data nodes and 49 becomes the arbitrator",
            1.0,
            arbitrator_change,
        ),
        Scenario(
            "config-change",
            "DataMemory 8G to 12G and DiskPageBufferMemory to 256M at 30 s (generation 5); "
            "node 2 restarts onto it, 3, 4 and 5 still run generation 4",
            2.0,
            config_change,
        ),
        Scenario(
            "gcp-stall",
            "4 data nodes; at 30 s node 3's disk stops completing writes: the DIH master "
            "(node 2) warns 'GCP_SAVE lag 60/120/180 seconds (max lag: 204s)', then kills "
            "node 3 at 204 s of lag (NDBStopForced, error 2303)",
            5.0,
            gcp_stall,
        ),
        Scenario(
            "redo-filling",
            "2 data nodes, 4 redo log parts of 1,024 MB; node 2's part 0 fills at 2 MB/s "
            "from 68% (80% at 1 min, 4 MB free and error 410 at 2 min 40 s) while the "
            "other parts sit under 30%",
            2.0,
            redo_filling,
        ),
        Scenario(
            "lcp-stall",
            "4 data nodes; node 4's LCP fragment scan stops at 30 s: the watchdog warns every "
            "second from 20 s without progress (LcpScanProgressTimeout 60 s), 'Waited too "
            "long with LCP not progressing.' at 60 s, and node 4 exits 7200",
            2.0,
            lcp_stall,
        ),
        Scenario(
            "overload",
            "2 data nodes at 9,000 transactions/s; node 2's send buffer towards node 3 passes "
            "the slowdown level at 30 s and the overload limit in bursts from 45 s: "
            "slowdown_count and "
            "overload_count climb, key operations fail with 1218",
            1.0,
            overload,
        ),
        Scenario(
            "heartbeat",
            "4 data nodes; node 5's threads stop being scheduled at 30 s: node 4 reports "
            "'missed heartbeat' 2, 3 and 4 five seconds apart, declares it dead, and node 5 "
            "shuts down with 2315",
            1.0,
            heartbeat,
        ),
        Scenario(
            "arbitrator-lost",
            "4 data nodes lose management server 1, their arbitrator, at 30 s and find no "
            "other; at 10 min a network partition finds no arbitrator and every data node "
            "shuts down (2305)",
            5.0,
            arbitrator_lost,
        ),
        Scenario(
            "memory-full",
            "2 data nodes with 4 GB DataMemory at 75%; inserts fill it through the bands the "
            "nodes report (80% at 30 s, 90% at 90 s, 99% at 144 s, then 100%: error 827)",
            2.0,
            memory_full,
        ),
        Scenario(
            "start-waiting",
            "initial start of node 10 while node 11, of the same node group, is never "
            "started: node 10 waits for ever, reporting 'Initial start, waiting for 11 to "
            "connect'",
            5.0,
            start_waiting,
        ),
        Scenario(
            "lock-chain",
            "4 data nodes; a transaction left idle for 10 minutes holds a row of shop.orders, "
            "three transactions wait behind it in a chain (the Locks view), others idle up "
            "to 50 s",
            1.0,
            lock_chain,
        ),
        Scenario(
            "replication-lag",
            "2 data nodes; their SQL node's binary log is replicated to a DR cluster's SQL "
            "node (served too); from 20 s the replica applies 4 epochs a second while the "
            "source writes 10: 60 s behind at 2 min",
            2.0,
            replication_lag,
        ),
        Scenario(
            "lost-events",
            "2 data nodes replicating to a DR cluster; at 30 s the data nodes disconnect the "
            "binlogging SQL node for lagging ('Disconnecting lagging nodes'); it reconnects "
            "8 s later and writes a LOST_EVENTS incident, where the replica stops with 1590",
            1.0,
            lost_events,
        ),
        Scenario(
            "large",
            "48 data nodes in 24 node groups, 32 threads each, 2 management servers, "
            "100 API nodes (for benchmarks)",
            1.0,
            lambda o: scaled("large", 48, 100, o),
        ),
        Scenario(
            "max",
            "144 data nodes (the protocol's limit), 2 management servers, the remaining "
            "ids as API nodes, 5,000 open transactions",
            1.0,
            lambda o: scaled("max", 144, 200, o),
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
    if options.mgm_host or options.mgm_data_dir:
        cluster.place_mgm_nodes(options.mgm_host, options.mgm_data_dir)
    return cluster
