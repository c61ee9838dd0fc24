"""Resources running out, as ndbinfo shows them (shared/reference/diagnostics.md §b, §d,
§f): one redo log part filling towards 410, a link's send buffer overloaded, and
DataMemory climbing through the bands the data nodes report.
"""

from __future__ import annotations

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import small_config

REDO_FILES, REDO_FILE_MB = 16, 64
"""NoOfFragmentLogFiles and FragmentLogFileSize of ``redo-filling``: 1,024 MB a log part."""
REDO_START_MB, REDO_FILL_MB_S = 700.0, 2.0
"""Node 2's part 0 at the start, and how fast it fills: 80% after 60 s, 95% after 136 s,
4 MB free (writes refused with 410) after 160 s."""
OVERLOAD_SLOWDOWN_AT, OVERLOAD_AT = 30.0, 45.0
"""``overload``: when node 2's send buffer towards node 3 passes the slowdown level (60%
of the overload limit), and when it passes the overload limit (80% of SendBufferMemory)."""
TRANSPORTER_WARNING, SEND_BUFFER_FULL = 43, 0x16
MEMORY_USAGE, DBTUP, PAGE_BYTES = 50, 249, 32768
MEMORY_BANDS = (0, 80, 90, 99, 100)
DATA_MEMORY_MB, DATA_START, DATA_FILL_PAGES_S = 4096, 0.75, 218.0
"""``memory-full``: DataMemory, the share in use at the start and the pages taken per second
(1% of 4 GB in 6 s): 80% after about 30 s, 90% after 90 s, 99% after 144 s."""


def _two_nodes(name: str, options: ScenarioOptions, **config: object) -> SimCluster:
    cfg = small_config(name, options, ((2, 0), (3, 0)), **config)
    return SimCluster(cfg, options.seed)


def redo_filling(options: ScenarioOptions) -> SimCluster:
    """Node 2's redo log part 0 takes the inserts of a hot table whose fragments all sit on
    its first LDM, and its tail waits for a checkpoint: it fills towards 410 while the other
    parts sit low."""
    cluster = _two_nodes("redo-filling", options, no_of_fragment_log_files=REDO_FILES,
                         fragment_log_file_size_mb=REDO_FILE_MB)
    cluster.boot_started(uptime=7200.0)
    cluster.workload.tps = 1500.0
    node = cluster.data_nodes[2]
    node.redo_used_mb[0] = REDO_START_MB
    node.redo_stuck[0] = REDO_FILL_MB_S
    return cluster


def overload(options: ScenarioOptions) -> SimCluster:
    """Node 2 sends to node 3 faster than the link drains: its send buffer passes the
    slowdown level, then the overload limit in bursts; slowdown_count and overload_count
    climb, key operations through node 2 fail with 1218, and node 2 warns that the send
    buffer to node 3 was full (TransporterWarning 0x16)."""
    cluster = _two_nodes("overload", options)
    cluster.boot_started(uptime=7200.0)
    cluster.workload.tps = 9000.0
    counts = [0, 0]

    def tick() -> None:
        # Past the limit in bursts, every other second: a reading may find the flag clear
        # while overload_count keeps climbing.
        overloaded = cluster.now >= OVERLOAD_AT and int(cluster.now) % 2 == 1
        counts[1] += 3
        if overloaded:
            counts[0] += 1
        cluster.link_pressure[(2, 3)] = (int(overloaded), counts[0], 1, counts[1])
        if overloaded and int(cluster.now) % 10 == 1:
            cluster.emit(TRANSPORTER_WARNING, 2, 3, SEND_BUFFER_FULL)
        cluster.after(1.0, tick)

    cluster.at(OVERLOAD_SLOWDOWN_AT, tick)
    return cluster


def memory_full(options: ScenarioOptions) -> SimCluster:
    """Inserts fill DataMemory on both nodes of the group: each reports every band it
    crosses (MemoryUsage, 80, 90, 99 and 100%); at 100% inserts fail with 827."""
    cluster = _two_nodes("memory-full", options, data_memory_mb=DATA_MEMORY_MB)
    cluster.boot_started(uptime=7200.0, data_fraction=DATA_START)
    cluster.workload.tps = 500.0
    bands = {n: 0 for n in cluster.data_nodes}
    for node in cluster.data_nodes.values():
        node.data_fill_pages_per_s = DATA_FILL_PAGES_S

    def report() -> None:
        # Cmvmi.cpp ZREPORT_MEMORY_USAGE: checked every second, one event per band change.
        for node in cluster.data_nodes.values():
            if not node.serving:
                continue
            pct = 100 * node.data_pages_used // max(node.data_pages_total, 1)
            band = max(b for b in MEMORY_BANDS if pct >= b)
            if band != bands[node.node_id]:
                gth = 1 if band > bands[node.node_id] else -1
                bands[node.node_id] = band
                cluster.emit(MEMORY_USAGE, node.node_id, gth, PAGE_BYTES,
                             node.data_pages_used, node.data_pages_total, DBTUP)
        cluster.after(1.0, report)

    cluster.at(1.0, report)
    return cluster
