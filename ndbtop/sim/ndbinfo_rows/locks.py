"""ndbinfo tables of transactions and locks: cluster_transactions, server_transactions,
cluster_locks, and dict_obj_info for the tables the locks are on.

Rows as the views give them (ndbinfo.md §2.7): a transaction on its coordinator's node, a
lock on the node of its fragment; ``mode`` S/X, ``state`` H/W, ``detail`` ``*`` for the
lock at the head of a row's queue, ``waiting_for`` NULL unless the lock is waited for.
"""

from __future__ import annotations

from ndbtop.model.locks import DEADLOCK_TIMEOUT_MS
from ndbtop.sim.clock import ServedTime
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode
from ndbtop.sim.cluster.transactions import TABLES, SimLock, SimTransaction


class LockTables:
    """Transactions and locks of the scenario's open transactions, from the started nodes."""

    cluster: SimCluster
    time: ServedTime

    def _since(self, then: float, now: float) -> float:
        """Seconds served from ``then`` to ``now``."""
        return max(self.time.served(now) - self.time.served(then), 0.0)

    def _inactive_s(self, t: SimTransaction, now: float) -> int:
        """``inactive_seconds``: idle since the last operation, within the client's period."""
        idle = self._since(t.last_active, now)
        period = t.period * self.time.served_per_sim()
        return int(idle % period if period > 0 else idle)

    def _wait_ms(self, lock: SimLock, now: float) -> int:
        """How long a lock has been held, or waited for (restarting at every retry)."""
        millis = int(self._since(lock.since, now) * 1000)
        return millis % DEADLOCK_TIMEOUT_MS if lock.waiting_for is not None else millis

    def _cluster_transactions(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [row[1:] for row in self._transaction_rows(nodes)]

    def _server_transactions(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return [row for row in self._transaction_rows(nodes) if row[0] is not None]

    def _transaction_rows(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        now = self.cluster.now
        up = {n.node_id for n in nodes}
        return [
            (t.mysql_connection_id, t.tc_node, t.tc_instance, t.transid, t.state, t.operations,
             0, self._inactive_s(t, now), t.api_node, 0x8001)  # an API block ref
            for t in self.cluster.open_transactions if t.tc_node in up
        ]

    def _cluster_locks(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        now = self.cluster.now
        up = {n.node_id for n in nodes}
        rows: list[tuple[object, ...]] = []
        for t in self.cluster.open_transactions:
            for lk in t.locks:
                if lk.node_id not in up:
                    continue
                waiting = lk.waiting_for is not None
                rows.append((lk.node_id, lk.block_instance, lk.table_id, lk.fragment_id,
                             lk.row_id, t.transid, "X" if lk.exclusive else "S",
                             "W" if waiting else "H", "" if waiting else "*", lk.op,
                             self._wait_ms(lk, now), lk.lock_num, lk.waiting_for))
        return rows

    def _lock_dict_obj_info(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        if not self.cluster.open_transactions:
            return []
        # A unique hash index is type 3, its parent the table (17, orders); tables type 2.
        return [(3 if "$unique" in name else 2, table_id, 1, 4,
                 2 if "$unique" in name else 0, 17 if "$unique" in name else 0, name)
                for table_id, name in TABLES]
