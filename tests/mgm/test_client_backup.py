"""``start backup`` and ``abort backup`` against replies written by hand from Services.cpp
(``MgmApiSession::startBackup``/``abortBackup``) and the arguments mgmapi sends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.collect.backups import BackupReporter
from ndbtop.collect.hub import Hub
from ndbtop.errors import MgmCommandError, MgmTimeout
from ndbtop.mgm.client import MgmClient, backup_request_args
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock

Scripted = Callable[..., Awaitable[Any]]
MakeClient = Callable[..., MgmClient]


async def test_start_backup_wait_completed_reads_the_id(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"start backup": b"start backup reply\nresult: Ok\nid: 12\n\n"})
    client = make_client(server.connectstring)
    assert await client.start_backup() == 12
    assert server.requests[-1] == ("start backup", ("completed: 2", "backuppoint: 0"))


async def test_start_backup_with_id_snapshotstart_and_wait_started(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"start backup": b"start backup reply\nresult: Ok\nid: 100\n\n"})
    client = make_client(server.connectstring)
    assert await client.start_backup(wait=1, backup_id=100, snapshot_start=True) == 100
    assert server.requests[-1] == (
        "start backup", ("completed: 1", "backupid: 100", "backuppoint: 1")
    )


async def test_start_backup_nowait_has_no_id(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted({"start backup": b"start backup reply\nresult: Ok\n\n"})
    assert await make_client(server.connectstring).start_backup(wait=0) is None


@pytest.mark.parametrize(
    "result",
    [
        "A backup is already running: Permanent error: Application error",
        # No started data node: MgmtSrvr::startBackup has no 5030 check (server-rules.md §6).
        "Send to process or receive failed.: Permanent error: Application error",
        "Backup aborted due to node failure: Permanent error: Internal error",
    ],
)
async def test_start_backup_refusal_is_verbatim(
    scripted: Scripted, make_client: MakeClient, result: str
) -> None:
    server = await scripted({"start backup": f"start backup reply\nresult: {result}\n\n".encode()})
    with pytest.raises(MgmCommandError) as info:
        await make_client(server.connectstring).start_backup()
    assert info.value.result == result


async def test_abort_backup(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted({"abort backup": b"abort backup reply\nresult: Ok\n\n"})
    client = make_client(server.connectstring)
    await client.abort_backup(7)
    assert server.requests[-1] == ("abort backup", ("id: 7",))
    refused = await scripted(
        {
            "abort backup": b"abort backup reply\nresult: No contact with database nodes: "
            b"Permanent error: Application error\n\n"
        }
    )
    with pytest.raises(MgmCommandError, match="No contact with database nodes"):
        await make_client(refused.connectstring).abort_backup(7)


async def test_start_backup_is_not_retried_on_a_stale_session(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"check connection": b"check connection reply\nresult: Ok\n\n"})
    client = make_client(server.connectstring, timeout=0.5)
    await client.check_connection()
    with pytest.raises(MgmTimeout):
        await client.abort_backup(3)
    assert server.commands.count("abort backup") == 1


def test_wait_must_be_a_completed_value() -> None:
    with pytest.raises(ValueError):
        backup_request_args(3, None, False)


async def test_a_server_without_dump_events_keeps_the_status_polls_going(
    scripted: Scripted, make_client: MakeClient
) -> None:
    status = (
        b"node status\nnodes: 1\nnode.2.type: NDB\nnode.2.status: STARTED\nnode.2.version: "
        b"525315\nnode.2.mysql_version: 525315\nnode.2.startphase: 0\nnode.2.dynamic_id: 1\n"
        b"node.2.node_group: 0\nnode.2.connect_count: 1\nnode.2.address: 10.0.0.2\n\n"
    )
    server = await scripted(
        {"dump events": b"result: Unknown command, 'dump events'\n\n", "get status": status}
    )
    client = make_client(server.connectstring)
    reports: list[object] = []
    reporter = BackupReporter(10.0, lambda: True, reports.append, lambda: 0.0)
    assert await reporter.poll(client) == reporter.error
    assert reporter.unsupported and reports == []
    assert "Unknown command" in (reporter.error or "")
    assert [n.node_id for n in await client.get_status()] == [2]
    await reporter.poll(client)
    assert server.commands.count("dump events") == 1


STATUS_ONE_NODE = (
    b"node status\nnodes: 1\nnode.2.type: NDB\nnode.2.status: STARTED\nnode.2.version: "
    b"525315\nnode.2.mysql_version: 525315\nnode.2.startphase: 0\nnode.2.dynamic_id: 1\n"
    b"node.2.node_group: 0\nnode.2.connect_count: 1\nnode.2.address: 10.0.0.2\n\n"
)
LEVELS = (
    b"get cluster loglevel\nstartup: 7\nshutdown: 7\nstatistics: 7\ncheckpoint: 7\n"
    b"noderestart: 7\nconnection: 8\ninfo: 7\nwarning: 7\nerror: 15\ncongestion: 7\n"
    b"debug: 7\nbackup: 15\nschema: 7\n\n"
)


async def test_a_report_the_server_holds_back_does_not_fail_the_status_poll(
    scripted: Scripted,
) -> None:
    # A data node that never reports holds back the answer to dump events.
    server = await scripted({"get status": STATUS_ONE_NODE, "get cluster loglevel": LEVELS})
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 0.25, events=False)
    try:
        reading = await hub.mgm.poll_once()
        assert [n.node_id for n in reading.nodes] == [2] and reading.address
        parts = dict(reading.unavailable)
        assert "no reply" in parts["backup status reports"]
        again = await hub.mgm.poll_once()  # no second wait: reports pause for a minute
        assert dict(again.unavailable) == parts
        assert server.commands.count("dump events") == 1
    finally:
        await hub.stop()
