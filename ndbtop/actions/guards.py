"""Checking an action against the cluster's live state before it is sent.

The assessment names what would block the action outright (no such node, not a
data node, no contact) and what the operator must know: the management
server's own refusals (5063 while a node starts or stops, 5028 for the last
started node of a node group) and what ``-i``, ``-a`` and ``-f`` do. Actions
whose options or consequences are dangerous need the node id typed to confirm.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.actions.commands import Action, RestartNode, SetClusterLogLevel, StartNode, StopNode
from ndbtop.mgm.status import NodeStatus

STARTED_STATES = ("STARTED", "SINGLE USER MODE")


@dataclass(frozen=True, slots=True)
class Assessment:
    """What the operator must see before confirming an action."""

    blockers: tuple[str, ...]
    warnings: tuple[str, ...]
    danger: bool
    confirm_text: str | None
    """What must be typed to confirm (the node id), or None for a plain yes/no."""

    @property
    def allowed(self) -> bool:
        """True when nothing blocks the action."""
        return not self.blockers


def assess(action: Action, nodes: Iterable[NodeStatus]) -> Assessment:
    """Assess ``action`` against one ``get status`` answer."""
    nodes = tuple(nodes)
    by_id = {n.node_id: n for n in nodes}
    if isinstance(action, SetClusterLogLevel):
        return Assessment((), (), False, None)
    blockers: list[str] = []
    warnings: list[str] = []
    danger = False
    targets = action.node_ids
    for node_id in targets:
        node = by_id.get(node_id)
        if node is None:
            blockers.append(f"node {node_id} is not in the cluster configuration")
        elif node.type != "NDB":
            blockers.append(f"node {node_id} is a {node.type} node, not a data node")
        elif node.status in ("NO_CONTACT", "UNKNOWN"):
            blockers.append(
                f"node {node_id} is {node.status}: the management server cannot "
                "reach it (start its ndbmtd process on its host)"
            )
    if blockers:
        return Assessment(tuple(blockers), (), False, None)

    data = [n for n in nodes if n.type == "NDB"]
    if isinstance(action, StartNode):
        node = by_id[action.node_id]
        if node.status != "NOT_STARTED":
            warnings.append(
                f"node {action.node_id} is {node.status}, not NOT_STARTED: START changes nothing"
            )
        return Assessment((), tuple(warnings), False, None)

    assert isinstance(action, RestartNode | StopNode)
    verb = "restart" if isinstance(action, RestartNode) else "stop"
    force = action.force
    abort = action.abort
    busy = [
        n for n in data if n.status in ("STARTING", "SHUTTING_DOWN") and n.node_id not in targets
    ]
    if busy and not (force or abort):
        which = ", ".join(f"{n.node_id} ({n.status})" for n in busy)
        warnings.append(
            f"node {which} is starting or stopping: the management server will "
            f"refuse (5063) unless -a or -f"
        )
    for node_id in targets:
        node = by_id[node_id]
        if node.status == "STARTING":
            warnings.append(f"node {node_id} is starting: a {verb} abandons its start")
    for group, members in _groups(data).items():
        started = [m for m in members if m.status in STARTED_STATES]
        if started and all(m.node_id in targets for m in started):
            danger = True
            names = ", ".join(str(m.node_id) for m in started)
            if force:
                warnings.append(
                    f"node {names} is the last started node of node group {group}: "
                    f"with -f the management server {verb}s ALL data nodes "
                    "(the cluster goes down)"
                )
            else:
                warnings.append(
                    f"node {names} is the last started node of node group {group}: "
                    f"the cluster would go down; the management server refuses "
                    f"(5028) without -f"
                )
    if isinstance(action, RestartNode):
        if action.initial:
            danger = True
            warnings.append(
                "-i removes the node's file system: it copies all its data back "
                "from its node group (an initial node restart)"
            )
        if action.nostart:
            warnings.append("-n leaves the node NOT_STARTED: start it with START afterwards")
    if abort:
        danger = True
        warnings.append("-a stops immediately, without a graceful shutdown")
    if force and not danger:
        danger = True
        warnings.append("-f overrides the management server's safety checks")
    confirm = " ".join(map(str, targets)) if (danger or action.dangerous_options) else None
    return Assessment((), tuple(warnings), danger, confirm)


def _groups(data: list[NodeStatus]) -> dict[int, list[NodeStatus]]:
    groups: dict[int, list[NodeStatus]] = {}
    for n in data:
        if n.node_group is not None:
            groups.setdefault(n.node_group, []).append(n)
    return groups
