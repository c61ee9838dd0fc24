"""The warnings the data nodes send before they act, and what they do if nothing is done
(shared/reference/diagnostics.md §a, §c, §e, §g): a GCP stop, an LCP the watchdog kills,
missed heartbeats, a lost arbitrator and a start that waits for ever.

The texts of WarningEvent (46) and InfoEvent (49) are the servers' format strings, packed
in words as the data nodes send them; the other events carry their body fields.
"""

from __future__ import annotations

from ndbtop.mgm.events.text import pack_string
from ndbtop.mgm.version import make_version
from ndbtop.model.arbitration import ARBIT_RESULT, ARBIT_STATE, ArbitCode, ArbitState
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import NO_CONTACT, STARTING
from ndbtop.sim.config import simple_config
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import asked_version, small_config
from ndbtop.sim.startplan import INITIAL_START

WARNING_EVENT, INFO_EVENT = 46, 49
NDB_STOP_FORCED, NODE_FAILREP, NODE_FAIL_COMPLETED, DISCONNECTED = 59, 28, 27, 1
START_REPORT, NDB_START_STARTED, START_PHASE_COMPLETED = 60, 10, 13
MISSED_HEARTBEAT, DEAD_DUE_TO_HEARTBEAT = 44, 45
LCP_STARTED, LCP_COMPLETED, LCP_ID = 6, 7, 41

GCP_SAVE_MAX_S, GCP_COMMIT_MAX_S = 204, 86
"""The limits the DIH master computes for 4 data nodes with the defaults and
TimeBetweenEpochsTimeout = 4000 ms: the node-failure allowance is (4 - 1) x 5 x
HeartbeatIntervalDbDb (5000 ms) + ArbitrationTimeout (7500 ms) = 82.5 s; GCP_SAVE =
TimeBetweenGlobalCheckpoints (2 s) + TimeBetweenGlobalCheckpointsTimeout (120 s) + 82.5 s;
GCP_COMMIT = TimeBetweenEpochs (0.1 s) + 4 s + 82.5 s (DbdihMain.cpp setGCPStopTimeouts;
the logged seconds are truncated)."""
GCP_STALL_AT = 30.0
"""When node 3's disk stops completing the GCP's writes in ``gcp-stall``."""
LCP_STALL_AT, LCP_TIMEOUT_S = 30.0, 60
"""When node 4's LCP fragment scan stops in ``lcp-stall``, and LcpScanProgressTimeout (its
default, 60 s: warnings from a third of it, the kill at it)."""
HEARTBEAT_STOP_AT, HEARTBEAT_INTERVAL_S = 30.0, 5.0
"""When node 5's threads stop being scheduled in ``heartbeat``; HeartbeatIntervalDbDb."""
ARBITRATOR_LOST_AT, PARTITION_AT = 30.0, 600.0
"""``arbitrator-lost``: when the data nodes lose management server 1, and when a network
partition then needs the arbitrator there is not."""
START_REPORT_EVERY = 60.0
"""Seconds between the waiting node's StartReports in the simulator."""

# Exit codes (ndbd_exit_codes.cpp).
SYSTEM_ERROR, LCP_SCAN_WATCHDOG_FAIL, NODE_DECLARED_DEAD, ARBIT_SHUTDOWN = 2303, 7200, 2315, 2305


def _four_nodes(name: str, options: ScenarioOptions) -> SimCluster:
    """Four started data nodes in two groups (2 and 3, 4 and 5) under light load."""
    config = small_config(name, options, ((2, 0), (3, 0), (4, 1), (5, 1)))
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=7200.0)
    cluster.workload.tps = 2000.0
    return cluster


def text(cluster: SimCluster, event_type: int, source: int, message: str) -> None:
    """A WarningEvent or InfoEvent from ``source``: the text in words, as a data node packs it."""
    cluster.emit(event_type, source, *pack_string(message))


def force_stop(cluster: SimCluster, node_id: int, error: int | None) -> None:
    """Data node ``node_id`` shuts down on ``error`` (NDBStopForced; None: it dies without a
    word, as when its host fails); the others report its failure (NODE_FAILREP) and the
    master its completion (NodeFailCompleted)."""
    node = cluster.data_nodes[node_id]
    if node.state == NO_CONTACT:
        return
    if error is not None:
        cluster.emit(NDB_STOP_FORCED, node_id, 0, 0, error, 255, 0)
    node.generation += 1
    node.state = NO_CONTACT
    node.stop_level = node.start_phase = node.dynamic_id = 0
    node.process_started = node.started_at = None
    node.stops += 1
    cluster.emit(DISCONNECTED, cluster.mgmd_id, node_id)
    for other in cluster.data_nodes.values():
        if other.serving:
            cluster.emit(NODE_FAILREP, other.node_id, node_id, 0)
    if (master := cluster.master()) is not None:
        cluster.emit(NODE_FAIL_COMPLETED, master.node_id, 0, node_id, 0)


