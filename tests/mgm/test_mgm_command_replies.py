"""``ndbtop mgm`` against replies written by hand from the reference, as the real server
gives them: what SHOW, STATUS, REPORT and CLUSTERLOG INFO print, and the requests of the
cluster-log filter and single-user mode, byte for byte."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.actions.admin_commands import (
    TOGGLE,
    EnterSingleUser,
    ExitSingleUser,
    Report,
    SetLogFilter,
)
from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import wire_text
from ndbtop.actions.runner import run_action
from ndbtop.errors import MgmCommandError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.catalogue import Severity
from ndbtop.mgm.status import parse_status_reply
from ndbtop.mgm.wire import Reply, parse_replies
from ndbtop.model.config import ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.report.ndb_mgm import clusterlog_info_text, report_text, show_text, status_text

Scripted = Callable[..., Awaitable[Any]]
V8044 = (8 << 16) | 44


def node(node_id: int, type_: str, status: str, *, version: int = V8044, group: int = 0,
         address: str = "", dynamic: int = 0, phase: int = 0, single: int = 0) -> bytes:
    """One node's lines of ``get status`` (mgm-protocol.md §2.2), zeros when NO_CONTACT."""
    v = 0 if status == "NO_CONTACT" else version
    fields = [("type", type_), ("status", status), ("version", v), ("mysql_version", v),
              ("startphase", phase), ("dynamic_id", dynamic), ("node_group", group),
              ("connect_count", 1 if v else 0), ("address", address),
              ("is_single_user", single)]
    return b"".join(f"node.{node_id}.{k}: {val}\n".encode() for k, val in fields)


def status_bytes(*nodes: bytes) -> bytes:
    return b"node status\nnodes: %d\n" % len(nodes) + b"".join(nodes) + b"\n"


def reply_of(data: bytes) -> Reply:
    (reply,) = parse_replies(data)
    assert isinstance(reply, Reply)
    return reply


# The cluster of the MySQL 8.0 Reference Manual, §25.1 "NDB Cluster Overview" (General
# Information: "You can see this format used in the output of the SHOW command in the
# ndb_mgm client"): data nodes 1 and 2, management node 3, API nodes 4 and 5 (5 free).
MANUAL_STATUS = status_bytes(
    node(1, "NDB", "STARTED", address="10.0.10.6", dynamic=1),
    node(2, "NDB", "STARTED", address="10.0.10.8", dynamic=2),
    node(3, "MGM", "CONNECTED", address="10.0.10.2"),
    node(4, "API", "CONNECTED", address="10.0.10.10"),
    node(5, "API", "NO_CONTACT"),
)
MANUAL_CONFIG = ClusterConfig(
    generation=1, name="c", no_of_replicas=2,
    nodes=(NodeConfig(1, "NDB", "10.0.10.6"), NodeConfig(2, "NDB", "10.0.10.8"),
           NodeConfig(3, "MGM", "10.0.10.2"), NodeConfig(4, "API", ""), NodeConfig(5, "API", "")),
    data_nodes=(DataNodeConfig(1, 0), DataNodeConfig(2, 0)),
)
# The manual's output, verbatim (its rendering expands ndb_mgm's tabs to spaces).
MANUAL_SHOW = """\
Cluster Configuration
---------------------
[ndbd(NDB)]     2 node(s)
id=1    @10.0.10.6  (mysql-8.0.44 ndb-8.0.44, Nodegroup: 0, *)
id=2    @10.0.10.8  (mysql-8.0.44 ndb-8.0.44, Nodegroup: 0)

[ndb_mgmd(MGM)] 1 node(s)
id=3    @10.0.10.2  (mysql-8.0.44 ndb-8.0.44)

[mysqld(API)]   2 node(s)
id=4    @10.0.10.10  (mysql-8.0.44 ndb-8.0.44)
id=5 (not connected, accepting connect from any host)
"""


def test_show_prints_what_the_manual_shows() -> None:
    nodes = parse_status_reply(reply_of(MANUAL_STATUS))
    text = show_text(nodes, MANUAL_CONFIG)
    # print_nodes writes "]\t" and "id=N\t@": tab stops of 8 give the manual's spacing,
    # and every group ends with an empty line.
    assert "\t@10.0.10.6" in text and "[ndbd(NDB)]\t2 node(s)" in text
    assert text.expandtabs(8) == MANUAL_SHOW + "\n"


