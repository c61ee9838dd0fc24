"""Checking an action against the cluster's live state before it is sent.

The assessment follows the management server's own rules: a restart or stop of
named data nodes is judged by :mod:`ndbtop.actions.node_guards` (5063, 5031,
5028, what ``-a`` and ``-f`` really do). What the server will do is named
exactly; actions whose consequence reaches the whole cluster want a phrase
naming that consequence typed to confirm, other dangerous ones the node id.
The node group of each node comes from the cluster configuration.

START BACKUP is refused while the cluster is in single-user mode (only the
single user's API node may use it), while a data node is starting, and while a
backup runs (the data nodes would answer 1302 "A backup is already running").
It needs a started data node: MgmtSrvr::startBackup has no 5030 check, and with
no started data node to send it to the server answers 5005 (Send to process or
receive failed.). ABORT BACKUP of an id that is not running is sent anyway, as the
server answers ``Ok`` and nothing happens; the operator is told so, and types the id.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.actions.admin_commands import EnterSingleUser, ExitSingleUser, SetLogFilter
from ndbtop.actions.admin_guards import assess_admin
from ndbtop.actions.assessment import (
    PHRASE_DELETE_ALL_DATA,
    PHRASE_LOSE_CLUSTER,
    PHRASE_RESTART_CLUSTER,
    PHRASE_STOP_CLUSTER,
    REFUSED_5028,
    REFUSED_5031,
    REFUSED_5063,
    STARTED_STATES,
    Assessment,
    single_user_refusal,
)
from ndbtop.actions.backup_commands import AbortBackup, StartBackup
from ndbtop.actions.commands import Action, RestartNode, SetClusterLogLevel, StartNode, StopNode
from ndbtop.actions.mgm_node_guards import assess_mgm_control
from ndbtop.actions.node_guards import assess_node_control, node_groups
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import Backup, running_backup
from ndbtop.model.config import ClusterConfig
from ndbtop.model.summary import in_single_user_mode, single_user_api

__all__ = [
    "PHRASE_DELETE_ALL_DATA",
    "PHRASE_LOSE_CLUSTER",
    "PHRASE_RESTART_CLUSTER",
    "PHRASE_STOP_CLUSTER",
    "REFUSED_5028",
    "REFUSED_5031",
    "REFUSED_5063",
    "STARTED_STATES",
    "Assessment",
    "assess",
    "assess_backup",
    "node_groups",
    "single_user_refusal",
]


def assess(
    action: Action,
    nodes: Iterable[NodeStatus],
    config: ClusterConfig | None = None,
    backups: tuple[Backup, ...] = (),
    address: str | None = None,
    mgmd: int | None = None,
) -> Assessment:
    """Assess ``action`` against one ``get status`` answer and the cluster configuration
    (and, for backup actions, the backups known); ``address`` is the management server
    the action goes to (``HOST:PORT``), and ``mgmd`` its node id as it says itself (``get
    mgmd nodeid``), which tell which management node that is."""
    nodes = tuple(nodes)
    by_id = {n.node_id: n for n in nodes}
    if isinstance(action, (SetLogFilter, EnterSingleUser, ExitSingleUser)) or (
        isinstance(action, SetClusterLogLevel) and not action.all_nodes
    ):
        return assess_admin(action, nodes)
    if isinstance(action, SetClusterLogLevel):
        return Assessment((), (), False, None)
    if isinstance(action, (StartBackup, AbortBackup)):
        return assess_backup(action, nodes, backups)
    blockers: list[str] = []
    warnings: list[str] = []
    targets = action.node_ids
    kinds = {by_id[i].type for i in targets if i in by_id}
    if isinstance(action, (RestartNode, StopNode)) and kinds == {"MGM"} and \
            len(kinds) == 1 and all(i in by_id for i in targets):
        return assess_mgm_control(action, nodes, address, mgmd)
    if "MGM" in kinds and len(kinds) > 1:
        return Assessment((
            "management nodes and data nodes in one request: ndbtop sends them as separate "
            "requests (the management node's answer would close the connection mid-way)",),
            (), False, None)
    for node_id in targets:
        node = by_id.get(node_id)
        if node is None:
            blockers.append(f"node {node_id} is not in the cluster configuration")
        elif node.type != "NDB":
            blockers.append(f"node {node_id} is a {node.type} node, not a data node")
        elif node.status == "NO_CONTACT":
            blockers.append(
                f"node {node_id} is NO_CONTACT: the management server cannot "
                "reach it (start its ndbmtd process on its host)"
            )
        elif node.status == "UNKNOWN":
            warnings.append(
                f"node {node_id} is connected but in a state the management server "
                "does not map (UNKNOWN)"
            )
    if blockers:
        return Assessment(tuple(blockers), (), False, None)

    if isinstance(action, StartNode):
        node = by_id[action.node_id]
        if node.status != "NOT_STARTED":
            warnings.append(
                f"node {action.node_id} is {node.status}, not NOT_STARTED: START changes nothing"
            )
        return Assessment((), tuple(warnings), False, None)

    assert isinstance(action, (RestartNode, StopNode))
    return assess_node_control(action, nodes, config, warnings)


SEND_FAILED_5005 = f"5005 {ec.MGM_ERRORS[5005][0]}"
"""What ``start backup`` answers with no started data node (MgmtSrvr::startBackup)."""


def assess_backup(
    action: StartBackup | AbortBackup, nodes: Iterable[NodeStatus], backups: tuple[Backup, ...]
) -> Assessment:
    """Assess a backup action against ``get status`` and the backups known."""
    nodes = tuple(nodes)
    data = [n for n in nodes if n.type == "NDB"]
    running = running_backup(backups)
    if isinstance(action, AbortBackup):
        warnings: list[str] = []
        if running is None or running.backup_id != action.backup_id:
            now = f"backup {running.backup_id} is" if running is not None else "no backup is"
            warnings.append(
                f"backup {action.backup_id} is not running ({now} running): the management "
                "server answers Ok and nothing is aborted"
            )
        warnings.append("the backup's files stay incomplete on the data nodes' disks")
        return Assessment((), tuple(warnings), True, str(action.backup_id))
    blockers: list[str] = []
    if in_single_user_mode(nodes) or single_user_api(nodes) is not None:
        holder = single_user_api(nodes)
        who = f" (API node {holder} holds it)" if holder is not None else ""
        blockers.append(
            f"the cluster is in single-user mode{who}: only that API node may use the "
            "cluster; leave it with EXIT SINGLE USER MODE before a backup"
        )
    starting = [n for n in data if n.status == "STARTING"]
    if starting:
        which = ", ".join(f"{n.node_id} (phase {n.start_phase})" for n in starting)
        blockers.append(f"node {which} is starting: wait until it is STARTED")
    if running is not None:
        blockers.append(
            f"backup {running.backup_id} is running: the data nodes refuse a second one "
            "(1302 A backup is already running)"
        )
    if not any(n.status in ("STARTED", "SINGLE USER MODE") for n in data):
        blockers.append(
            "no data node is started: the management server has no node to send the request "
            f"to and answers {SEND_FAILED_5005}"
        )
    warnings = []
    down = [n.node_id for n in data if n.status in ("NO_CONTACT", "NOT_STARTED", "UNKNOWN")]
    if down and not blockers:
        warnings.append(
            f"node {', '.join(map(str, down))} is not started: its node group partners "
            "write its data"
        )
    if not blockers:
        what = {
            0: "the server answers at once; progress follows in the Backup view",
            1: "the server answers once the backup started",
            2: "the server answers when the backup completed (or aborted)",
        }[action.wait]
        warnings.append(what)
    return Assessment(tuple(blockers), tuple(warnings), False, None)
