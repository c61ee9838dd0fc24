"""Arbitration in the simulated cluster: what the data nodes report when their arbitrator,
a management server, is killed and comes back.

As ``QmgrMain.cpp`` does: every started data node reports the loss (``Lost arbitrator
node 1 - process failure [state=6]``), the president restarts its arbitration thread
(``[state=1]``, INIT) with a new ticket and takes the first management server that is
up (lowest node id). Once one is found, the other data nodes report ``Prepare
arbitrator node N`` (their state is NULL after the loss) and the president ``Started
arbitrator node N`` (state START). A management server coming back while there is
no arbitrator is chosen after :data:`REGISTER_SECONDS`, the time it takes to connect
to the data nodes and register. Word 1 is ``code | state << 16``, word 2 the
arbitrator, words 3 and 4 the ticket.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbtop.model.arbitration import ARBIT_RESULT, ARBIT_STATE, ArbitCode, ArbitState
from ndbtop.sim.cluster.datanode import SimDataNode

if TYPE_CHECKING:
    from ndbtop.sim.cluster.state import ClusterState

REGISTER_SECONDS = 2.0
"""Simulated seconds from a management server's start until the data nodes can choose it."""
CHOOSE_SECONDS = 0.3
"""Simulated seconds the president takes to prepare and start a new arbitrator."""
TICKET_PID = 0x4A2B
"""The process id the president's ticket carries (``ArbitTicket::update``)."""


class SimArbitration:
    """Which management server is the arbitrator, and the events that change it."""

    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        ids = sorted(m.node_id for m in cluster.config.mgm_nodes)
        self.arbitrator: int | None = ids[0] if ids else None
        """The running arbitrator (None while the president looks for one)."""
        self._count = 0
        self.ticket = self._new_ticket()
        self._unregistered: set[int] = set()
        """Management servers that were killed and have not registered again."""
        self._starts: dict[int, int] = {}

    def _new_ticket(self) -> tuple[int, int]:
        self._count = (self._count + 1) & 0xFFFF
        return (TICKET_PID << 16) | self._count, int(self.cluster.now * 1000) & 0xFFFFFFFF

    def _members(self) -> list[SimDataNode]:
        return [n for n in self.cluster.data_nodes.values() if n.serving]

    def _report(self, source: int, code: int, state: int, node: int) -> None:
        self.cluster.emit(ARBIT_STATE, source, code | (state << 16), node, *self.ticket)

    @property
    def ticket_text(self) -> str:
        """The ticket as ``ndbinfo.membership`` shows it (``ArbitTicket::getText``)."""
        return f"{self.ticket[0]:08x}{self.ticket[1]:08x}"

    def state_of(self, node_id: int) -> ArbitState:
        """A started data node's arbitration state: RUN with an arbitrator; without one, FIND
        on the president (it looks for one) and NULL on the others (they lost it)."""
        if self.arbitrator is not None:
            return ArbitState.RUN
        president = self.cluster.master()
        if president is not None and president.node_id == node_id:
            return ArbitState.FIND
        return ArbitState.NULL

    def candidates(self) -> tuple[int, ...]:
        """The management servers (ArbitrationRank 1) the data nodes are connected to."""
        return tuple(sorted(i for i, alive in self.cluster.mgmd_alive.items()
                            if alive and i not in self._unregistered))

    def check_won(self) -> None:
        """A data node failed and the others keep a node group majority: the president
        reports ``Arbitration check won - node group majority`` (no arbitrator asked)."""
        president = self.cluster.master()
        if president is not None:
            self.cluster.emit(ARBIT_RESULT, president.node_id,
                              int(ArbitCode.WIN_GROUPS) | (ArbitState.RUN << 16),
                              self.arbitrator or 0, *self.ticket)

    def mgmd_killed(self, node_id: int) -> None:
        """Management server ``node_id`` died; if it was the arbitrator, choose another."""
        self._unregistered.add(node_id)
        if node_id != self.arbitrator:
            return
        self.arbitrator = None
        president = self.cluster.master()
        if president is None:
            return
        for node in self._members():
            self._report(node.node_id, ArbitCode.API_FAIL, ArbitState.RUN, node_id)
        self._report(president.node_id, ArbitCode.THREAD_START, ArbitState.INIT, 0)
        self.ticket = self._new_ticket()
        self.cluster.after(CHOOSE_SECONDS, self._choose_one)

    def lost_by_data_nodes(self, node_id: int) -> None:
        """The data nodes lost management server ``node_id`` (ndbtop may still reach it): it
        is no longer their arbitrator nor a candidate, without the events (a scenario
        reports its own)."""
        self._unregistered.add(node_id)
        if node_id == self.arbitrator:
            self.arbitrator = None

    def mgmd_started(self, node_id: int) -> None:
        """Management server ``node_id`` is back; it is chosen if there is no arbitrator."""
        start = self._starts[node_id] = self._starts.get(node_id, 0) + 1

        def registered() -> None:
            if self.cluster.mgmd_alive.get(node_id) and self._starts[node_id] == start:
                self._unregistered.discard(node_id)
                self._choose_one()

        self.cluster.after(REGISTER_SECONDS, registered)

    def _choose_one(self) -> None:
        if self.arbitrator is not None:
            return
        up = sorted(
            i
            for i, alive in self.cluster.mgmd_alive.items()
            if alive and i not in self._unregistered
        )
        president = self.cluster.master()
        if not up or president is None:
            return
        chosen = up[0]
        for node in self._members():
            if node is not president:
                self._report(node.node_id, ArbitCode.PREP_PART2, ArbitState.NULL, chosen)
        self._report(president.node_id, ArbitCode.API_START, ArbitState.START, chosen)
        self.arbitrator = chosen