def gcp_stall(options: ScenarioOptions) -> SimCluster:
    """Node 3's disk stops completing writes: the GCP_SAVE lag grows, the master (node 2)
    warns at every 60 s of it, then kills node 3 with 2303 at the computed limit."""
    cluster = _four_nodes("gcp-stall", options)
    for kind, limit in (("GCP_SAVE", GCP_SAVE_MAX_S), ("GCP_COMMIT", GCP_COMMIT_MAX_S)):
        cluster.at(1.0, lambda k=kind, s=limit: text(
            cluster, INFO_EVENT, 2, f"GCP Monitor: Computed max {k} lag to {s} seconds"))

    def slow_disk() -> None:
        cluster.data_nodes[3].io_lag_per_s = 0.8

    def stalled() -> bool:
        # A test may let the disk recover (io_lag_per_s back to 0): the GCP completes, the
        # lag is gone, and neither the warnings nor the kill follow.
        return cluster.data_nodes[3].io_lag_per_s > 0

    def warn(lag: int) -> None:
        if stalled():
            text(cluster, WARNING_EVENT, 2,
                 f"GCP Monitor: GCP_SAVE lag {lag} seconds (max lag: {GCP_SAVE_MAX_S}s)")

    cluster.at(GCP_STALL_AT, slow_disk)
    for lag in range(60, GCP_SAVE_MAX_S, 60):
        cluster.at(GCP_STALL_AT + lag, lambda s=lag: warn(s))

    def kill() -> None:
        if not stalled():
            return
        # 0x8 is node 3's bit in the signal counter the master prints.
        text(cluster, WARNING_EVENT, 2, "Detected GCP stop(3)...sending kill to "
                                        "[SignalCounter: m_count=1 0000000000000008]")
        force_stop(cluster, 3, SYSTEM_ERROR)

    cluster.at(GCP_STALL_AT + GCP_SAVE_MAX_S, kill)
    return cluster


def lcp_stall(options: ScenarioOptions) -> SimCluster:
    """Node 4's LCP fragment scan stops: the watchdog warns every second from a third of
    LcpScanProgressTimeout, announces the kill at it, and the node exits 7200."""
    cluster = _four_nodes("lcp-stall", options)
    cluster.lcp_id = LCP_ID
    cluster.at(LCP_STALL_AT - 5, lambda: cluster.emit(LCP_STARTED, 2, LCP_ID, 2990, 3050))
    warn_from = LCP_STALL_AT + (LCP_TIMEOUT_S * 1000 + 2) // 3 / 1000
    for second in range(int(warn_from - LCP_STALL_AT), LCP_TIMEOUT_S):
        def warn(s: int = second) -> None:
            text(cluster, WARNING_EVENT, 4, f"LCP Frag watchdog : No progress for {s} s, "
                                            f"MaxWaitTime {LCP_TIMEOUT_S} s, lcp state "
                                            "LCP_SCANNING")
            text(cluster, WARNING_EVENT, 4, " Completion Status 1835008 rows, table 14, frag 2")
        cluster.at(LCP_STALL_AT + second, warn)
    cluster.at(LCP_STALL_AT + LCP_TIMEOUT_S, lambda: text(
        cluster, WARNING_EVENT, 4, "Waited too long with LCP not progressing."))
    cluster.at(LCP_STALL_AT + LCP_TIMEOUT_S + 5,
               lambda: force_stop(cluster, 4, LCP_SCAN_WATCHDOG_FAIL))
    # Without node 4 the others complete the checkpoint.
    cluster.at(LCP_STALL_AT + LCP_TIMEOUT_S + 25,
               lambda: cluster.emit(LCP_COMPLETED, 2, LCP_ID))
    return cluster


