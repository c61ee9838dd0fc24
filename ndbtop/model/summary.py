"""The one-line summary of a cluster's health, from ``get status`` and the configuration."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, resolve_groups, unknown_groups


@dataclass(frozen=True, **SLOTS)
class ClusterSummary:
    """Data nodes started, node groups missing a node, API slots in use, and the master."""

    data_nodes: int
    data_started: int
    groups: tuple[int, ...]
    groups_missing: tuple[int, ...]
    groups_down: tuple[int, ...]
    api_slots: int
    api_connected: int
    master: int | None
    single_user_mode: bool = False
    """A data node is in single-user mode (every restart is refused)."""
    single_user_api: int | None = None
    """The API node that holds single-user mode, when the server tells (``is_single_user``)."""
    unplaced: tuple[int, ...] = ()
    """Data nodes whose node group is unknown (no configuration and not started)."""

    @property
    def all_started(self) -> bool:
        """True when every configured data node is started."""
        return self.data_nodes > 0 and self.data_started == self.data_nodes


_LAST: list[tuple[tuple[NodeStatus, ...], ClusterConfig | None, ClusterSummary]] = []
"""The last few summaries, by the very tuple of nodes and configuration they are of: a
screen summarises the same answer several times a refresh, and a steady cluster's answer
is the same tuple from one refresh to the next."""


def summarize(nodes: Iterable[NodeStatus], config: ClusterConfig | None = None
              ) -> ClusterSummary:
    """Summarise a ``get status`` answer, with node groups as the configuration says.

    A node group is *missing a node* when one of its members is not started,
    and *down* when none is: the cluster cannot serve its data then. Nodes in
    no node group are left out. The master is the started data node with the
    lowest dynamic id.
    """
    if isinstance(nodes, tuple):
        for seen, seen_config, summary in _LAST:
            if seen is nodes and seen_config is config:
                return summary
        summary = _summarize(nodes, config)
        _LAST.insert(0, (nodes, config, summary))
        del _LAST[4:]
        return summary
    return _summarize(tuple(nodes), config)


def _summarize(raw: tuple[NodeStatus, ...], config: ClusterConfig | None) -> ClusterSummary:
    nodes = resolve_groups(raw, config)
    data = [n for n in nodes if n.type == "NDB"]
    started = [n for n in data if n.status in ("STARTED", "SINGLE USER MODE")]
    members: dict[int, list[NodeStatus]] = {}
    for n in data:
        if n.node_group is not None:
            members.setdefault(n.node_group, []).append(n)
    up = {n.node_id for n in started}
    missing = tuple(g for g, ms in sorted(members.items()) if any(m.node_id not in up for m in ms))
    down = tuple(g for g, ms in sorted(members.items()) if all(m.node_id not in up for m in ms))
    api = [n for n in nodes if n.type == "API"]
    master, _ = president_and_successor(started)
    return ClusterSummary(
        data_nodes=len(data),
        data_started=len(started),
        groups=tuple(sorted(members)),
        groups_missing=missing,
        groups_down=down,
        api_slots=len(api),
        api_connected=sum(1 for n in api if n.status == "CONNECTED"),
        master=master,
        single_user_mode=in_single_user_mode(nodes),
        single_user_api=single_user_api(nodes),
        unplaced=unknown_groups(raw, config),
    )


def in_single_user_mode(nodes: Iterable[NodeStatus]) -> bool:
    """True when a data node is in single-user mode (the server's ``is_cluster_single_user``)."""
    return any(n.type == "NDB" and n.status == "SINGLE USER MODE" for n in nodes)


def single_user_api(nodes: Iterable[NodeStatus]) -> int | None:
    """The API node that holds single-user mode, when the server tells (``is_single_user``)."""
    return next((n.node_id for n in nodes if n.type == "API" and n.is_single_user), None)


def single_user_text(summary: ClusterSummary) -> str | None:
    """``SINGLE-USER MODE (API node 5)``, or None when the cluster is not in it."""
    if not summary.single_user_mode:
        return None
    holder = summary.single_user_api
    return "SINGLE-USER MODE" + (f" (API node {holder})" if holder is not None else "")


def president_and_successor(started: Iterable[NodeStatus]) -> tuple[int | None, int | None]:
    """The president (the master: the lowest dynamic id of the started data nodes) and its
    successor (the next), by succession order: the dynamic id's low 16 bits, the high ones
    holding the heartbeat order (QmgrMain.cpp execDBINFO_SCANREQ)."""
    ranked = sorted((n for n in started if n.dynamic_id), key=lambda n: n.dynamic_id & 0xFFFF)
    president = ranked[0].node_id if ranked else None
    successor = ranked[1].node_id if len(ranked) > 1 else None
    return president, successor