def test_show_of_a_starting_node_and_a_node_in_no_node_group() -> None:
    nodes = parse_status_reply(reply_of(status_bytes(
        node(2, "NDB", "STARTING", address="10.0.0.2", dynamic=3, phase=4),
        # RNIL (0xFFFFFF00) printed with %d: a node in no node group (CI print_nodes).
        node(3, "NDB", "STARTED", address="10.0.0.3", dynamic=2, group=-256),
        node(6, "NDB", "NO_CONTACT"),
    )))
    config = ClusterConfig(1, "c", 2, (NodeConfig(6, "NDB", "db6.example"),), ())
    lines = show_text(nodes, config).splitlines()
    # The master is the lowest non-zero dynamic id: node 3's 2.
    assert lines[3] == "id=2\t@10.0.0.2  (mysql-8.0.44 ndb-8.0.44, starting, Nodegroup: 0)"
    assert lines[4] == "id=3\t@10.0.0.3  (mysql-8.0.44 ndb-8.0.44, no nodegroup, *)"
    assert lines[5] == "id=6 (not connected, accepting connect from db6.example)"


# mgm-protocol.md §2.6 and its ALL STATUS lines.
EXAMPLE_2_6 = status_bytes(
    node(2, "NDB", "STARTED", version=525315, address="10.0.0.2", dynamic=1),
    node(3, "NDB", "STARTING", version=525315, address="10.0.0.3", dynamic=2, phase=4),
    node(1, "MGM", "CONNECTED", version=525315, address="10.0.0.1"),
    node(4, "API", "CONNECTED", version=525315, address="10.0.0.4"),
    node(5, "API", "NO_CONTACT"),
)


def test_all_status_and_node_status_print_as_ndb_mgm() -> None:
    nodes = parse_status_reply(reply_of(EXAMPLE_2_6))
    assert status_text(nodes, ()) == (
        "Node 2: started (mysql-8.4.3 ndb-8.4.3)\n"
        "Node 3: starting (Last completed phase 4) (mysql-8.4.3 ndb-8.4.3)\n\n", True)
    assert status_text(nodes, (4,)) == ("Node 4: connected (Version 8.4.3)\n\n", True)
    assert status_text(nodes, (5,)) == ("Node 5: not connected\n\n", True)
    assert status_text(nodes, (9,)) == ("9: Node not found\n\n", False)


# §9 vector 22 (memory) and the BackupStatus keys of §5.4.
MEMORY_REPLY = (
    b"dump events reply\nresult: Ok\nevents: 2\n\n"
    b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=32768\n"
    b"pages_used=64\npages_total=1280\nblock=249\n\n"
    b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=8192\n"
    b"pages_used=10\npages_total=400\nblock=248\n\n"
)
BACKUP_REPLY = (
    b"dump events reply\nresult: Ok\nevents: 1\n\n"
    b"log event reply\ntype=62\ntime=0\nsource_nodeid=3\nstarting_node=1\nbackup_id=7\n"
    b"n_bytes_lo=4096\nn_bytes_hi=1\nn_records_lo=10\nn_records_hi=0\nn_log_bytes_lo=52\n"
    b"n_log_bytes_hi=0\nn_log_records_lo=2\nn_log_records_hi=0\n\n"
)


async def test_reports_send_dump_events_and_print_as_ndb_mgm(scripted: Scripted) -> None:
    server = await scripted({"dump events": MEMORY_REPLY})
    client = MgmClient(parse_connectstring(server.connectstring))
    try:
        memory = Report(50)
        events = await client.dump_events(memory.event_type, None)
    finally:
        await client.close()
    assert wire_text(memory) == "dump events\ntype: 50\n\n"  # type: ignore[arg-type]
    assert server.requests[-1] == ("dump events", ("type: 50",))
    assert report_text(events) == (
        "Node 2: Data usage is 5%(64 32K pages of total 1280)\n"
        "Node 2: Index usage is 2%(10 8K pages of total 400)\n\n")
    server = await scripted({"dump events": BACKUP_REPLY})
    client = MgmClient(parse_connectstring(server.connectstring))
    try:
        backup = Report(62, (3,))
        events = await client.dump_events(backup.event_type, backup.node_ids)
    finally:
        await client.close()
    assert server.requests[-1] == ("dump events", ("type: 62", "nodes: 3"))
    assert backup.ndb_mgm() == "3 REPORT BACKUPSTATUS"
    assert report_text(events) == (
        "Node 3: Local backup status: backup 7 started from node 1\n"
        " #Records: 10 #LogRecords: 2\n Data: 4294971392 bytes Log: 52 bytes\n\n")