def heartbeat(options: ScenarioOptions) -> SimCluster:
    """Node 5's threads stop being scheduled: node 4, its left neighbour, reports missed
    heartbeats 2, 3 and 4 one interval apart, declares it dead with the fourth, and node 5
    shuts down with 2315."""
    cluster = _four_nodes("heartbeat", options)
    for k, count in enumerate((2, 3, 4)):
        cluster.at(HEARTBEAT_STOP_AT + (3 + k) * HEARTBEAT_INTERVAL_S,
                   lambda c=count: cluster.emit(MISSED_HEARTBEAT, 4, 5, c))
    cluster.at(HEARTBEAT_STOP_AT + 5 * HEARTBEAT_INTERVAL_S,
               lambda: cluster.emit(DEAD_DUE_TO_HEARTBEAT, 4, 5))
    cluster.at(HEARTBEAT_STOP_AT + 5 * HEARTBEAT_INTERVAL_S + 3,
               lambda: force_stop(cluster, 5, NODE_DECLARED_DEAD))
    return cluster


def arbitrator_lost(options: ScenarioOptions) -> SimCluster:
    """The data nodes lose management server 1, their arbitrator (ndbtop still reaches it):
    each reports the loss, the president restarts its arbitration thread and finds none
    (the SQL nodes have ArbitrationRank 0). Ten minutes later a network partition needs the
    arbitrator: no arbitrator is available and every data node shuts down (2305)."""
    cluster = _four_nodes("arbitrator-lost", options)
    ticket = (0x4A2B0001, 7200000)

    def report(source: int, code: int, state: int, node: int) -> None:
        cluster.emit(ARBIT_STATE, source, code | (state << 16), node, *ticket)

    def lost() -> None:
        cluster.arbitration.lost_by_data_nodes(1)
        for node_id in (2, 3, 4, 5):
            report(node_id, ArbitCode.API_FAIL, ArbitState.RUN, 1)
        report(2, ArbitCode.THREAD_START, ArbitState.INIT, 0)

    def partition() -> None:
        cluster.emit(ARBIT_RESULT, 2, int(ArbitCode.PARTITIONING), 0, *ticket)
        cluster.emit(ARBIT_RESULT, 2, int(ArbitCode.LOSE_NORUN), 0, *ticket)
        for node_id in (3, 4, 5, 2):
            force_stop(cluster, node_id, ARBIT_SHUTDOWN)

    cluster.at(ARBITRATOR_LOST_AT, lost)
    cluster.at(PARTITION_AT, partition)
    return cluster


def _bits(*nodes: int) -> tuple[int, ...]:
    """A NdbNodeBitmask of 5 words (8.x) with ``nodes`` set."""
    words = [0] * 5
    for n in nodes:
        words[n // 32] |= 1 << (n % 32)
    return tuple(words)


def start_waiting(options: ScenarioOptions) -> SimCluster:
    """An initial start of node 10 while node 11, of the same node group, is never started:
    node 10 stays in its start and reports, again and again, that it waits for node 11 to
    connect (StartReport type 1, no timeout: QmgrMain.cpp ``check_startup`` makes an initial
    start wait for every node whatever StartPartialTimeout says)."""
    config = simple_config(
        "start-waiting",
        ((10, "192.168.0.10", 0), (11, "192.168.0.11", 0)),
        mgm=((1, "192.168.0.1"),),
        api=tuple((i, None) for i in range(20, 25)),
        max_exec_threads=4,
        ndb_version=asked_version(options, make_version(8, 4, 3)),
        sql_node_id=20,
    )
    cluster = SimCluster(config, options.seed)
    cluster.at(2.0, lambda: cluster.launch((10,), initial=True, nostart=True))

    def begin() -> None:
        node = cluster.data_nodes[10]
        node.start_type = INITIAL_START
        node.state = STARTING
        node.plan = ()
        node.start_began = node.step_started = node.phase_started = cluster.now
        version = cluster.config.ndb_version
        cluster.emit(NDB_START_STARTED, 10, version, version)
        cluster.after(1.0, allocated)

    def allocated() -> None:
        # Memory allocated (phase 0 completed): the node now looks for the others.
        node = cluster.data_nodes[10]
        node.phase_started = cluster.now
        cluster.emit(START_PHASE_COMPLETED, 10, 0, INITIAL_START)
        report()

    def report() -> None:
        if cluster.data_nodes[10].state != STARTING:
            return
        # type 1 (an initial start), remaining time ~0 (none), 5-word masks: all,
        # connected, no-wait, waiting for, no node group.
        cluster.emit(START_REPORT, 10, 1, 0xFFFFFFFF, 5, *_bits(10, 11), *_bits(10),
                     *_bits(), *_bits(11), *_bits())
        cluster.after(START_REPORT_EVERY, report)

    cluster.at(2.5, begin)
    return cluster
