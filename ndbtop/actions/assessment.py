"""What a guard tells the operator before an action is sent, and the phrases it asks for."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.summary import single_user_api

STARTED_STATES = ("STARTED", "SINGLE USER MODE")

REFUSED_5063 = f"5063-{ec.MGM_ERRORS[5063][0]}"
"""The management server's refusal, as its restart reply begins."""
REFUSED_5026 = f"5026-{ec.MGM_ERRORS[5026][0]}"
"""The DIH master's refusal while another node starts (``execSTOP_REQ``)."""
REFUSED_5028 = f"5028-{ec.MGM_ERRORS[5028][0]}"
"""The data node's refusal to lose the last started node of a node group."""
REFUSED_5031 = f"5031-{ec.MGM_ERRORS[5031][0]}"
"""The data nodes' refusal of a graceful request naming several nodes."""

PHRASE_RESTART_CLUSTER = "restart the whole cluster"
PHRASE_STOP_CLUSTER = "stop the whole cluster"
PHRASE_DELETE_ALL_DATA = "delete all data"
PHRASE_LOSE_CLUSTER = "shut down every data node"
"""Typed to kill the last started node of a node group with ``-a``."""


@dataclass(frozen=True, **SLOTS)
class Assessment:
    """What the operator must see before confirming an action."""

    blockers: tuple[str, ...]
    warnings: tuple[str, ...]
    danger: bool
    confirm_text: str | None
    """What must be typed to confirm (a node id, or a phrase naming the consequence),
    or None for a plain yes/no."""
    consequence: str | None = None
    """What the server will do to the whole cluster (restartDB/shutdownDB, or every data
    node shutting down after a node group is lost), if it will."""
    as_abort: bool = False
    """The request is carried out as an abort (``-a``, or ``-f`` with several nodes, which
    the management server retries as an abort)."""

    @property
    def allowed(self) -> bool:
        """True when nothing blocks the action."""
        return not self.blockers


def single_user_refusal(nodes: Iterable[NodeStatus]) -> str:
    """Why every restart is refused now, with the server's own text."""
    nodes = tuple(nodes)
    holder = single_user_api(nodes)
    who = f" (API node {holder} holds it)" if holder is not None else ""
    return (
        f"{REFUSED_5063} — the cluster is in single-user mode{who}: the management server "
        "refuses every restart, even with -f or -a; leave it with EXIT SINGLE USER MODE"
    )
