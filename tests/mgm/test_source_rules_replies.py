"""The client against replies written by hand as the real server gives them, where a read
of the server's source corrected a rule (server-rules.md §6): ``restart all``'s code,
``start backup`` with no started data node, and the commands each version knows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from config_vectors import TWO_GROUPS, V1_TWO_NODES, config_reply

from ndbtop.actions.backup_commands import StartBackup
from ndbtop.actions.guards import assess
from ndbtop.errors import MgmCommandError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.replies import control_result
from ndbtop.mgm.tls import TlsOptions
from ndbtop.mgm.wire import Reply, parse_replies
from ndbtop.model.config_decode import config_from_blob
from ndbtop.sim.tlscerts import make_cluster_certs

Scripted = Callable[..., Awaitable[Any]]
MakeClient = Callable[..., MgmClient]

# mgm-protocol.md §2.2 layout; both data nodes NOT_STARTED (connected, not started).
NONE_STARTED = b"".join([
    b"node status\nnodes: 3\n",
    *(f"node.{n}.type: NDB\nnode.{n}.status: NOT_STARTED\nnode.{n}.version: 525315\n"
      f"node.{n}.mysql_version: 525315\nnode.{n}.startphase: 0\nnode.{n}.dynamic_id: 0\n"
      f"node.{n}.node_group: 0\nnode.{n}.connect_count: 1\nnode.{n}.address: 10.0.0.{n}\n"
      f"node.{n}.is_single_user: 0\n".encode() for n in (2, 3)),
    b"node.1.type: MGM\nnode.1.status: CONNECTED\nnode.1.version: 525315\n"
    b"node.1.mysql_version: 525315\nnode.1.startphase: 0\nnode.1.dynamic_id: 0\n"
    b"node.1.node_group: 0\nnode.1.connect_count: 0\nnode.1.address: 10.0.0.1\n"
    b"node.1.is_single_user: 0\n\n",
])
# MgmtSrvr::startBackup has no 5030 check: the send fails, 5005 (server-rules.md §6),
# printed as ndb_error_string without the code (mgm-protocol.md §1.5).
SEND_FAILED = (b"start backup reply\nresult: Send to process or receive failed.: Permanent "
               b"error: Application error\n\n")


async def test_start_backup_with_no_started_data_node_is_refused_naming_5005(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"get status": NONE_STARTED, "start backup": SEND_FAILED})
    client = make_client(server.connectstring)
    verdict = assess(StartBackup(), await client.get_status())
    assert verdict.blockers == (
        "no data node is started: the management server has no node to send the request to "
        "and answers 5005 Send to process or receive failed.",
    )
    # Sent anyway (as ndb_mgm would), the server's words come back verbatim.
    with pytest.raises(MgmCommandError) as info:
        await client.start_backup()
    assert info.value.result == (
        "Send to process or receive failed.: Permanent error: Application error"
    )


def one_reply(data: bytes) -> Reply:
    replies = parse_replies(data)
    assert len(replies) == 1 and isinstance(replies[0], Reply)
    return replies[0]


def test_a_restart_all_reply_carries_the_code_and_is_read_as_restart_is() -> None:
    """``MgmApiSession::restartAll`` prints ``result: <code>-<text>`` like ``restart``
    (server-rules.md §6; mgm-protocol.md §3.1: ``restart reply`` / ``result:`` /
    ``restarted: %d``, no ``disconnect``)."""
    reply = one_reply(
        b"restart reply\nresult: 5024-Time-out due to node shutdown not starting in time: "
        b"Temporary error: Timeout expired\nrestarted: 4\n\n"
    )
    with pytest.raises(MgmCommandError) as info:
        control_result(reply, "restart reply", "restart", "restarted", [2, 3, 4, 5])
    assert info.value.result.startswith("5024-Time-out due to node shutdown not starting")
    ok = control_result(one_reply(b"restart reply\nresult: Ok\nrestarted: 4\n\n"),
                        "restart reply", "restart", "restarted", [2, 3, 4, 5])
    assert (ok.count, ok.disconnect) == (4, False)


def version_reply(major: int, minor: int, build: int) -> bytes:
    """``get version``'s reply (mgm-protocol.md §9 vector 1) for NDB ``major.minor.build``."""
    text = f"{major}.{minor}.{build}"
    mysql = "5.7.40" if major < 8 else text
    my = [int(p) for p in mysql.split(".")]
    return (f"version\nid: {(major << 16) | (minor << 8) | build}\nmajor: {major}\n"
            f"minor: {minor}\nbuild: {build}\nstring: mysql-{mysql} ndb-{text}\n"
            f"mysql_major: {my[0]}\nmysql_minor: {my[1]}\nmysql_build: {my[2]}\n\n").encode()


UNKNOWN_V2 = b"result: Unknown command, 'get config_v2'\n\n"


@pytest.mark.parametrize(
    ("version", "command", "handshake"),
    [
        ((8, 0, 17), "get config", ["get version"]),
        ((8, 0, 18), "get config_v2", ["get version"]),
        ((8, 0, 20), "get config_v2", ["get version", "set clientversion"]),
        ((8, 2, 0), "get config_v2", ["get version", "set clientversion"]),
        ((8, 3, 0), "get config_v2", ["get version", "set clientversion", "start tls"]),
    ],
)
async def test_the_commands_sent_to_each_version(
    scripted: Scripted, tmp_path: Path, version: tuple[int, int, int], command: str,
    handshake: list[str],
) -> None:
    """``get config_v2`` from 8.0.18 (``NDB_USE_CONFIG_VERSION_V2_80``), ``get config``
    before; ``set clientversion`` from 8.0.20; ``start tls`` from 8.3.0 only, though a
    certificate is at hand (server-rules.md §6; mgm-protocol.md §1.7, §7.4, §8.2). An older
    server would answer ``Unknown command``, here scripted as it would be."""
    make_cluster_certs(tmp_path)
    v2 = command == "get config_v2"
    server = await scripted({
        "get version": version_reply(*version),
        "start tls": b"start tls reply\nresult: Failed\n\n",
        "get config_v2": config_reply(TWO_GROUPS) if v2 else UNKNOWN_V2,
        "get config": config_reply(V1_TWO_NODES, old_form=version < (8, 0, 0)),
    })
    cs = replace(parse_connectstring(server.connectstring), tls=TlsOptions(str(tmp_path)))
    client = MgmClient(cs, timeout=3.0)
    try:
        config = config_from_blob(await client.get_config_blob())
    finally:
        await client.close()
    assert config.generation == (7 if v2 else 3)
    assert server.commands == [*handshake, command]
