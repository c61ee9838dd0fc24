"""``ndbinfo`` rows of a simulated cluster, in the column order of the schema.

Every row comes from the same :class:`SimCluster` the simulated ndb_mgmd
serves, so the two sources always agree. As with a real DBINFO scan, only
started data nodes report; a stopped node's rows are simply missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ndbtop.sim.clock import SIMULATED_TIME, ServedTime
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode
from ndbtop.sim.ndbinfo_rows.ids import BLOCK_NUMBERS, COUNTER_IDS, process_id, thread_tid
from ndbtop.sim.ndbinfo_rows.locks import LockTables
from ndbtop.sim.ndbinfo_rows.membership import MembershipTables
from ndbtop.sim.ndbinfo_rows.nodes import NodeTables
from ndbtop.sim.ndbinfo_rows.storage import StorageTables
from ndbtop.sim.ndbinfo_rows.tables import TableTables
from ndbtop.sim.ndbinfo_rows.threads import ThreadTables
from ndbtop.sim.ndbinfo_rows.transporters import TransporterTables

__all__ = ["BLOCK_NUMBERS", "COUNTER_IDS", "SimNdbinfo", "process_id", "thread_tid"]


class SimNdbinfo(TableTables, NodeTables, ThreadTables, StorageTables, TransporterTables,
                 MembershipTables, LockTables):
    """The ``NdbinfoProvider`` of a simulated cluster; durations, ages and times in the
    seconds ``time`` serves (simulated seconds by default)."""

    def __init__(self, cluster: SimCluster, sync: Callable[[], None] | None = None,
                 time: ServedTime = SIMULATED_TIME) -> None:
        self.cluster = cluster
        self._sync = sync
        self.time = time
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
            "membership": self._membership,
            "arbitrator_validity_detail": self._arbitrator_validity_detail,
            "arbitrator_validity_summary": self._arbitrator_validity_summary,
            "memory_per_fragment": self._memory_per_fragment,
            "dict_obj_info": self._dict_obj_info,
            "ndb$dict_obj_info": self._dict_obj_info,
            "cluster_transactions": self._cluster_transactions,
            "server_transactions": self._server_transactions,
            "cluster_locks": self._cluster_locks,
        }

    def _dict_obj_info(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        # The tables the simulated transactions lock, then the catalogue of the Tables view.
        return self._lock_dict_obj_info(nodes) + self._table_dict_obj_info(nodes)

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
