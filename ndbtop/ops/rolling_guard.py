"""The rolling restart's guards on node states: whether a step may restart its nodes now
(:func:`check_batch`), and how a node that is not back was last seen (:func:`last_seen`)."""

from __future__ import annotations

from collections.abc import Sequence

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.phases import StartTimeline, phase_text

STARTED = ("STARTED",)


def last_seen(node: NodeStatus, timeline: StartTimeline | None, now: float, *,
              restarted: bool = True) -> str:
    """A node that is not back, as last seen: ``node 3 STARTING in phase 5 copy data, wait
    LCP for at least 40 s``.

    ``get status`` gives the last completed phase, so the phase named is the one
    in progress. The time in it counts from the first poll that saw it (``now``
    and the timeline are on the same clock), hence "at least".
    """
    text = f"node {node.node_id} {node.status}"
    if node.status == "STARTING":
        text += f" in phase {phase_text(node, timeline)}"
        spent = timeline.in_phase_s(now) if timeline is not None else None
        if spent is not None and spent >= 1:
            text += f" for at least {int(spent)} s"
    elif node.status == "SHUTTING_DOWN":
        text += f" at {phase_text(node, timeline)}"
    elif node.status in STARTED and not restarted:
        text += ", never seen restarting"
    return text


def check_batch(batch: tuple[int, ...], nodes: Sequence[NodeStatus],
                config: ClusterConfig | None = None,
                known: Sequence[tuple[int, int]] = ()) -> str | None:
    """Why ``batch`` must not be restarted now, or None.

    Every node of the batch must be STARTED, and every other node of their
    node groups must be STARTED too: restarting a node whose partner is down
    takes its node group, and so the cluster, down. Node groups come from the
    configuration, else from ``known`` (the group a node had when last seen
    STARTED): a node that is not started reports none that counts.
    """
    by_id = {n.node_id: n for n in nodes}
    remembered = dict(known)

    def group_of(n: NodeStatus) -> int | None:
        group = effective_node_group(n, config)
        return remembered.get(n.node_id) if group is None else group

    for node_id in batch:
        node = by_id.get(node_id)
        if node is None:
            return f"node {node_id} is not a data node of this cluster"
        if node.status not in STARTED:
            return f"node {node_id} is {node.status}, not STARTED"
        group = group_of(node)
        if group is None or group == NO_NODE_GROUP:
            continue
        for partner in nodes:
            if (partner.type == "NDB" and partner.node_id not in batch
                    and partner.status not in STARTED
                    and group_of(partner) == group):
                return (f"node {partner.node_id}, partner of node {node_id} in node group "
                        f"{group}, is {partner.status}")
    return None
