"""The events a running cluster reports by itself: transaction and operation statistics,
job-buffer and send-buffer figures every few seconds, and local checkpoints."""

from __future__ import annotations

from ndbtop.sim.cluster.state import ClusterState
from ndbtop.sim.workload import noise

STATS_INTERVAL = 5.0
LCP_INTERVAL = 600.0
LCP_DURATION = 45.0


class PeriodicReports(ClusterState):
    """Statistics and checkpoint events, on their own timers."""

    def start_reports(self) -> None:
        """Schedule the first statistics report and the first local checkpoint."""
        self.at(STATS_INTERVAL, self._report_statistics)
        self.at(LCP_INTERVAL, self._local_checkpoint)

    def _report_statistics(self) -> None:
        self.after(STATS_INTERVAL, self._report_statistics)
        want_trans = self.bus.wants(35)
        want_job = self.bus.wants(39)
        for node in self.data_nodes.values():
            if not node.serving:
                node.take_interval_counters()
                continue
            tc, ops = node.take_interval_counters()
            if want_trans:
                self.emit(
                    35,
                    node.node_id,
                    *(
                        int(tc[k])
                        for k in (
                            "TRANSACTIONS",
                            "COMMITS",
                            "READS",
                            "SIMPLE_READS",
                            "WRITES",
                            "ATTRINFO",
                        )
                    ),
                    int(ops / STATS_INTERVAL * 0.002),
                    int(tc["ABORTS"]),
                    int(tc["TABLE_SCANS"]),
                    int(tc["RANGE_SCANS"]),
                )
            if self.bus.wants(36):
                self.emit(36, node.node_id, int(ops))
            if not want_job:
                continue
            busy = sum(node.loads) / max(len(node.loads), 1) / 100.0
            jitter = noise(self.seed, int(self.now), node.node_id, 39)
            self.emit(39, node.node_id, int(8 + 60 * busy + 3 * jitter))
            tps = self.workload.tps / max(sum(1 for n in self.data_nodes.values() if n.serving), 1)
            for peer in self.data_nodes.values():
                if peer is node or not peer.serving:
                    continue
                size = int(
                    min(
                        65535,
                        180
                        + tps * 1.6
                        + 40 * noise(self.seed, int(self.now), node.node_id, peer.node_id),
                    )
                )
                self.emit(40, node.node_id, peer.node_id, max(size, 64))
                self.emit(41, node.node_id, peer.node_id, max(int(size * 0.93), 64))

    def _local_checkpoint(self) -> None:
        self.after(LCP_INTERVAL, self._local_checkpoint)
        master = self.master()
        if master is None:
            return
        self.lcp_id += 1
        gci = int(self.now / 2) + 1000
        lcp = self.lcp_id
        self.emit(6, master.node_id, lcp, gci - 300, gci - 2)
        self.after(LCP_DURATION, lambda: self._lcp_done(lcp))

    def _lcp_done(self, lcp: int) -> None:
        master = self.master()
        if master is not None:
            self.emit(7, master.node_id, lcp)
