"""Checking an action against the cluster's live state before it is sent.

The assessment follows the management server's own rules (MgmtSrvr.cpp,
Services.cpp): a restart is refused in single-user mode even with ``-f`` or
``-a`` (5063); a restart or stop without ``-f``/``-a`` is refused while any
data node is STARTING, the targets included (5063); stopping the last started
node of a node group is refused (5028), and with ``-f`` the server restarts or
stops every data node instead (restartDB/shutdownDB). What the server will do
is named exactly; actions whose consequence reaches the whole cluster want a
phrase naming that consequence typed to confirm, other dangerous ones the node
id. The node group of each node comes from the cluster configuration.

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
from dataclasses import dataclass

from ndbtop.actions.admin_commands import EnterSingleUser, ExitSingleUser, SetLogFilter
from ndbtop.actions.backup_commands import AbortBackup, StartBackup
from ndbtop.actions.commands import Action, RestartNode, SetClusterLogLevel, StartNode, StopNode
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import Backup, running_backup
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.summary import in_single_user_mode, single_user_api

STARTED_STATES = ("STARTED", "SINGLE USER MODE")

REFUSED_5063 = f"5063-{ec.MGM_ERRORS[5063][0]}"
"""The management server's refusal, as its restart reply begins."""

PHRASE_RESTART_CLUSTER = "restart the whole cluster"
PHRASE_STOP_CLUSTER = "stop the whole cluster"
PHRASE_DELETE_ALL_DATA = "delete all data"


@dataclass(frozen=True, slots=True)
class Assessment:
    """What the operator must see before confirming an action."""

    blockers: tuple[str, ...]
    warnings: tuple[str, ...]
    danger: bool
    confirm_text: str | None
    """What must be typed to confirm (a node id, or a phrase naming the consequence),
    or None for a plain yes/no."""
    consequence: str | None = None
    """What the server will do to the whole cluster (restartDB/shutdownDB), if it will."""

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


def assess(
    action: Action,
    nodes: Iterable[NodeStatus],
    config: ClusterConfig | None = None,
    backups: tuple[Backup, ...] = (),
) -> Assessment:
    """Assess ``action`` against one ``get status`` answer and the cluster configuration
    (and, for backup actions, the backups known)."""
    nodes = tuple(nodes)
    by_id = {n.node_id: n for n in nodes}
    if isinstance(action, SetLogFilter | EnterSingleUser | ExitSingleUser) or (
        isinstance(action, SetClusterLogLevel) and not action.all_nodes
    ):
        # Imported here: that module builds on this one's Assessment.
        from ndbtop.actions.admin_guards import assess_admin

        return assess_admin(action, nodes)
    if isinstance(action, SetClusterLogLevel):
        return Assessment((), (), False, None)
    if isinstance(action, StartBackup | AbortBackup):
        return assess_backup(action, nodes, backups)
    blockers: list[str] = []
    warnings: list[str] = []
    targets = action.node_ids
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

    data = [n for n in nodes if n.type == "NDB"]
    if isinstance(action, StartNode):
        node = by_id[action.node_id]
        if node.status != "NOT_STARTED":
            warnings.append(
                f"node {action.node_id} is {node.status}, not NOT_STARTED: START changes nothing"
            )
        return Assessment((), tuple(warnings), False, None)

    assert isinstance(action, RestartNode | StopNode)
    restart = isinstance(action, RestartNode)
    verb = "restart" if restart else "stop"
    force, abort = action.force, action.abort
    if restart and in_single_user_mode(data):
        return Assessment((single_user_refusal(nodes),), (), False, None)
    starting = [n for n in data if n.status == "STARTING"]
    if starting and not (force or abort):
        which = ", ".join(str(n.node_id) for n in starting)
        blockers.append(
            f"{REFUSED_5063} — data node {which} is STARTING: the management server refuses "
            f"a {verb} while any data node starts, this one included, unless -a or -f"
        )
        return Assessment(tuple(blockers), tuple(warnings), False, None)

    danger = False
    consequence: str | None = None
    phrase: str | None = None
    for node_id in targets:
        if by_id[node_id].status == "STARTING":
            warnings.append(f"node {node_id} is starting: a {verb} abandons its start")
    for group, members in _groups(data, config).items():
        started = [m for m in members if m.status in STARTED_STATES]
        if not (started and all(m.node_id in targets for m in started)):
            continue
        danger = True
        names = ", ".join(str(m.node_id) for m in started)
        if not force:
            warnings.append(
                f"node {names} is the last started node of node group {group}: "
                "the cluster would go down; the management server refuses (5028) without -f"
            )
            continue
        everyone = " ".join(str(n.node_id) for n in data if n.status != "NO_CONTACT")
        if restart and action.initial:
            consequence = (
                f"the whole cluster restarts initial: every data node ({everyone}) starts "
                "from an empty file system and all data in the cluster is deleted"
            )
            phrase = PHRASE_DELETE_ALL_DATA
        elif restart:
            after = " and stays NOT_STARTED (-n)" if action.nostart else ""
            consequence = (
                f"the whole cluster restarts: every data node ({everyone}) is stopped"
                f"{after} (a system restart, not a node restart)"
            )
            phrase = PHRASE_RESTART_CLUSTER
        else:
            consequence = f"the whole cluster shuts down: every data node ({everyone}) stops"
            phrase = PHRASE_STOP_CLUSTER
        warnings.append(
            f"node {names} is the last started node of node group {group}: with -f "
            f"the management server does not {verb} it alone: {consequence}"
        )
        break
    if restart:
        assert isinstance(action, RestartNode)
        if action.initial and consequence is None:
            danger = True
            warnings.append(
                "-i removes the node's file system: it copies all its data back "
                "from its node group (an initial node restart)"
            )
        if action.nostart and consequence is None:
            warnings.append("-n leaves the node NOT_STARTED: start it with START afterwards")
    if abort:
        danger = True
        warnings.append("-a stops immediately, without a graceful shutdown")
    if force and not danger:
        danger = True
        warnings.append("-f overrides the management server's safety checks")
    if phrase is None and (danger or action.dangerous_options):
        phrase = " ".join(map(str, targets))
    return Assessment((), tuple(warnings), danger, phrase, consequence)


def node_groups(
    data: Iterable[NodeStatus], config: ClusterConfig | None
) -> dict[int, list[NodeStatus]]:
    """Data nodes by node group (configured groups; nodes with no group left out)."""
    return _groups(list(data), config)


def _groups(data: list[NodeStatus], config: ClusterConfig | None) -> dict[int, list[NodeStatus]]:
    groups: dict[int, list[NodeStatus]] = {}
    for n in data:
        group = effective_node_group(n, config)
        if group is not None and group != NO_NODE_GROUP:
            groups.setdefault(group, []).append(n)
    return groups


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
