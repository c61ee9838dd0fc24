"""``ndbinfo.membership`` and the two ``arbitrator_validity`` views of a simulated cluster.

Each started data node reports what ``Qmgr::execDBINFO_SCANREQ`` (QmgrMain.cpp) writes: its
node group (NDB_NO_NODEGROUP, 65536, for none), its heartbeat neighbours (the nodes in the
cluster ordered by dynamic id, the lower one left, wrapping round), the president (the
oldest: lowest dynamic id), the successor (the next one, 0 for none), its dynamic id, and the
arbitration state of :class:`~ndbtop.sim.cluster.arbitration.SimArbitration`: the
arbitrator (0 for none), its ticket, the state, whether it is connected, and the connected
rank 1 candidates (the management servers). The views are shaped as ndbinfo.md §2.1 gives
them: ``arb_state`` and ``arb_connected`` as text, the summary grouped by arbitrator, ticket
and arb_connected.
"""

from __future__ import annotations

from collections import Counter

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode

NO_NODEGROUP = 65536
"""``NDB_NO_NODEGROUP`` (ndb_limits.h)."""
NO_NEIGHBOUR = 0xFFFF
"""What a lone node has for neighbours (``ZNIL`` of Qmgr.hpp), not a node id."""
ARB_STATE_NAMES = ("ARBIT_NULL", "ARBIT_INIT", "ARBIT_FIND", "ARBIT_PREP1", "ARBIT_PREP2",
                   "ARBIT_START", "ARBIT_RUN", "ARBIT_CHOOSE", "ARBIT_CRASH")


class MembershipTables:
    """Membership and arbitration, as a DBINFO scan of the started data nodes returns them."""

    cluster: SimCluster

    def _in_ring(self) -> list[SimDataNode]:
        nodes = [n for n in self.cluster.data_nodes.values() if n.alive and n.dynamic_id]
        return sorted(nodes, key=lambda n: n.dynamic_id)

    def _member_rows(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        """Every column of ``ndb$membership`` but shaped as the view gives them."""
        ring = self._in_ring()
        order = [n.node_id for n in ring]
        president = order[0] if order else 0
        successor = order[1] if len(order) > 1 else 0
        arb = self.cluster.arbitration
        arbitrator = arb.arbitrator or 0
        connected = "Yes" if arbitrator and self.cluster.mgmd_alive.get(arbitrator) else "No"
        rank1 = ", ".join(map(str, arb.candidates())) or "-"
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            if n.node_id in order and len(order) > 1:
                i = order.index(n.node_id)
                left, right = order[i - 1], order[(i + 1) % len(order)]
            else:
                left = right = NO_NEIGHBOUR
            group = n.cfg.node_group
            rows.append((
                n.node_id, NO_NODEGROUP if group is None else group, left, right, president,
                successor, n.dynamic_id & 0xFFFF, n.dynamic_id >> 16, arbitrator,
                arb.ticket_text, ARB_STATE_NAMES[arb.state_of(n.node_id)], connected, rank1,
                "-",
            ))
        return rows

    def _membership(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        return self._member_rows(nodes)

    def _arbitrator_validity_detail(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows = [(r[0], r[8], r[9], r[11], r[10]) for r in self._member_rows(nodes)]
        return sorted(rows, key=lambda r: (r[1], r[3] != "Yes"))  # type: ignore[arg-type, return-value]

    def _arbitrator_validity_summary(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        groups = Counter((r[8], r[9], r[11]) for r in self._member_rows(nodes))
        return [(a, t, c, count) for (a, t, c), count in groups.items()]
