"""ndbinfo tables of the data nodes' threads: threads, threadblocks, cpustat and threadstat."""

from __future__ import annotations

from ndbtop.compat import zip_strict
from ndbtop.sim.clock import ServedTime
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode
from ndbtop.sim.ndbinfo_rows.ids import (
    BLOCK_NUMBERS,
    thread_tid,
)


class ThreadTables:
    """Each data node thread, its blocks and its load, as DBINFO scans return them."""

    cluster: SimCluster
    time: ServedTime

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
            for t, load in zip_strict(n.threads, n.loads):
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
        wall_ms = int((self.time.served(self.cluster.now) + 1_700_000_000) * 1000)
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
