"""Whether a rolling restart may begin: the server's hard rules and the cluster's health.

The management server refuses every restart in single-user mode, and any
restart without ``-f``/``-a`` while a data node is STARTING (5063): those are
hard rules, kept even with ``--force-degraded``. A degraded cluster (a data
node stopping or NO_CONTACT, a node group missing a node) refuses a rolling
restart too, unless ``--force-degraded``: the run then leaves out the nodes it
cannot restart (not started, or the last started node of their node group,
which the server would refuse with 5028) and says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.actions.guards import REFUSED_5063, node_groups, single_user_refusal
from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, effective_node_group
from ndbtop.model.summary import in_single_user_mode

STARTED = "STARTED"


@dataclass(frozen=True, **SLOTS)
class Verdict:
    """The pre-flight verdict of a rolling restart."""

    refusal: str | None
    """Why the run must not begin, in one line; None when it may."""
    degraded: tuple[str, ...] = ()
    """What is wrong with the cluster, gone past with ``--force-degraded``."""
    skipped: tuple[tuple[int, str], ...] = ()
    """Nodes left out of the run (``--force-degraded``) and why."""

    @property
    def ok(self) -> bool:
        """True when the run may begin."""
        return self.refusal is None

    def text(self) -> str:
        """``pre-flight: ok`` or ``pre-flight: refused: <why>``, one line."""
        if self.refusal is not None:
            return f"pre-flight: refused: {self.refusal}"
        if self.degraded:
            return "pre-flight: degraded, going on (--force-degraded): " + "; ".join(self.degraded)
        return "pre-flight: ok"


def preflight(
    nodes: Iterable[NodeStatus],
    config: ClusterConfig | None = None,
    *,
    force_degraded: bool = False,
) -> Verdict:
    """Check one ``get status`` answer before a rolling restart begins."""
    nodes = tuple(nodes)
    data = sorted((n for n in nodes if n.type == "NDB"), key=lambda n: n.node_id)
    if in_single_user_mode(data):
        return Verdict(single_user_refusal(nodes))
    starting = [n.node_id for n in data if n.status == "STARTING"]
    if starting:
        which = ", ".join(map(str, starting))
        return Verdict(
            f"{REFUSED_5063} — data node {which} is STARTING: the management server refuses "
            "every restart until it is STARTED"
        )
    soft: list[str] = []
    stopping = [n.node_id for n in data if n.status == "SHUTTING_DOWN"]
    if stopping:
        soft.append(f"data node {', '.join(map(str, stopping))} is stopping (SHUTTING_DOWN)")
    absent = [n.node_id for n in data if n.status == "NO_CONTACT"]
    if absent:
        soft.append(
            f"data node {', '.join(map(str, absent))} is NO_CONTACT: the management server "
            "cannot reach it"
        )
    groups = node_groups(data, config)
    for group, members in sorted(groups.items()):
        down = [m for m in members if m.status != STARTED]
        if down:
            names = ", ".join(f"{m.node_id} ({m.status})" for m in down)
            soft.append(f"node group {group} misses node {names}")
    others = [n for n in data if n.status not in (STARTED, "SHUTTING_DOWN", "NO_CONTACT")
              and effective_node_group(n, config) is None]
    if others:
        names = ", ".join(f"{n.node_id} ({n.status})" for n in others)
        soft.append(f"data node {names} is not started")
    if not soft:
        return Verdict(None)
    if not force_degraded:
        return Verdict(soft[0] + " (--force-degraded restarts the other nodes)")
    if config is not None:
        replicas = config.no_of_replicas
    else:
        # Without the configuration a node that is not started has no known group: it
        # may be the partner of any lone started node (two replicas is the default).
        unknown = any(effective_node_group(n, None) is None for n in data)
        replicas = max(max((len(m) for m in groups.values()), default=1), 2 if unknown else 1)
    return Verdict(None, tuple(soft), _skips(data, groups, replicas))


def _skips(
    data: list[NodeStatus], groups: dict[int, list[NodeStatus]], replicas: int
) -> tuple[tuple[int, str], ...]:
    """Nodes a forced run leaves out: those not started, and the last started node of a
    group (without the configuration, a group is as big as the biggest one seen)."""
    out: list[tuple[int, str]] = []
    for n in data:
        if n.status != STARTED:
            out.append((n.node_id, f"{n.status}, not STARTED"))
    for group, members in sorted(groups.items()):
        started = [m for m in members if m.status == STARTED]
        if len(started) == 1 and replicas > 1:
            out.append((
                started[0].node_id,
                f"the last started node of node group {group} (the server refuses: 5028)",
            ))
    return tuple(sorted(out))
