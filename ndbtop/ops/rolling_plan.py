"""The plan of a rolling restart: which data nodes each step restarts, and how.

One node per node group at a time is an abort restart (``2 4 RESTART -a``): the data
nodes refuse a graceful request naming several nodes (5031), and while one restarted
node is STARTING every other graceful request gets 5063 (server-rules.md §6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ndbtop.actions.commands import RestartNode
from ndbtop.actions.production import rolling_phrase
from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.phases import INITIAL_NODE_RESTART, NODE_RESTART

PER_GROUP_PHRASE = "abort transactions"
"""Typed to confirm a rolling restart of one node per node group at a time (an abort
restart of several nodes per step)."""
ABORTED_NOT_DRAINED = (
    "one node of every node group restarts at once with -a: the transactions on those "
    "nodes are aborted, not drained (the server refuses several nodes in one graceful "
    "request with 5031)"
)


@dataclass(frozen=True, **SLOTS)
class RollingPlan:
    """Batches of data nodes restarted together, in order."""

    batches: tuple[tuple[int, ...], ...]
    initial: bool = False
    notes: tuple[str, ...] = ()
    """What the operator should know about the order (nodes with no node group last,
    nodes left out)."""
    groups: tuple[tuple[int, int], ...] = ()
    """The node group of each data node as known when planned (a node last seen
    STARTED keeps the group it had)."""
    abort: bool = False
    """Steps of several nodes are abort restarts (one node per node group at a time)."""
    production: str | None = None
    """The production context the plan is for (its phrase then names it)."""

    def action(self, batch: tuple[int, ...]) -> RestartNode:
        """The request of one step: several nodes only ever with ``-a``."""
        return RestartNode(batch, initial=self.initial, abort=self.abort and len(batch) > 1)

    @property
    def aborts(self) -> bool:
        """True when some step restarts several nodes at once, with ``-a``."""
        return any(self.action(b).abort for b in self.batches)

    @property
    def phrase(self) -> str | None:
        """What must be typed to confirm the plan beyond yes (None: yes is enough): the
        per-group phrase for abort restarts; on a production context that or ``rolling
        restart``, then ``on NAME``."""
        return rolling_phrase(PER_GROUP_PHRASE if self.aborts else None, self.production)

    @property
    def start_type(self) -> int:
        """The kind of start each restarted node goes through (it names their phases)."""
        return INITIAL_NODE_RESTART if self.initial else NODE_RESTART

    def commands(self) -> tuple[str, ...]:
        """The ``ndb_mgm`` command of each batch."""
        return tuple(self.action(b).ndb_mgm() for b in self.batches)


def plan_rolling(nodes: Sequence[NodeStatus], *, per_group: bool = False,
                 only: Sequence[int] | None = None, initial: bool = False,
                 config: ClusterConfig | None = None,
                 skip: Sequence[tuple[int, str]] = (),
                 due: Mapping[int, bool | None] | None = None) -> RollingPlan:
    """Order the data nodes by node group; one per batch, or one of each group per batch
    (restarted together with ``-a``).

    Nodes without a node group hold no data and come last, one by one. Nodes in
    ``skip`` (node id, why) are left out, and the plan says so. ``due`` tells, for each
    node, whether it still runs an older configuration than the management server's:
    when it is known for every node and some already run the current one, the nodes
    due come first and the plan says which are not due.
    """
    data = sorted((n for n in nodes if n.type == "NDB"), key=lambda n: n.node_id)
    known = tuple((n.node_id, g) for n in data
                  if (g := effective_node_group(n, config)) is not None)
    if only is not None:
        wanted = set(only)
        data = [n for n in data if n.node_id in wanted]
    left_out = {node_id: why for node_id, why in skip}
    notes = [f"node {n.node_id} left out: {left_out[n.node_id]}"
             for n in data if n.node_id in left_out]
    data = [n for n in data if n.node_id not in left_out]
    groups: dict[int, list[int]] = {}
    loose: list[int] = []
    unknown: list[int] = []
    for n in data:
        group = effective_node_group(n, config)
        if group is None:
            unknown.append(n.node_id)
        elif group == NO_NODE_GROUP:
            loose.append(n.node_id)
        else:
            groups.setdefault(group, []).append(n.node_id)
    first = _due_first(data, due)
    if first is not None:
        order = {node: i for i, node in enumerate(first)}
        for members in groups.values():
            members.sort(key=order.__getitem__)
        loose.sort(key=order.__getitem__)
        unknown.sort(key=order.__getitem__)
    ordered = [groups[g] for g in sorted(groups)]
    batches: list[tuple[int, ...]] = []
    if per_group:
        depth = max((len(g) for g in ordered), default=0)
        for i in range(depth):
            batch = tuple(g[i] for g in ordered if i < len(g))
            batches.append(batch)
    else:
        batches.extend((node,) for g in ordered for node in g)
    batches.extend((node,) for node in unknown)
    batches.extend((node,) for node in loose)
    if first is not None:
        behind = {n for n in first if (due or {}).get(n)}
        if not per_group:
            batches.sort(key=lambda b: b[0] not in behind)
        current = [n.node_id for n in data if n.node_id not in behind]
        notes.append(f"node {', '.join(map(str, current))} already "
                     f"run{'s' if len(current) == 1 else ''} the current configuration: "
                     "restarted after the nodes due")
    if unknown:
        names = ", ".join(map(str, unknown))
        notes.append(f"node {names}: node group not known (not STARTED, configuration not read)")
    if loose:
        names = ", ".join(map(str, loose))
        notes.append(f"node {names} in no node group (holds no data): restarted last")
    plan = RollingPlan(tuple(batches), initial, tuple(notes), known, abort=per_group)
    if plan.aborts:
        plan = replace(plan, notes=(*plan.notes, ABORTED_NOT_DRAINED))
    return plan


def _due_first(data: Sequence[NodeStatus],
               due: Mapping[int, bool | None] | None) -> list[int] | None:
    """The nodes, those due first, when some are due and some are not (else None)."""
    if due is None or any(due.get(n.node_id) is None for n in data):
        return None
    flags = [bool(due.get(n.node_id)) for n in data]
    if all(flags) or not any(flags):
        return None
    return [n.node_id for n in sorted(data, key=lambda n: not due.get(n.node_id))]


def due_nodes(plan: RollingPlan, due: Mapping[int, bool | None]) -> tuple[int, ...] | None:
    """The nodes of the plan still due to pick up the current configuration, when some of
    the plan's nodes already run it (None otherwise: every node or none is due, or it is
    not known)."""
    planned = [n for batch in plan.batches for n in batch]
    if any(due.get(n) is None for n in planned):
        return None
    behind = tuple(sorted(n for n in planned if due.get(n)))
    return behind if behind and len(behind) < len(planned) else None


def configuration_note(plan: RollingPlan, config: ClusterConfig | None,
                       pending: Mapping[int, bool | None]) -> str | None:
    """Which nodes of the plan the restart brings onto the current configuration, or None
    when the configuration or the nodes' running generations are not known."""
    if config is None:
        return None
    planned = [n for batch in plan.batches for n in batch]
    if any(pending.get(n) is None for n in planned):
        return None
    behind = sorted(n for n in planned if pending.get(n))
    if not behind:
        return f"every node already runs configuration generation {config.generation}"
    return (f"brings node {', '.join(map(str, behind))} onto configuration generation "
            f"{config.generation} (still running an older one)")
