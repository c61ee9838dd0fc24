"""One data node's row of ``ndbinfo.membership``: how it sees the cluster's membership.

Sources: ndbinfo.md §2.1 (the view's columns and the ``arb_state``/``arb_connected``
mappings); what each column holds from ``Qmgr::execDBINFO_SCANREQ`` (QmgrMain.cpp,
MEMBERSHIP_TABLEID): ``group_id`` the node's node group (NDB_NO_NODEGROUP, 65536, for none),
``left_node``/``right_node`` its heartbeat neighbours (left the lower, right the higher),
``successor`` the running node other than the president with the lowest succession order (0
for none), ``arbitrator`` the arbitrator it knows (0 for none), ``arb_ticket`` the ticket as
16 hex digits (``ArbitTicket::getText``), the connected rank 1 and rank 2 arbitrator
candidates as ``"49, 50"`` or ``-``.
"""

from __future__ import annotations

from dataclasses import dataclass

ARB_STATES = ("ARBIT_NULL", "ARBIT_INIT", "ARBIT_FIND", "ARBIT_PREP1", "ARBIT_PREP2",
              "ARBIT_START", "ARBIT_RUN", "ARBIT_CHOOSE", "ARBIT_CRASH")
"""The ``arb_state`` texts of the view, by ``Qmgr::ArbitState`` number (anything else is
``UNKNOWN``)."""

ARB_STATE_WORDS = {
    "ARBIT_NULL": "none",
    "ARBIT_INIT": "being chosen",
    "ARBIT_FIND": "being chosen",
    "ARBIT_PREP1": "being prepared",
    "ARBIT_PREP2": "being prepared",
    "ARBIT_START": "starting",
    "ARBIT_RUN": "active",
    "ARBIT_CHOOSE": "deciding a partition",
    "ARBIT_CRASH": "arbitration lost",
}
"""What each state means for an operator (QmgrMain.cpp, the arbitration module: INIT and FIND
while the president looks for one, PREP1/PREP2 while the data nodes are given its ticket,
START while it is asked to start, RUN once it runs, CHOOSE while a partition waits for its
answer, CRASH once it decided against this node)."""


@dataclass(frozen=True)
class MembershipRow:
    """One data node's view of the membership. Node ids that are not node ids (0 for none, or
    a neighbour the node does not have) are None."""

    node_id: int
    group_id: int | None
    """None for a node in no node group."""
    left_node: int | None
    right_node: int | None
    president: int | None
    successor: int | None
    succession_order: int
    hb_order: int
    """``Conf_HB_order``: the HeartbeatOrder it was configured with (0: not set)."""
    arbitrator: int | None
    arb_ticket: str
    arb_state: str
    arb_connected: bool
    rank1_arbitrators: tuple[int, ...] = ()
    """Connected arbitrator candidates of ArbitrationRank 1."""
    rank2_arbitrators: tuple[int, ...] = ()

    @property
    def agreement_key(self) -> tuple[int | None, str, bool]:
        """What ``arbitrator_validity_summary`` groups by: arbitrator, ticket, connected."""
        return (self.arbitrator, self.arb_ticket, self.arb_connected)
