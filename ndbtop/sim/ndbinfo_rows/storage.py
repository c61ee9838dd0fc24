"""ndbinfo tables of memory, disks and logs: diskpagebuffer, diskstat, disk write speeds,
logspaces, logbuffers and memoryusage."""

from __future__ import annotations

from ndbtop.sim.clock import ServedTime
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode
from ndbtop.sim.ndbinfo_rows.ids import (
    LOG_BUFFER_BYTES,
    LONG_MESSAGE_PAGES,
)


class StorageTables:
    """Memory, disks and logs, as a DBINFO scan of the started data nodes returns them."""

    cluster: SimCluster
    time: ServedTime

    def skew_pages(self, node: SimDataNode, nodes: list[SimDataNode]) -> int:
        """DataMemory pages a node holds beyond the mean (its tables' share; see
        :mod:`~ndbtop.sim.ndbinfo_rows.tables`)."""
        return 0

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

    def _ldm_speeds(self, n: SimDataNode) -> list[tuple[int, int, int, int]]:
        ldm = [t for t in n.threads if t.name == "ldm"]
        count = max(len(ldm), 1)
        return [
            (t.thr_no, int(n.lcp_write_bps / count), int(n.redo_write_bps / count),
             int(n.io_lag_s * self.time.served_per_sim() / count))
            for t in ldm
        ]

    def _dws_aggregate(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for thr_no, lcp, redo, io_lag in self._ldm_speeds(n):
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
                        io_lag,
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
            used = min(int(n.redo_write_bps * 0.05), LOG_BUFFER_BYTES)
            for part in range(n.redo_parts):
                rows.append((n.node_id, "REDO", 0, part, LOG_BUFFER_BYTES, used))
        return rows

    def _memoryusage(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        legacy_index = self.cluster.config.ndb_version < 0x080000
        for n in nodes:
            used = min(n.data_pages_used + self.skew_pages(n, nodes), n.data_pages_total)
            rows.append(
                (
                    n.node_id,
                    "Data memory",
                    used * 32768,
                    used,
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
                    LONG_MESSAGE_PAGES * 256,
                    LONG_MESSAGE_PAGES,
                )
            )
        return rows
