"""The guard of a restart or stop of management nodes (``N RESTART``, ``N STOP`` where N is
an ndb_mgmd), by the server's own rules.

``MgmtSrvr::sendSTOP_REQ`` takes management nodes as well as data nodes: the management
server ndbtop is connected to stops (or restarts) itself after its reply, which then says
``disconnect: 1`` (``m_stopSelf``); another one it asks over a management connection of its
own (``sendStopMgmd``), which fails with 5005 when it cannot reach it. ``stopNodes`` and
``restartNodes`` refuse with 5063 while a data node starts unless ``-f`` or ``-a``, and a
restart in single-user mode always. The data nodes keep running without a management
server; what stops with the last one is the cluster log, the arbitrator it was, new
connections of API nodes and every command.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.actions.assessment import REFUSED_5063, Assessment, single_user_refusal
from ndbtop.actions.commands import Action, RestartNode, StopNode
from ndbtop.errors import MgmError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.summary import in_single_user_mode

PHRASE_LAST_MGMD = "stop the last management server"
"""Typed to stop the only management server that runs."""


def connected_mgmd(nodes: Iterable[NodeStatus], address: str | None,
                   mgmd: int | None = None) -> int | None:
    """The management node ndbtop is connected to: ``mgmd`` (its own answer to ``get mgmd
    nodeid``), else the only one that runs, or the one whose address is the host of
    ``address`` (``HOST:PORT``); None when that cannot be told."""
    mgm = [n for n in nodes if n.type == "MGM"]
    if mgmd is not None and any(n.node_id == mgmd for n in mgm):
        return mgmd
    running = [n for n in mgm if n.status == "CONNECTED"]
    if len(mgm) == 1 or len(running) == 1:
        return (mgm if len(mgm) == 1 else running)[0].node_id
    if not address:
        return None
    host = address.rsplit(":", 1)[0].strip("[]")
    found = [n.node_id for n in mgm if n.address and n.address == host]
    return found[0] if len(found) == 1 else None


async def mgmd_of(client: MgmClient, action: Action, nodes: Iterable[NodeStatus]) -> int | None:
    """The node id of the management server ``client`` is connected to (``get mgmd
    nodeid``), asked only when ``action`` restarts or stops management nodes; None
    otherwise, or when the server does not say."""
    mgm = {n.node_id for n in nodes if n.type == "MGM"}
    if not isinstance(action, (RestartNode, StopNode)) or not set(action.node_ids) & mgm:
        return None
    try:
        return await client.get_mgmd_nodeid()
    except MgmError:
        return None


def assess_mgm_control(action: RestartNode | StopNode, nodes: Iterable[NodeStatus],
                       address: str | None = None, mgmd: int | None = None) -> Assessment:
    """Assess a restart or stop whose targets are all management nodes (``mgmd``: the one
    ndbtop is connected to, as it said itself)."""
    nodes = tuple(nodes)
    by_id = {n.node_id: n for n in nodes}
    restart = isinstance(action, RestartNode)
    verb = "restart" if restart else "stop"
    targets = action.node_ids
    data = [n for n in nodes if n.type == "NDB"]
    if restart and in_single_user_mode(data):
        return Assessment((single_user_refusal(nodes),), (), False, None)
    starting = [n for n in data if n.status == "STARTING"]
    if starting and not (action.force or action.abort):
        which = ", ".join(str(n.node_id) for n in starting)
        return Assessment((
            f"{REFUSED_5063} — data node {which} is STARTING: the management server refuses "
            f"a {verb} while any data node starts, unless -a or -f",), (), False, None)
    down = [i for i in targets if by_id[i].status != "CONNECTED"]
    if down:
        names = ", ".join(map(str, down))
        return Assessment((
            f"management node {names} is not connected: the server cannot reach it to "
            f"{verb} it (5005 Send to process or receive failed.)",), (), False, None)
    told: list[str] = []
    phrase: str | None = " ".join(map(str, targets))
    running = [n.node_id for n in nodes if n.type == "MGM" and n.status == "CONNECTED"]
    left = [i for i in running if i not in targets]
    own = connected_mgmd(nodes, address, mgmd)
    if not left:
        what = ("until it is back" if restart else "until one is started again on its host")
        told.append(
            f"node {' '.join(map(str, targets))} is the last management server running: "
            f"{what} nothing serves commands, the cluster log or new API connections, and if "
            "it is the arbitrator the data nodes run without one (the data nodes keep running)")
        if not restart:
            phrase = PHRASE_LAST_MGMD
    if own is not None and own in targets:
        told.append(
            f"node {own} is the management server ndbtop is connected to: it {verb}s itself "
            "after replying (disconnect: 1) and closes this connection"
            + (f"; ndbtop goes on through node {', '.join(map(str, left))} if the connect "
               "string names it" if left else ""))
    elif own is None and len([n for n in nodes if n.type == "MGM"]) > 1:
        told.append(
            "ndbtop cannot tell which management server it is connected to: if it is one of "
            f"node {' '.join(map(str, targets))}, it {verb}s itself and closes this connection")
    if restart and (action.initial or action.nostart):
        told.append("-i and -n are passed on to the management server, which restarts "
                    "with them as ndb_mgm asks it (ndb_mgm_restart2)")
    return Assessment((), tuple(told), True, phrase)
