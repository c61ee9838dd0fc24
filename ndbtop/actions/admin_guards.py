"""What the management server will do with the cluster-log filter, single-user mode and a
one-node CLUSTERLOG level: the assessments :func:`ndbtop.actions.guards.assess` returns for
them.

Sources: ``set logfilter`` and ``set cluster loglevel`` (mgm-protocol.md §4.2, §4.3: the
server ignores ``node`` and changes the cluster log as a whole); ``enter single user``
(§3.1, §3.2: 5062 for a node that is not an API node, 5030 when no data node is reached;
``exit single user`` always answers ``Ok``); single-user mode refuses every restart with
5063, even with ``-f`` or ``-a`` (server-rules.md §2), and START BACKUP is only for the
API node that holds it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.actions.admin_commands import TOGGLE, EnterSingleUser, ExitSingleUser, SetLogFilter
from ndbtop.actions.assessment import Assessment
from ndbtop.actions.commands import SetClusterLogLevel
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.events.catalogue import Category, Severity
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.summary import in_single_user_mode, single_user_api

AUDITED = "the audit log records who entered it, from where, and what was shown"


def assess_admin(
    action: SetLogFilter | EnterSingleUser | ExitSingleUser | SetClusterLogLevel,
    nodes: Iterable[NodeStatus],
) -> Assessment:
    """Assess one of this module's actions against one ``get status`` answer."""
    nodes = tuple(nodes)
    if isinstance(action, SetLogFilter):
        return _log_filter(action)
    if isinstance(action, EnterSingleUser):
        return _enter_single_user(action, nodes)
    if isinstance(action, ExitSingleUser):
        return _exit_single_user(nodes)
    name = Category(action.category).filter_name or str(action.category)
    return Assessment((), (
        f"the management server ignores the node id: {name}={action.level} applies to "
        "the cluster log as a whole, for every node",
    ), False, None)


def _log_filter(action: SetLogFilter) -> Assessment:
    warnings: list[str] = []
    if Severity.ON in action.severities and action.enable != 1:
        what = "stops" if action.enable == 0 else "stops (if it is on now)"
        warnings.append(
            f"the management server {what} writing the cluster log: no event reaches "
            "the log file until CLUSTERLOG ON"
        )
    elif action.enable == TOGGLE:
        warnings.append("TOGGLE turns each severity named over: on if it is off, off if on")
    return Assessment((), tuple(warnings), False, None)


def _enter_single_user(action: EnterSingleUser, nodes: tuple[NodeStatus, ...]) -> Assessment:
    api = action.api_id
    by_id = {n.node_id: n for n in nodes}
    node = by_id.get(api)
    if node is None:
        return Assessment((f"node {api} is not in the cluster configuration",), (), False, None)
    if node.type != "API":
        message = ec.MGM_ERRORS[ec.NODE_NOT_API_NODE][0]
        return Assessment((
            f"node {api} is a {node.type} node: the management server refuses "
            f"({ec.NODE_NOT_API_NODE} {message})",
        ), (), False, None)
    data = [n for n in nodes if n.type == "NDB"]
    if data and all(n.status == "NO_CONTACT" for n in data):
        message = ec.MGM_ERRORS[ec.NO_CONTACT_WITH_DB_NODES][0]
        return Assessment((
            f"no data node is reachable: the management server refuses "
            f"({ec.NO_CONTACT_WITH_DB_NODES} {message})",
        ), (), False, None)
    warnings: list[str] = []
    holder = single_user_api(nodes)
    if in_single_user_mode(nodes) or holder is not None:
        who = f" (API node {holder} holds it)" if holder is not None else ""
        warnings.append(f"the cluster is already in single-user mode{who}")
    others = [n.node_id for n in nodes if n.type == "API" and n.node_id != api]
    connected = [n.node_id for n in nodes
                 if n.type == "API" and n.node_id != api and n.status == "CONNECTED"]
    lost = "connected now: " + (", ".join(map(str, connected)) if connected else "none")
    warnings.append(
        f"every API node but {api} loses access to the cluster's data: the SQL nodes and "
        f"NDB API applications on API nodes {', '.join(map(str, others)) or '(none)'} "
        f"({lost}) cannot read or write NDB tables until EXIT SINGLE USER MODE"
    )
    if node.status != "CONNECTED":
        warnings.append(f"API node {api} is {node.status}: no application has access now")
    warnings.append(
        "while it lasts the management server refuses every restart (5063), even with "
        f"-f or -a, and only API node {api} can start a backup"
    )
    warnings.append(AUDITED)
    return Assessment((), tuple(warnings), True, str(api))


def _exit_single_user(nodes: tuple[NodeStatus, ...]) -> Assessment:
    if not in_single_user_mode(nodes) and single_user_api(nodes) is None:
        return Assessment((), (
            "the cluster is not in single-user mode: the management server answers Ok "
            "and nothing changes",
        ), False, None)
    return Assessment((), ("every API node regains access to the cluster's data",), False, None)
