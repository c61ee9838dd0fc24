"""The guard of a restart or stop of named data nodes, by the server's own rules.

Read in ``MgmtSrvr::restartNodes``/``stopNodes``/``sendSTOP_REQ`` (MgmtSrvr.cpp),
``MgmApiSession::restart``/``stop`` (Services.cpp) and ``Ndbcntr::execSTOP_REQ``
(NdbcntrMain.cpp); server-rules.md §2, §3 and §6:

- a restart in single-user mode is refused (5063), even with ``-f`` or ``-a``;
- without ``-f`` and ``-a``, any data node STARTING means 5063; with either, no such check;
- several nodes in one request without ``-a`` are refused by the data nodes (5031); with
  ``-f`` the management server retries the request once as an abort;
- one node with ``-a`` is killed at once, before any node-group check: on the last started
  node of a node group the group is lost and every data node shuts down (exit 6302);
- any other request (one node graceful with ``-f``, several nodes with ``-a`` or ``-f``)
  that reaches the DIH master while another data node starts is refused with 5026 (Node
  shutdown in progress: ``execSTOP_REQ``, ``!c_start.m_starting.isclear()``), which ``-f``
  does not turn into a restart of every data node;
- otherwise (one node graceful, or several with abort) losing the last started node of a
  node group is refused (5028), and with ``-f`` the server restarts or stops every data
  node instead (``restartDB``/``shutdownDB``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.actions.assessment import (
    PHRASE_DELETE_ALL_DATA,
    PHRASE_LOSE_CLUSTER,
    PHRASE_RESTART_CLUSTER,
    PHRASE_STOP_CLUSTER,
    REFUSED_5026,
    REFUSED_5028,
    REFUSED_5031,
    REFUSED_5063,
    STARTED_STATES,
    Assessment,
    single_user_refusal,
)
from ndbtop.actions.commands import RestartNode, StopNode
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.summary import in_single_user_mode


def assess_node_control(
    action: RestartNode | StopNode,
    nodes: Iterable[NodeStatus],
    config: ClusterConfig | None = None,
    warnings: Iterable[str] = (),
) -> Assessment:
    """Assess a restart or stop whose targets are known data nodes in contact.

    ``warnings`` are the ones already found about the targets (an UNKNOWN state).
    """
    nodes = tuple(nodes)
    told = list(warnings)
    by_id = {n.node_id: n for n in nodes}
    data = [n for n in nodes if n.type == "NDB"]
    restart = isinstance(action, RestartNode)
    verb = "restart" if restart else "stop"
    targets = action.node_ids
    ids = " ".join(map(str, targets))
    several = len(targets) > 1
    force, abort = action.force, action.abort
    if restart and in_single_user_mode(data):
        return Assessment((single_user_refusal(nodes),), (), False, None)
    starting = [n for n in data if n.status == "STARTING"]
    if starting and not (force or abort):
        which = ", ".join(str(n.node_id) for n in starting)
        return Assessment((
            f"{REFUSED_5063} — data node {which} is STARTING: the management server refuses "
            f"a {verb} while any data node starts, this one included, unless -a or -f",
        ), tuple(told), False, None)
    if several and not (force or abort):
        return Assessment((
            f"{REFUSED_5031} — the data nodes refuse a graceful {verb} of several nodes in "
            f"one request: {_one_at_a_time(restart, targets, data, config)} (with -a all of "
            f"nodes {ids} are killed at once)",
        ), tuple(told), False, None)

    as_abort = abort or (several and force)
    others = [n for n in starting if n.node_id not in targets]
    if others and not (as_abort and not several):
        which = ", ".join(str(n.node_id) for n in others)
        return Assessment((
            f"{REFUSED_5026} — data node {which} is STARTING: the DIH master refuses a "
            f"{verb} that is not one node with -a while another node starts (-f does not "
            "change that); wait until it is STARTED",
        ), tuple(told), False, None)
    danger = False
    consequence: str | None = None
    phrase: str | None = None
    if several and not abort:
        danger = True
        told.append(
            f"-f with several nodes: the data nodes refuse a graceful {verb} of several nodes "
            f"({REFUSED_5031}) and the management server retries it as an abort {verb} (-a)"
        )
    for node_id in targets:
        if by_id[node_id].status == "STARTING":
            told.append(f"node {node_id} is starting: a {verb} abandons its start")
    lost = _groups_lost(targets, data, config)
    if lost:
        group, started = lost[0]
        danger = True
        if as_abort and not several:
            # execSTOP_REQ: one node with abort gets STOP_ORD/START_ORD at once, before
            # any node-group check; the group is lost and the other nodes shut down (6302).
            consequence = (
                f"node {targets[0]} is killed at once; node group {group} loses its last "
                "node and every data node shuts down"
            )
            phrase = PHRASE_LOSE_CLUSTER
            told.append(
                f"{_last_of_group(started, group)}: -a is not checked against the node "
                f"group and the management server refuses nothing: {consequence}"
            )
        elif not force:
            them = "it" if len(started) == 1 else "them"
            return Assessment((
                f"{REFUSED_5028} — {_last_of_group(started, group)}: the data nodes refuse "
                f"to {verb} {them} (with -f the management server would {verb} every data "
                "node instead)",
            ), tuple(told), True, None, as_abort=as_abort)
        else:
            consequence, phrase = _whole_cluster(action, data)
            alone = "it alone" if len(started) == 1 else "them alone"
            told.append(
                f"{_last_of_group(started, group)}: with -f the management server does "
                f"not {verb} {alone}: {consequence}"
            )
    if consequence is None:
        told.extend(_left_alone(action, targets, data, config))
    if isinstance(action, RestartNode) and consequence is None:
        if action.initial:
            danger = True
            told.append(
                "-i removes the node's file system: it copies all its data back "
                "from its node group (an initial node restart)"
            )
        if action.nostart:
            told.append("-n leaves the node NOT_STARTED: start it with START afterwards")
    if as_abort:
        danger = True
        if several:
            told.append(
                f"nodes {ids} are killed at once, together: their transactions are "
                "aborted, not drained"
            )
        else:
            told.append(
                "-a stops the node immediately, without a graceful shutdown: its "
                "transactions are aborted, not drained"
            )
    if force and not danger:
        danger = True
        told.append("-f overrides the management server's safety checks")
    if phrase is None and (danger or action.dangerous_options or not restart):
        # A stop leaves the node down until someone starts it: the id is typed.
        phrase = ids
    return Assessment((), tuple(told), danger, phrase, consequence, as_abort)


def _last_of_group(started: list[NodeStatus], group: int) -> str:
    """``node 2 is the last started node of node group 0``, or for the whole group
    ``nodes 2 and 3 are all the started nodes of node group 0``."""
    if len(started) == 1:
        return f"node {started[0].node_id} is the last started node of node group {group}"
    ids = [str(m.node_id) for m in started]
    return (f"nodes {', '.join(ids[:-1])} and {ids[-1]} are all the started nodes of node "
            f"group {group}")


def _one_at_a_time(restart: bool, targets: tuple[int, ...], data: list[NodeStatus],
                   config: ClusterConfig | None) -> str:
    """How to do it instead: a restart waits for each node to be STARTED again; a stop
    needs no wait, but the last started node of a group is refused (5028)."""
    if restart:
        return "restart them one at a time, each after the one before is STARTED again"
    out = "stop them one at a time: " + ", then ".join(f"{n} STOP" for n in targets)
    for group, members in sorted(node_groups(data, config).items()):
        started = [m.node_id for m in members if m.status in STARTED_STATES]
        if started and all(n in targets for n in started):
            names = " and ".join(map(str, started))
            out += (f"; nodes {names} are all the started nodes of node group {group}: the "
                    f"last of them would be refused ({REFUSED_5028})")
    return out


def _left_alone(action: RestartNode | StopNode, targets: tuple[int, ...],
                data: list[NodeStatus], config: ClusterConfig | None) -> list[str]:
    """What a stop (or a restart with -n) leaves a node group to: its last started node,
    until the targets are started again."""
    if isinstance(action, RestartNode) and not action.nostart:
        return []
    out = []
    for group, members in sorted(node_groups(data, config).items()):
        gone = [m.node_id for m in members if m.node_id in targets]
        left = [m for m in members if m.status in STARTED_STATES and m.node_id not in targets]
        if gone and len(left) == 1:
            names = ", ".join(map(str, gone))
            # RESTART -n leaves the process NOT_STARTED, waiting for START; a stop ends the
            # data node's process (and its angel): START cannot reach it, its host must.
            how = (f"{names} START" if isinstance(action, RestartNode)
                   else "ndbmtd on its host: START reaches only a NOT_STARTED node")
            out.append(
                f"node group {group} runs on node {left[0].node_id} alone until node {names} "
                f"is started again ({how}): if node {left[0].node_id} fails meanwhile, every "
                "data node shuts down")
    return out


def _groups_lost(
    targets: tuple[int, ...], data: list[NodeStatus], config: ClusterConfig | None
) -> list[tuple[int, list[NodeStatus]]]:
    """The node groups whose every started node is a target, with those nodes."""
    out = []
    for group, members in node_groups(data, config).items():
        started = [m for m in members if m.status in STARTED_STATES]
        if started and all(m.node_id in targets for m in started):
            out.append((group, started))
    return out


def _whole_cluster(action: RestartNode | StopNode, data: list[NodeStatus]) -> tuple[str, str]:
    """What ``restartDB``/``shutdownDB`` does after a forced 5028, and the phrase to type."""
    everyone = " ".join(str(n.node_id) for n in data if n.status != "NO_CONTACT")
    if isinstance(action, RestartNode) and action.initial:
        return (
            f"the whole cluster restarts initial: every data node ({everyone}) starts "
            "from an empty file system and all data in the cluster is deleted",
            PHRASE_DELETE_ALL_DATA,
        )
    if isinstance(action, RestartNode):
        # restartDB stops every data node to NOT_STARTED, then sends each START_ORD
        # unless nostart.
        if action.nostart:
            what = (f"every data node ({everyone}) stops and stays NOT_STARTED (-n): the "
                    "cluster is down until they are started (a system restart follows)")
        else:
            what = (f"every data node ({everyone}) stops, then all start again together (a "
                    "system restart, not a node restart): the cluster is down until it has "
                    "started")
        return f"the whole cluster restarts: {what}", PHRASE_RESTART_CLUSTER
    return (
        f"the whole cluster shuts down: every data node ({everyone}) stops",
        PHRASE_STOP_CLUSTER,
    )


def node_groups(
    data: Iterable[NodeStatus], config: ClusterConfig | None
) -> dict[int, list[NodeStatus]]:
    """Data nodes by node group (configured groups; nodes with no group left out)."""
    groups: dict[int, list[NodeStatus]] = {}
    for n in data:
        group = effective_node_group(n, config)
        if group is not None and group != NO_NODE_GROUP:
            groups.setdefault(group, []).append(n)
    return groups
