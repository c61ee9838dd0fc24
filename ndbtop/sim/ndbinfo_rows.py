"""``ndbinfo`` rows of a simulated cluster, in the column order of the schema.

Every row comes from the same :class:`SimCluster` the simulated ndb_mgmd
serves, so the two sources always agree. As with a real DBINFO scan, only
started data nodes report; a stopped node's rows are simply missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ndbtop.mgm.version import version_string
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config_blob import data_node_entries
from ndbtop.sim.datanode import SINGLE_USER, STARTED, TC_COUNTERS, SimDataNode
from ndbtop.sim.startplan import RESTART_STATUS_TEXT, restart_row_values

BLOCK_NUMBERS = {
    "BACKUP": 244,
    "DBTC": 245,
    "DBDIH": 246,
    "DBLQH": 247,
    "DBACC": 248,
    "DBTUP": 249,
    "DBDICT": 250,
    "NDBCNTR": 251,
    "QMGR": 252,
    "NDBFS": 253,
    "CMVMI": 254,
    "TRIX": 255,
    "DBUTIL": 256,
    "SUMA": 257,
    "DBTUX": 258,
    "TSMAN": 259,
    "LGMAN": 260,
    "PGMAN": 261,
    "RESTORE": 262,
    "DBINFO": 263,
    "DBSPJ": 264,
    "THRMAN": 265,
    "TRPMAN": 266,
    "DBQLQH": 267,
    "DBQACC": 268,
    "DBQTUP": 269,
    "DBQTUX": 270,
    "QBACKUP": 271,
    "QRESTORE": 272,
}

# counters.counter_id of the DBTC counters, and OPERATIONS of DBLQH (ndbinfo.md 2.5).
COUNTER_IDS = {
    "ATTRINFO": 1,
    "TRANSACTIONS": 2,
    "COMMITS": 3,
    "READS": 4,
    "SIMPLE_READS": 5,
    "WRITES": 6,
    "ABORTS": 7,
    "TABLE_SCANS": 8,
    "RANGE_SCANS": 9,
    "OPERATIONS": 10,
    "LOCAL_READS": 24,
    "LOCAL_WRITES": 25,
}

_STATUS_NUMBER = {STARTED: 3, SINGLE_USER: 4}
_STATUS_NAME = {STARTED: "STARTED", SINGLE_USER: "SINGLEUSER"}
_LOG_BUFFER_BYTES = 16 * 1024 * 1024
_LONG_MESSAGE_PAGES = 16384


def process_id(node_id: int) -> int:
    """The simulated operating-system pid of a node's process."""
    return 20000 + node_id * 100


def thread_tid(node_id: int, thr_no: int) -> int:
    """The simulated operating-system thread id of a data node thread."""
    return process_id(node_id) + 1 + thr_no


