"""The client against replies written by hand from the reference, as the real 8.4 server
gives them (not as the simulator does): single-user mode with the API node that holds it,
a data node's zeros while NO_CONTACT, a restart refused, ``start tls`` answered Failed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import RestartNode, StopNode
from ndbtop.actions.runner import run_action
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.tls import TlsOptions
from ndbtop.model.config import ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.model.summary import summarize
from ndbtop.sim.tlscerts import make_cluster_certs

Scripted = Callable[..., Awaitable[Any]]


def node(node_id: int, type_: str, status: str, *, version: int = 525315, group: int = 0,
         address: str = "", single: int = 0, dynamic: int = 0, connects: int = 0) -> bytes:
    v = version if status not in ("NO_CONTACT",) else 0
    fields = [("type", type_), ("status", status), ("version", v), ("mysql_version", v),
              ("startphase", 0), ("dynamic_id", dynamic), ("node_group", group),
              ("connect_count", connects), ("address", address), ("is_single_user", single)]
    return b"".join(f"node.{node_id}.{k}: {val}\n".encode() for k, val in fields)


def status_reply(*nodes: bytes) -> bytes:
    return b"node status\nnodes: %d\n" % len(nodes) + b"".join(nodes) + b"\n"


# Single-user mode (Qmgr answers is_single_user for the API node that holds it; data nodes
# are printed with is_single_user 0 by printNodeStatus).
SINGLE_USER = status_reply(
    node(2, "NDB", "SINGLE USER MODE", address="10.0.0.2", dynamic=1, connects=1),
    node(3, "NDB", "SINGLE USER MODE", address="10.0.0.3", dynamic=2, connects=1),
    node(1, "MGM", "CONNECTED", address="10.0.0.1"),
    node(4, "API", "CONNECTED", address="10.0.0.4", single=1),
    node(5, "API", "NO_CONTACT"),
)

# Node 3 NO_CONTACT: every field zero, node_group 0 although it is configured in group 1.
NODE_3_GONE = status_reply(
    node(2, "NDB", "STARTED", address="10.0.0.2", dynamic=1, connects=1),
    node(3, "NDB", "NO_CONTACT", group=0),
    node(4, "NDB", "STARTED", address="10.0.0.4", dynamic=2, group=0, connects=1),
    node(5, "NDB", "STARTED", address="10.0.0.5", dynamic=3, group=1, connects=1),
    node(1, "MGM", "CONNECTED", address="10.0.0.1"),
)
CONFIG = ClusterConfig(
    generation=9, name="c", no_of_replicas=2,
    nodes=tuple(NodeConfig(n, "NDB") for n in (2, 3, 4, 5)),
    data_nodes=(DataNodeConfig(2, 0), DataNodeConfig(3, 1), DataNodeConfig(4, 0),
                DataNodeConfig(5, 1)),
)


async def test_single_user_mode_is_read_and_restarts_refused_before_sending(
    scripted: Scripted, tmp_path: Path
) -> None:
    server = await scripted({"get status": SINGLE_USER})
    cs = parse_connectstring(server.connectstring)
    client = MgmClient(cs)
    try:
        s = summarize(await client.get_status())
    finally:
        await client.close()
    assert (s.single_user_mode, s.single_user_api) == (True, 4)
    audit = AuditLog(tmp_path / "audit.log")
    outcome = await run_action(RestartNode((2,), force=True), cs, audit)
    assert not outcome.ok
    assert outcome.reply.startswith(
        "not sent: 5063-Operation not allowed while nodes are starting or stopping. — the "
        "cluster is in single-user mode (API node 4 holds it)"
    )
    assert "restart node v2" not in server.commands
    assert [r["event"] for r in audit.records()] == ["refused"]


async def test_a_whole_cluster_consequence_is_not_sent_unconfirmed_and_the_target_named(
    scripted: Scripted, tmp_path: Path
) -> None:
    # Live, node 3 says group 0 (its fields are zeros); configured it is in group 1 with
    # node 5, and node 4 in group 0 with node 2: restarting 2 leaves group 0 with node 4.
    reply = (b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n")
    server = await scripted({"get status": NODE_3_GONE, "restart node v2": reply})
    cs = parse_connectstring(server.connectstring)
    audit = AuditLog(tmp_path / "audit.log")
    # Node 5 is the last started node of group 1 (node 3 is down): -f restarts everything,
    # which needs the phrase; without it nothing is sent.
    forced = await run_action(StopNode((5,), force=True), cs, audit, config=CONFIG)
    assert not forced.ok and forced.reply.startswith(
        "not sent: the whole cluster shuts down: every data node (2 4 5) stops; this was "
        "not confirmed with 'stop the whole cluster'"
    )
    assert "stop v2" not in server.commands
    ok = await run_action(RestartNode((2,)), cs, audit, config=CONFIG)
    assert ok.ok and ok.reply == "Ok, restarted: 1"
    sent = next(r for r in audit.records() if r["event"] == "sent")
    assert sent["generation"] == 9 and "told" not in sent


async def test_relaxed_client_goes_on_in_cleartext_when_start_tls_fails(
    scripted: Scripted, tmp_path: Path
) -> None:
    make_cluster_certs(tmp_path)
    server = await scripted({
        "start tls": b"start tls reply\nresult: Failed\n\n",
        "get status": SINGLE_USER,
    })
    cs = replace(parse_connectstring(server.connectstring), tls=TlsOptions(str(tmp_path)))
    client = MgmClient(cs)
    try:
        assert len(await client.get_status()) == 5
    finally:
        await client.close()
    assert server.commands[:3] == ["get version", "set clientversion", "start tls"]
    assert client.cleartext_reason == (
        "the management server cannot start TLS (start tls: Failed)"
    )