def test_clusterlog_info_prints_the_enabled_severities() -> None:
    # §9 vector 16's reply, read as the client reads it.
    info = dict(reply_of(b"clusterlog\nenabled: 1\ndebug: 0\ninfo: 1\nwarning: 1\nerror: 1\n"
                         b"critical: 1\nalert: 1\n\n").fields)
    levels = {k: int(v) for k, v in info.items()}
    assert clusterlog_info_text(levels) == (
        "Severities enabled: INFO WARNING ERROR CRITICAL ALERT \n")
    assert clusterlog_info_text({**levels, "enabled": 0}) == "Cluster logging is disabled.\n"


@pytest.mark.parametrize(
    ("action", "text", "wire"),
    [
        # §9 vector 16: set logfilter, level 1 (DEBUG), enable 1.
        (SetLogFilter(1, (Severity.DEBUG,)), "CLUSTERLOG ON DEBUG",
         "set logfilter\nlevel: 1\nenable: 1\n\n"),
        # §4.3: ON/OFF alone is level 0; toggle is -1, sent as the unsigned 4294967295.
        (SetLogFilter(0), "CLUSTERLOG OFF", "set logfilter\nlevel: 0\nenable: 0\n\n"),
        (SetLogFilter(TOGGLE, (Severity.INFO, Severity.ALERT)), "CLUSTERLOG TOGGLE INFO ALERT",
         "set logfilter\nlevel: 2\nenable: 4294967295\n\n"
         "set logfilter\nlevel: 6\nenable: 4294967295\n\n"),
        # §3.1: nodeId with a capital I; exit single user has no argument.
        (EnterSingleUser(5), "ENTER SINGLE USER MODE 5", "enter single user\nnodeId: 5\n\n"),
        (ExitSingleUser(), "EXIT SINGLE USER MODE", "exit single user\n\n"),
    ],
)
def test_new_requests_are_the_references(action: Any, text: str, wire: str) -> None:
    assert action.ndb_mgm() == text
    assert wire_text(action) == wire


async def test_filter_and_single_user_against_the_servers_replies(
    scripted: Scripted, tmp_path: Path
) -> None:
    server = await scripted({
        "get status": EXAMPLE_2_6.replace(b"STARTING", b"STARTED"),
        "set logfilter": b"set logfilter reply\nresult: 0\n\n",
        "enter single user": b"enter single user reply\nresult: Ok\n\n",
        "exit single user": b"exit single user reply\nresult: Ok\n\n",
    })
    cs = parse_connectstring(server.connectstring)
    audit = AuditLog(tmp_path / "audit.log")
    off = await run_action(SetLogFilter(0), cs, audit)
    assert off.ok and off.reply == "ON disabled"
    assert ("set logfilter", ("level: 0", "enable: 0")) in server.requests
    entered = await run_action(EnterSingleUser(4), cs, audit, confirmed="4")
    assert entered.ok and "API node 4 only" in entered.reply
    assert ("enter single user", ("nodeId: 4",)) in server.requests
    left = await run_action(ExitSingleUser(), cs, audit)
    assert left.ok and ("exit single user", ()) in server.requests
    sent = [r for r in audit.records() if r["event"] == "sent"]
    assert [r["command"] for r in sent] == [
        "CLUSTERLOG OFF", "ENTER SINGLE USER MODE 4", "EXIT SINGLE USER MODE"]
    assert sent[1]["confirmed_with"] == "4"
    assert any("every API node but 4 loses access" in w for w in sent[1]["told"])  # type: ignore[union-attr]


async def test_enter_single_user_refused_by_the_server_is_reported_verbatim(
    scripted: Scripted,
) -> None:
    # §3.1: single-user commands print result: <ndb_error_string> without the code.
    refusal = b"enter single user reply\nresult: The specified node is not an API node.: " \
              b"Permanent error: Application error\n\n"
    server = await scripted({"enter single user": refusal})
    client = MgmClient(parse_connectstring(server.connectstring))
    try:
        with pytest.raises(MgmCommandError) as caught:
            await client.enter_single_user(2)
    finally:
        await client.close()
    assert caught.value.result.startswith("The specified node is not an API node.")


async def test_a_logfilter_result_that_is_not_a_state_is_an_error(scripted: Scripted) -> None:
    server = await scripted({"set logfilter": b"set logfilter reply\nresult: Error\n\n"})
    client = MgmClient(parse_connectstring(server.connectstring))
    try:
        with pytest.raises(MgmCommandError):
            await client.set_logfilter(0, 1)
    finally:
        await client.close()
