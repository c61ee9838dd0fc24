"""ndbinfo tables of the links between nodes: transporters and ndb$transporters."""

from __future__ import annotations

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode


class TransporterTables:
    """The links between nodes, as a DBINFO scan of the started data nodes returns them."""

    cluster: SimCluster

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
                pressure = cluster.link_pressure.get((n.node_id, peer_id), (0, 0, 0, 0))
                rows.append((n.node_id, peer_id, 0, host, sent, received, 1, *pressure, 0))
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
