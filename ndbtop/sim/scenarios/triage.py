"""Triage: a data node that failed before anyone looked; an arbitrator that changed after
failures; transactions holding locks."""

from __future__ import annotations

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.transactions import lock_chain as chain_of_waits
from ndbtop.sim.errorlog import Crash, error_log_file
from ndbtop.sim.ndbinfo_rows import process_id
from ndbtop.sim.scenarios.diagnostics import force_stop
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import small_config

DOWN_NODE = 3
"""The data node that failed before the scenario begins."""
PRESIDENT_FAILS_AT = 30.0
"""When data node 2, the president, fails in ``arbitrator-change``."""
ARBITRATOR_LOST_AT = 40.0
"""When management server 1, the arbitrator, loses the data nodes in ``arbitrator-change``."""
SECOND_MGMD = 49
"""The management server that becomes the arbitrator in ``arbitrator-change``."""


def node_down(options: ScenarioOptions) -> SimCluster:
    """Four data nodes in two groups; node 3 stopped on a full file system hours ago and
    stays NO_CONTACT: its host holds its error log (an older crash, then this one), its
    DataDir's file system is full and no ndbmtd runs for it."""
    config = small_config("node-down", options, ((2, 0), (3, 0), (4, 1), (5, 1)))
    cluster = SimCluster(config, options.seed)
    cluster.boot_started((2, 4, 5))
    cluster.workload.tps = 1500.0
    data_dir = cluster.data_nodes[DOWN_NODE].cfg.datadir
    # Texts from ndbd_exit_codes.cpp (errArray, StatusExitClassificationMapping) and
    # SimulatedBlock::fsRefError ("%s: %s. OS errno: %u").
    older = Crash(
        "Monday 23 November 2026 - 09:12:01", "Temporary error, restart node",
        "Internal program error (failed ndbrequire)",
        "Internal error, programming error or missing error message, please report a bug",
        2341, "DbtupFixAlloc.cpp", "DBTUP (Line: 173) 0x00000002", process_id(DOWN_NODE) - 7,
        2, "mysql-8.4.3 ndb-8.4.3", f"{data_dir}/ndb_{DOWN_NODE}_trace.log.1", 9)
    newest = Crash(
        "Thursday 26 November 2026 - 23:41:56", "Permanent error, external action needed",
        "The file system is full", "File system full", 2810,
        "DBLQH: File system write failed. OS errno: 28", "DBLQH (Line: 1851) 0x00000002",
        process_id(DOWN_NODE), 4, "mysql-8.4.3 ndb-8.4.3",
        f"{data_dir}/ndb_{DOWN_NODE}_trace.log.2", 9)
    cluster.error_logs[DOWN_NODE] = error_log_file(DOWN_NODE, [older, newest])
    cluster.full_data_dirs.add(DOWN_NODE)
    return cluster


def arbitrator_change(options: ScenarioOptions) -> SimCluster:
    """Four data nodes in two groups, management servers 1 (the arbitrator) and 49. At 30 s
    the host of data node 2, the president, fails: node 3 (the successor) becomes president
    and reports the arbitration check won (node group majority); the arbitrator stays 1. At
    40 s management server 1 loses its links to the data nodes (ndbtop still reaches it):
    they report the loss, the president restarts arbitration and management server 49
    becomes the arbitrator with a new ticket."""
    config = small_config("arbitrator-change", options, ((2, 0), (3, 0), (4, 1), (5, 1)),
                          mgm=((1, "192.168.0.1"), (SECOND_MGMD, f"192.168.0.{SECOND_MGMD}")))
    cluster = SimCluster(config, options.seed)
    cluster.boot_started(uptime=7200.0)
    cluster.workload.tps = 2000.0

    def president_fails() -> None:
        force_stop(cluster, 2, None)
        cluster.arbitration.check_won()

    def arbitrator_lost() -> None:
        cluster.mgmd_alive[1] = False
        cluster.arbitration.mgmd_killed(1)

    cluster.at(PRESIDENT_FAILS_AT, president_fails)
    cluster.at(ARBITRATOR_LOST_AT, arbitrator_lost)
    return cluster


def lock_chain(options: ScenarioOptions) -> SimCluster:
    """Four data nodes in two groups at 1,500 transactions/s; the SQL node (50) opened a
    transaction ten minutes ago and left it idle holding a row of ``shop.orders``; three
    transactions wait behind it in a chain (each wait times out at 1.2 s and is retried),
    and a few others are idle up to 50 s."""
    config = small_config("lock-chain", options, ((2, 0), (3, 0), (4, 1), (5, 1)))
    cluster = SimCluster(config, options.seed)
    cluster.boot_started((2, 3, 4, 5))
    cluster.workload.tps = 1500.0
    cluster.open_transactions = chain_of_waits((2, 3, 4, 5), 50, 51, cluster.now)
    return cluster
