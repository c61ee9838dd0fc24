"""What the simulated servers read from the cluster's state: ``get status`` rows, the data
nodes a DBINFO scan reaches, and the memory figures of ``REPORT MEMORY``."""

from __future__ import annotations

from ndbtop.mgm.status import NodeStatus
from ndbtop.sim.cluster.datanode import NO_CONTACT, SHUTTING_DOWN, STARTING, SimDataNode
from ndbtop.sim.cluster.state import ClusterState

DBTUP = 249
DBACC = 248


class ClusterStatus(ClusterState):
    """The cluster's state as the management server and the SQL node report it."""

    def node_statuses(self, mgmd_id: int | None = None) -> list[NodeStatus]:
        """Every configured node as ``get status`` describes it."""
        cfg = self.config
        version = cfg.ndb_version
        out: list[NodeStatus] = []
        for node in self.data_nodes.values():
            if node.state == NO_CONTACT:
                out.append(NodeStatus(node.node_id, "NDB", "NO_CONTACT", node_group=0))
                continue
            phase = (
                node.stop_level
                if node.state == SHUTTING_DOWN
                else (node.start_phase if node.state == STARTING else 0)
            )
            out.append(
                NodeStatus(
                    node.node_id,
                    "NDB",
                    node.state,
                    version,
                    version,
                    phase,
                    node.dynamic_id,
                    node.node_group,
                    node.connect_count,
                    node.cfg.host,
                    False,
                )
            )
        me = mgmd_id if mgmd_id is not None else self.mgmd_id
        for m in cfg.mgm_nodes:
            alive = m.node_id == me or self.mgmd_alive.get(m.node_id, False)
            out.append(
                NodeStatus(
                    m.node_id,
                    "MGM",
                    "CONNECTED" if alive else "NO_CONTACT",
                    version if alive else 0,
                    version if alive else 0,
                    address=(m.host or "") if alive else "",
                    is_single_user=False,
                )
            )
        any_alive = any(n.alive for n in self.data_nodes.values())
        for a in cfg.api_nodes:
            if a.node_id in self.api_connected and any_alive:
                out.append(
                    NodeStatus(
                        a.node_id,
                        "API",
                        "CONNECTED",
                        version,
                        version,
                        address=a.host or "127.0.0.1",
                        is_single_user=a.node_id == self.single_user_api,
                    )
                )
            else:
                out.append(
                    NodeStatus(
                        a.node_id,
                        "API",
                        "NO_CONTACT" if any_alive else "UNKNOWN",
                        is_single_user=any_alive and a.node_id == self.single_user_api,
                    )
                )
        return out

    def alive_data_nodes(self) -> int:
        """Data nodes a DBINFO scan reaches (started ones), when the SQL node is connected."""
        sql = self.config.sql_node_id
        if sql is not None and sql not in self.api_connected:
            return 0
        return sum(1 for n in self.data_nodes.values() if n.serving)

    def index_pages(self, node: SimDataNode) -> tuple[int, int]:
        """``IndexMemory`` pages (8 KB) a node uses and has: filled half as much as its
        ``DataMemory``, as hash indexes take less room than the rows they point to."""
        total = self.config.index_memory_mb * 1024 // 8
        used = node.data_pages_used * total // (2 * node.data_pages_total or 1)
        return used, total

    def memory_usage_words(self, node: SimDataNode) -> list[tuple[int, ...]]:
        """MemoryUsage (event 50) words a node reports for ``REPORT MEMORY``: data then index."""
        data = (0, 32768, node.data_pages_used, node.data_pages_total, DBTUP)
        index = (0, 8192, *self.index_pages(node), DBACC)
        return [data, index]