class SimNdbinfo:
    """The ``NdbinfoProvider`` of a simulated cluster."""

    def __init__(self, cluster: SimCluster, sync: Callable[[], None] | None = None) -> None:
        self.cluster = cluster
        self._sync = sync
        self._tables: dict[str, Callable[[list[SimDataNode]], list[tuple[object, ...]]]] = {
            "nodes": self._nodes,
            "ndb$nodes": self._ndb_nodes,
            "threads": self._threads,
            "threadblocks": self._threadblocks,
            "ndb$threadblocks": self._ndb_threadblocks,
            "cpustat": self._cpustat,
            "threadstat": self._threadstat,
            "diskpagebuffer": self._diskpagebuffer,
            "ndb$diskpagebuffer": self._diskpagebuffer,
            "diskstat": self._diskstat,
            "disk_write_speed_aggregate": self._dws_aggregate,
            "disk_write_speed_aggregate_node": self._dws_node,
            "logspaces": self._logspaces,
            "ndb$logspaces": self._ndb_logspaces,
            "logbuffers": self._logbuffers,
            "memoryusage": self._memoryusage,
            "restart_info": self._restart_info,
            "transporters": self._transporters,
            "ndb$transporters": self._ndb_transporters,
            "config_nodes": self._config_nodes,
            "config_values": self._config_values,
            "processes": self._processes,
            "counters": self._counters,
            "hwinfo": self._hwinfo,
        }

    @property
    def ndb_version(self) -> int:
        """The simulated NDB version, encoded."""
        return self.cluster.config.ndb_version

    def alive_data_nodes(self) -> int:
        """Started data nodes a DBINFO scan reaches (0 when the SQL node is not connected)."""
        if self._sync is not None:
            self._sync()
        return self.cluster.alive_data_nodes()

    def rows(self, table: str) -> Sequence[Sequence[object]]:
        """Rows of one table of the schema, or none when the table is not simulated."""
        if self._sync is not None:
            self._sync()
        build = self._tables.get(table)
        if build is None:
            return []
        nodes = [n for n in self.cluster.data_nodes.values() if n.serving]
        return build(nodes)

    # Node and cluster state

    def _nodes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        now = self.cluster.now
        return [(n.node_id, int(n.uptime(now)), _STATUS_NAME[n.state], 0,
                 n.running_config.generation) for n in nodes]

    def _ndb_nodes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        now = self.cluster.now
        return [(n.node_id, int(n.uptime(now)), _STATUS_NUMBER[n.state], 0,
                 n.running_config.generation) for n in nodes]

    def _config_values(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for _vtype, key, value in data_node_entries(n.running_config, n.cfg):
                rows.append((n.node_id, key, str(value)))
        return rows

    def _config_nodes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cfg = self.cluster.config
        rows: list[tuple[object, ...]] = [(d.node_id, "NDB", d.host) for d in cfg.data_nodes]
        rows += [(m.node_id, "MGM", m.host or "") for m in cfg.mgm_nodes]
        rows += [(a.node_id, "API", a.host or "") for a in cfg.api_nodes]
        return sorted(rows, key=lambda r: r[0])  # type: ignore[arg-type, return-value]

    def _processes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cluster = self.cluster
        cfg = cluster.config
        version = version_string(cfg.ndb_version, cfg.ndb_version)
        rows: list[tuple[object, ...]] = []
        for d in cfg.data_nodes:
            node = cluster.data_nodes[d.node_id]
            if node.alive:
                rows.append(
                    (
                        d.node_id,
                        "NDB",
                        version,
                        process_id(d.node_id),
                        process_id(d.node_id) - 1,
                        "ndbmtd",
                        f"ndb://{d.host}",
                    )
                )
        for m in cfg.mgm_nodes:
            if cluster.mgmd_alive.get(m.node_id):
                rows.append(
                    (
                        m.node_id,
                        "MGM",
                        version,
                        process_id(m.node_id),
                        None,
                        "ndb_mgmd",
                        f"ndb://{m.host}:1186",
                    )
                )
        for a in cfg.api_nodes:
            if a.node_id in cluster.api_connected:
                name = "mysqld" if a.node_id == cfg.sql_node_id else "ndbapi"
                uri = f"mysql://{a.host or '127.0.0.1'}:3306" if name == "mysqld" else ""
                rows.append((a.node_id, "API", version, process_id(a.node_id), None, name, uri))
        return sorted(rows, key=lambda r: r[0])  # type: ignore[arg-type, return-value]

    def _restart_info(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        if not nodes:
            return []
        now = self.cluster.now
        rows: list[tuple[object, ...]] = []
        for node in self.cluster.data_nodes.values():
            report = node.restart_report
            if report is None:
                continue
            durations = dict(report.durations)
            step = node.current_step()
            if step is not None and step.restart_column:
                durations[step.restart_column] = (
                    durations.get(step.restart_column, 0.0) + now - node.step_started
                )
            end = report.finished if report.finished is not None else now
            text = RESTART_STATUS_TEXT.get(report.status, "")
            rows.append(
                (
                    node.node_id,
                    text,
                    report.status,
                    *restart_row_values(durations, end - report.began),
                )
            )
        return rows

    # Threads

    def _threads(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [(n.node_id, t.thr_no, t.name, t.description) for n in nodes for t in n.threads]

    def _threadblocks(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [(n.node_id, t.thr_no, b, i) for n in nodes for t in n.threads for b, i in t.blocks]

    def _ndb_threadblocks(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [
            (n.node_id, t.thr_no, BLOCK_NUMBERS[b], i)
            for n in nodes
            for t in n.threads
            for b, i in t.blocks
        ]

    def _cpustat(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for t, load in zip(n.threads, n.loads, strict=True):
                user = round(load * 0.84)
                system = round(load * 0.16)
                idle = max(100 - user - system, 0)
                send_share = 0.6 if t.name == "send" else 0.12
                send = round(load * send_share)
                execute = round(load) - send
                sleeping = max(100 - execute - send, 0)
                rows.append(
                    (
                        n.node_id,
                        t.thr_no,
                        user,
                        system,
                        idle,
                        execute,
                        sleeping,
                        0,
                        send,
                        0,
                        1_000_000,
                    )
                )
        return rows

    def _threadstat(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        wall_ms = int((self.cluster.now + 1_700_000_000) * 1000)
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for i, t in enumerate(n.threads):
                if t.name == "send":
                    continue
                execs = int(n.execs[i])
                rows.append(
                    (
                        n.node_id,
                        t.thr_no,
                        t.name,
                        int(n.loops[i]),
                        execs,
                        int(n.waits[i]),
                        execs // 3,
                        execs // 2,
                        execs // 20,
                        execs // 10,
                        thread_tid(n.node_id, t.thr_no),
                        wall_ms,
                        int(n.cpu_user_us[i]),
                        int(n.cpu_sys_us[i]),
                        execs // 5000,
                        0,
                        int(n.waits[i]) // 2,
                        int(n.loops[i]) // 4000,
                    )
                )
        return rows

    # Disk

    def _diskpagebuffer(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [
            (n.node_id, inst, *(int(v) for v in d.values()))
            for n in nodes
            for inst, d in n.dpb.items()
        ]

    def _diskstat(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for inst, r in n.dpb_rate.items():
                reads = int(r["pages_read"])
                writes = int(r["pages_written"])
                requests = int(r["page_requests_direct_return"] + r["page_requests_wait_io"])
                rows.append(
                    (
                        n.node_id,
                        inst,
                        writes,
                        reads,
                        reads,
                        writes,
                        writes,
                        int(writes * 0.2),
                        int(writes * 0.2),
                        requests,
                        int(r["page_requests_wait_io"]),
                        int(r["page_requests_wait_io"]),
                    )
                )
        return rows

    def _ldm_speeds(self, n: SimDataNode) -> list[tuple[int, int, int]]:
        ldm = [t for t in n.threads if t.name == "ldm"]
        count = max(len(ldm), 1)
        return [
            (t.thr_no, int(n.lcp_write_bps / count), int(n.redo_write_bps / count)) for t in ldm
        ]

    def _dws_aggregate(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for thr_no, lcp, redo in self._ldm_speeds(n):
                rows.append(
                    (
                        n.node_id,
                        thr_no,
                        lcp,
                        redo,
                        lcp,
                        redo,
                        lcp // 20,
                        redo // 20,
                        lcp,
                        redo,
                        lcp // 15,
                        redo // 15,
                        0,
                        0,
                        0,
                        20 * 1024 * 1024,
                    )
                )
        return rows

    def _dws_node(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            speeds = self._ldm_speeds(n)
            lcp = sum(s[1] for s in speeds)
            redo = sum(s[2] for s in speeds)
            rows.append((n.node_id, lcp, redo, lcp, redo, lcp, redo))
        return rows

    # Logs and memory

    def _log_rows(self, nodes: list[SimDataNode]) -> list[tuple[int, int, int, int, int]]:
        rows = []
        for n in nodes:
            total = n.redo_part_mb * 1024 * 1024
            for part, used_mb in enumerate(n.redo_used_mb):
                rows.append(
                    (
                        n.node_id,
                        part,
                        total,
                        int(used_mb * 1024 * 1024),
                        int(used_mb * 1.2 * 1024 * 1024),
                    )
                )
        return rows

    def _logspaces(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [
            (node, "REDO", 0, part, total, used)
            for node, part, total, used, _ in self._log_rows(nodes)
        ]

    def _ndb_logspaces(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [
            (node, 0, 0, part, total, used, high)
            for node, part, total, used, high in self._log_rows(nodes)
        ]

    def _logbuffers(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            used = min(int(n.redo_write_bps * 0.05), _LOG_BUFFER_BYTES)
            for part in range(n.redo_parts):
                rows.append((n.node_id, "REDO", 0, part, _LOG_BUFFER_BYTES, used))
        return rows

    def _memoryusage(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        legacy_index = self.cluster.config.ndb_version < 0x080000
        for n in nodes:
            rows.append(
                (
                    n.node_id,
                    "Data memory",
                    n.data_pages_used * 32768,
                    n.data_pages_used,
                    n.data_pages_total * 32768,
                    n.data_pages_total,
                )
            )
            if legacy_index:
                used, total = self.cluster.index_pages(n)
                rows.append((n.node_id, "Index memory", used * 8192, used, total * 8192, total))
            lmb_used = 512 + int(sum(n.loads) * 2)
            rows.append(
                (
                    n.node_id,
                    "Long message buffer",
                    lmb_used * 256,
                    lmb_used,
                    _LONG_MESSAGE_PAGES * 256,
                    _LONG_MESSAGE_PAGES,
                )
            )
        return rows

    # Network and activity

    def _transporter_rows(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cluster = self.cluster
        cfg = cluster.config
        others = [(d.node_id, d.host) for d in cfg.data_nodes]
        others += [(m.node_id, m.host or "") for m in cfg.mgm_nodes]
        others += [(a.node_id, a.host or "127.0.0.1") for a in cfg.api_nodes]
        now = cluster.now
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            ops = n.operations
            uptime = n.uptime(now)
            peers = max(len(others) - 1, 1)
            for peer_id, host in others:
                if peer_id == n.node_id:
                    continue
                up = self._peer_connected(peer_id)
                if not up:
                    rows.append((n.node_id, peer_id, 1, "-", 0, 0, 0, 0, 0, 0, 0, 0))
                    continue
                sent = int(ops * 180 / peers + uptime * 900)
                received = int(ops * 165 / peers + uptime * 880)
                rows.append((n.node_id, peer_id, 0, host, sent, received, 1, 0, 0, 0, 0, 0))
        return rows

    def _peer_connected(self, node_id: int) -> bool:
        cluster = self.cluster
        if node_id in cluster.data_nodes:
            return cluster.data_nodes[node_id].alive
        if node_id in cluster.mgmd_alive:
            return cluster.mgmd_alive[node_id]
        return node_id in cluster.api_connected

    def _ndb_transporters(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return self._transporter_rows(nodes)

    def _transporters(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        names = {0: "CONNECTED", 1: "CONNECTING", 2: "DISCONNECTED", 3: "DISCONNECTING"}
        return [
            (r[0], r[1], names[r[2]], *r[3:])  # type: ignore[index]
            for r in self._transporter_rows(nodes)
        ]

    def _counters(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for name in TC_COUNTERS:
                rows.append((n.node_id, "DBTC", 0, COUNTER_IDS[name], name, int(n.tc[name])))
            ldm = [t for t in n.threads if t.name == "ldm"]
            for t in ldm:
                rows.append(
                    (
                        n.node_id,
                        "DBLQH",
                        t.instance,
                        COUNTER_IDS["OPERATIONS"],
                        "OPERATIONS",
                        int(n.operations / len(ldm)),
                    )
                )
        return rows

    def _hwinfo(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cpus = self.cluster.config.host_cpus
        return [
            (
                n.node_id,
                cpus,
                cpus,
                cpus // 2,
                1,
                64 * 1024**3,
                "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
            )
            for n in nodes
        ]
