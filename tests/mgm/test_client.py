"""The asyncio client: typed results from the reference's exact reply bytes, every error
path (refused, unresolvable, hung, closing and garbling servers, error replies),
failover between management servers, and which calls are retried."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.errors import (
    MgmAuthError,
    MgmCommandError,
    MgmConnectError,
    MgmDisconnected,
    MgmLineTooLong,
    MgmParserError,
    MgmProtocolError,
    MgmTimeout,
)
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.client import CLUSTER_LOGLEVEL_NAMES, MgmClient, NodeControlResult, ServerVersion
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.wire import RawEvent
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.runtime import Simulator

MakeClient = Callable[..., MgmClient]
StartSim = Callable[..., Awaitable[Simulator]]
Scripted = Callable[..., Awaitable[Any]]

V = 525315
STATUS_2_6 = (
    b"node status\nnodes: 2\n"
    b"node.2.type: NDB\nnode.2.status: STARTED\nnode.2.version: 525315\n"
    b"node.2.mysql_version: 525315\nnode.2.startphase: 0\nnode.2.dynamic_id: 1\n"
    b"node.2.node_group: 0\nnode.2.connect_count: 1\nnode.2.address: 10.0.0.2\n"
    b"node.2.is_single_user: 0\n"
    b"node.3.type: NDB\nnode.3.status: STARTING\nnode.3.version: 525315\n"
    b"node.3.mysql_version: 525315\nnode.3.startphase: 4\nnode.3.dynamic_id: 2\n"
    b"node.3.node_group: 0\nnode.3.connect_count: 1\nnode.3.address: 10.0.0.3\n"
    b"node.3.is_single_user: 0\n\n"
)
CRASH = "Node shutdown would cause system crash: Permanent error: Application error"
BUSY = (
    "Operation not allowed while nodes are starting or stopping.: Permanent error: "
    "Application error"
)


def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def two_mgmd_cluster() -> SimCluster:
    """Management servers 1 and 2, data nodes 3 and 4 started in node group 0."""
    config = simple_config(
        "two-mgmd",
        ((3, "10.0.0.3", 0), (4, "10.0.0.4", 0)),
        mgm=((1, "10.0.0.1"), (2, "10.0.0.2")),
        api=((5, None), (6, None)),
        max_exec_threads=4,
        connected_api=(5,),
    )
    cluster = SimCluster(config)
    cluster.boot_started()
    return cluster


# Typed results from the documented reply bytes


async def test_handshake_announces_the_client_version(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({})
    client = make_client(server.connectstring)
    address = await client.connect()
    assert address.port == server.port
    assert client.address == address
    assert server.requests == [
        ("get version", ()),
        ("set clientversion", ("major: 8", "minor: 4", "build: 3")),
    ]
    assert client.server_version == ServerVersion(V, 8, 4, 3, "mysql-8.4.3 ndb-8.4.3")
    assert client.server_version.text == "8.4.3"


async def test_no_clientversion_for_servers_before_8_0_20(
    scripted: Scripted, make_client: MakeClient
) -> None:
    old = b"version\nid: 460294\nmajor: 7\nminor: 6\nbuild: 6\nstring: ndb-7.6.6\n\n"
    server = await scripted(
        {"get version": old, "check connection": b"check connection reply\nresult: Ok\n\n"}
    )
    client = make_client(server.connectstring)
    await client.check_connection()
    assert server.commands == ["get version", "check connection"]
    assert client.server_version == ServerVersion(460294, 7, 6, 6, "ndb-7.6.6")


async def test_identity_calls(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted(
        {
            "check connection": b"check connection reply\nresult: Ok\n\n",
            "get mgmd nodeid": b"get mgmd nodeid reply\nnodeid:1\n\n",
        }
    )
    client = make_client(server.connectstring)
    await client.check_connection()
    assert await client.get_mgmd_nodeid() == 1
    assert (await client.get_version()).id == V


async def test_check_connection_refuses_anything_but_ok(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"check connection": b"check connection reply\nresult: No\n\n"})
    with pytest.raises(MgmCommandError) as info:
        await make_client(server.connectstring).check_connection()
    assert info.value.result == "No"


async def test_get_status_sends_types_and_decodes_every_field(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"get status": STATUS_2_6})
    client = make_client(server.connectstring)
    nodes = await client.get_status(["NDB"])
    assert server.requests[-1] == ("get status", ("types: NDB",))
    assert [(n.node_id, n.status, n.start_phase, n.dynamic_id, n.address) for n in nodes] == [
        (2, "STARTED", 0, 1, "10.0.0.2"),
        (3, "STARTING", 4, 2, "10.0.0.3"),
    ]
    assert all(n.version == V and n.node_group == 0 and n.is_single_user is False for n in nodes)
    await client.get_status()
    assert server.requests[-1] == ("get status", ())


async def test_get_status_keeps_the_nodes_while_the_reply_is_the_same(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"get status": STATUS_2_6})
    client = make_client(server.connectstring)
    first = await client.get_status()
    assert await client.get_status() is first
    server.replies["get status"] = STATUS_2_6.replace(
        b"node.3.startphase: 4", b"node.3.startphase: 5"
    )
    changed = await client.get_status()
    assert [(n.node_id, n.start_phase) for n in changed] == [(2, 0), (3, 5)]
    assert changed[0] is first[0]
    # Another set of types is another question: its answer is decoded on its own.
    ndb = await client.get_status(["NDB"])
    assert ndb == changed and ndb is not changed
    assert server.commands.count("get status") == 4


async def test_restart_sends_vector_11_and_reads_its_reply(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted(
        {"restart node v2": b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n"}
    )
    result = await make_client(server.connectstring).restart_nodes([3])
    assert server.requests[-1] == (
        "restart node v2",
        ("node: 3", "abort: 0", "initialstart: 0", "nostart: 0", "force: 0"),
    )
    assert result == NodeControlResult("restart", (3,), "Ok", 1, False)


async def test_restart_flags_and_several_nodes(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted(
        {"restart node v2": b"restart reply\nresult: Ok\nrestarted: 2\ndisconnect: 1\n\n"}
    )
    client = make_client(server.connectstring)
    result = await client.restart_nodes([2, 3], initial=True, nostart=True, abort=True, force=True)
    assert server.requests[-1][1] == (
        "node: 2 3",
        "abort: 1",
        "initialstart: 1",
        "nostart: 1",
        "force: 1",
    )
    assert (result.count, result.disconnect, result.node_ids) == (2, True, (2, 3))


@pytest.mark.parametrize(
    ("reply", "code", "text"),
    [
        (
            b"restart reply\nresult: 5028-" + CRASH.encode() + b"\nrestarted: 0\ndisconnect: 0\n\n",
            5028,
            "5028-" + CRASH,
        ),
        (
            b"restart reply\nresult: 5063-" + BUSY.encode() + b"\nrestarted: 0\ndisconnect: 0\n\n",
            5063,
            "5063-" + BUSY,
        ),
    ],
)
async def test_restart_refusals_carry_code_text_and_nodes(
    scripted: Scripted, make_client: MakeClient, reply: bytes, code: int, text: str
) -> None:
    server = await scripted({"restart node v2": reply})
    with pytest.raises(MgmCommandError) as info:
        await make_client(server.connectstring).restart_nodes([3])
    assert (info.value.command, info.value.result, info.value.code) == ("restart", text, code)
    assert info.value.node_ids == (3,)
    assert str(code) in str(info.value)


async def test_stop_and_start_replies(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted(
        {
            "stop v2": b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n",
            "start": b"start reply\nresult: Ok\n\n",
        }
    )
    client = make_client(server.connectstring)
    assert await client.stop_nodes([2], abort=True) == NodeControlResult(
        "stop", (2,), "Ok", 1, False
    )
    assert server.requests[-1] == ("stop v2", ("node: 2", "abort: 1", "force: 0"))
    assert await client.start_node(2) == NodeControlResult("start", (2,), "Ok", 1, False)
    assert server.requests[-1] == ("start", ("node: 2",))


async def test_stop_refusal_is_the_verbatim_text(
    scripted: Scripted, make_client: MakeClient
) -> None:
    reply = b"stop reply\nresult: " + CRASH.encode() + b"\nstopped: 0\ndisconnect: 0\n\n"
    server = await scripted({"stop v2": reply})
    with pytest.raises(MgmCommandError) as info:
        await make_client(server.connectstring).stop_nodes([3])
    assert (info.value.command, info.value.result, info.value.node_ids) == ("stop", CRASH, (3,))
    # Services.cpp MgmApiSession::stop prints "result: %s" with get_error_text(result): no
    # "5028-" in front, so the code is the one whose text the reply is.
    assert info.value.code == 5028


async def test_stop_and_restart_replies_each_as_the_server_writes_them(
    scripted: Scripted, make_client: MakeClient
) -> None:
    # MgmApiSession::restart: "result: %d-%s"; MgmApiSession::stop: "result: %s".
    refused = "Operation not allowed while nodes are starting or stopping.: Permanent error: " \
              "Application error"
    server = await scripted({
        "restart node v2": f"restart reply\nresult: 5063-{refused}\nrestarted: 0\n"
                           "disconnect: 0\n\n".encode(),
        "stop v2": f"stop reply\nresult: {refused}\nstopped: 0\ndisconnect: 0\n\n".encode(),
    })
    client = make_client(server.connectstring)
    with pytest.raises(MgmCommandError) as restart:
        await client.restart_nodes([3])
    with pytest.raises(MgmCommandError) as stop:
        await client.stop_nodes([3])
    assert (restart.value.code, restart.value.result) == (5063, f"5063-{refused}")
    assert (stop.value.code, stop.value.result) == (5063, refused)


async def test_log_levels(scripted: Scripted, make_client: MakeClient) -> None:
    levels = b"".join(
        f"{name}: {15 if name == 'error' else 7}\n".encode() for name in CLUSTER_LOGLEVEL_NAMES
    )
    server = await scripted(
        {
            "get cluster loglevel": b"get cluster loglevel\n" + levels + b"\n",
            "get info clusterlog": (
                b"clusterlog\nenabled: 1\ndebug: 0\ninfo: 1\nwarning: 1\nerror: 1\n"
                b"critical: 1\nalert: 1\n\n"
            ),
            "set cluster loglevel": b"set cluster loglevel reply\nresult: Ok\n\n",
        }
    )
    client = make_client(server.connectstring)
    got = await client.get_cluster_loglevel()
    assert list(got) == list(CLUSTER_LOGLEVEL_NAMES)
    assert got["error"] == 15 and got["schema"] == 7
    info = await client.get_info_clusterlog()
    assert info == {
        "enabled": 1,
        "debug": 0,
        "info": 1,
        "warning": 1,
        "error": 1,
        "critical": 1,
        "alert": 1,
    }
    await client.set_cluster_loglevel(2, 252, 15)
    assert server.requests[-1] == (
        "set cluster loglevel",
        ("node: 2", "category: 252", "level: 15"),
    )


async def test_set_cluster_loglevel_refusal(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted(
        {"set cluster loglevel": b"set cluster loglevel reply\nresult: Invalid loglevel 16\n\n"}
    )
    with pytest.raises(MgmCommandError) as info:
        await make_client(server.connectstring).set_cluster_loglevel(2, 252, 16)
    assert (info.value.result, info.value.node_ids, info.value.code) == (
        "Invalid loglevel 16",
        (2,),
        None,
    )


async def test_dump_events_reads_the_announced_blocks(
    scripted: Scripted, make_client: MakeClient
) -> None:
    block = (
        b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=32768\n"
        b"pages_used=64\npages_total=1280\nblock=249\n\n"
    )
    server = await scripted(
        {
            "dump events": b"dump events reply\nresult: Ok\nevents: 2\n\n"
            + block
            + block.replace(b"=249", b"=248")
        }
    )
    client = make_client(server.connectstring)
    events = await client.dump_events(50, [2])
    assert server.requests[-1] == ("dump events", ("type: 50", "nodes: 2"))
    assert [(e.type, e.source_nodeid, dict(e.body)["block"]) for e in events] == [
        (50, 2, "249"),
        (50, 2, "248"),
    ]
    assert all(isinstance(e, RawEvent) for e in events)


async def test_dump_events_refusal(scripted: Scripted, make_client: MakeClient) -> None:
    server = await scripted(
        {"dump events": b"dump events reply\nresult: ndb_logevent_type 13 not supported\n\n"}
    )
    with pytest.raises(MgmCommandError, match="ndb_logevent_type 13 not supported"):
        await make_client(server.connectstring).dump_events(13)


@pytest.mark.parametrize("ids", [[], [0], [256], [2, -1]])
async def test_node_ids_are_checked_before_sending(make_client: MakeClient, ids: list[int]) -> None:
    client = make_client(f"127.0.0.1:{free_port()}")
    with pytest.raises(ValueError):
        await client.restart_nodes(ids)
    with pytest.raises(ValueError):
        await client.stop_nodes(ids)


# Error paths


async def test_connection_refused(make_client: MakeClient) -> None:
    port = free_port()
    with pytest.raises(MgmConnectError, match=f"127.0.0.1:{port}: connection refused"):
        await make_client(f"127.0.0.1:{port}").get_status()


@pytest.mark.parametrize("host", ["nosuchhost.invalid", "a" * 64])
async def test_unresolvable_host(make_client: MakeClient, host: str) -> None:
    with pytest.raises(MgmConnectError, match="cannot resolve host"):
        await make_client(f"{host}:1186").get_status()


async def test_hung_simulated_server_times_out_within_the_timeout(
    sim: Simulator, make_client: MakeClient
) -> None:
    sim.mgmds[1].stall = True
    client = make_client(sim.connectstring, timeout=0.3)
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(MgmTimeout):
        await client.get_status()
    assert 0.25 <= loop.time() - began < 1.0
    assert sim.mgmds[1].requests == 1
    assert client.address is None


async def test_server_that_never_says_anything_times_out(make_client: MakeClient) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        client = make_client(f"127.0.0.1:{port}", timeout=0.3)
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(MgmTimeout, match=r"no reply within 0\.3 s"):
            await client.check_connection()
        assert loop.time() - began < 1.0
    finally:
        server.close()


async def test_server_closing_mid_reply_is_a_disconnect(
    scripted: Scripted, make_client: MakeClient
) -> None:
    async def half(writer: asyncio.StreamWriter) -> None:
        writer.write(b"node status\nnodes: 2\nnode.2.ty")
        await writer.drain()
        writer.close()

    server = await scripted({"get status": half})
    client = make_client(server.connectstring)
    with pytest.raises(MgmDisconnected, match="closed by the server"):
        await client.get_status()
    assert client.address is None


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"\xff\xfe garbage\x00\n\n", MgmProtocolError),
        (b"node status\nthis line has no separator\n\n", MgmProtocolError),
        (b"result: what is this\n\n", MgmProtocolError),
        (b"version\nid: 1\n\n", MgmProtocolError),
        (b"node status\n" + b"x" * 600 + b"\n\n", MgmLineTooLong),
        (b"x" * 5000, MgmLineTooLong),
    ],
)
async def test_garbage_replies_are_protocol_errors(
    scripted: Scripted, make_client: MakeClient, reply: bytes, error: type[Exception]
) -> None:
    server = await scripted({"get status": reply})
    with pytest.raises(error):
        await make_client(server.connectstring).get_status()


async def test_parser_error_closes_the_session_and_the_next_call_reconnects(
    scripted: Scripted, make_client: MakeClient
) -> None:
    replies = iter([b"result: Unknown command, 'get status'\n\n", STATUS_2_6])

    async def answer(writer: asyncio.StreamWriter) -> None:
        writer.write(next(replies))
        await writer.drain()

    server = await scripted({"get status": answer})
    client = make_client(server.connectstring)
    with pytest.raises(MgmParserError) as info:
        await client.get_status()
    assert (info.value.message, info.value.token) == ("Unknown command", "get status")
    assert client.address is None
    assert len(await client.get_status()) == 2
    assert server.commands.count("get version") == 2


async def test_authorization_failure_keeps_the_session(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted(
        {
            "get status": b"Authorization failed\nError: Requires TLS\n\n",
            "check connection": b"check connection reply\nresult: Ok\n\n",
        }
    )
    client = make_client(server.connectstring)
    with pytest.raises(MgmAuthError, match="requires TLS") as info:
        await client.get_status()
    assert info.value.reason == "Requires TLS"
    await client.check_connection()
    assert server.commands.count("get version") == 1


# Error replies of the simulated server, verbatim


async def test_simulated_refusals_reach_the_caller(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    client = make_client(sim.connectstring)
    # Both nodes of the group with -a: the master's node-group check refuses (5028);
    # without -a several nodes are refused before it (5031, server-rules.md §6).
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([2, 3], abort=True)
    assert (info.value.code, info.value.result, info.value.node_ids) == (
        5028,
        "5028-" + CRASH,
        (2, 3),
    )
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([2, 3])
    assert (info.value.code, info.value.result) == (5031, "5031-" + ec.ndb_error_string(5031))
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([99])
    assert info.value.code == ec.WRONG_PROCESS_TYPE
    assert info.value.result == "5002-" + ec.ndb_error_string(5002)
    with pytest.raises(MgmCommandError) as info:
        await client.start_node(4)
    assert info.value.result == ec.ndb_error_string(ec.WRONG_PROCESS_TYPE)
    assert info.value.node_ids == (4,)


async def test_restart_refused_with_5063_while_another_node_starts(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any, until: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    client = make_client(sim.connectstring)
    pending = asyncio.create_task(client.restart_nodes([2]))
    await until(lambda: sim.cluster.data_nodes[2].state == "SHUTTING_DOWN", what="shutdown")
    manual_time.advance(3.0)
    assert (await asyncio.wait_for(pending, 3.0)).count == 1
    manual_time.advance(1.5)
    sim.sync()
    assert sim.cluster.data_nodes[2].state == "STARTING"
    with pytest.raises(MgmCommandError) as info:
        await client.restart_nodes([3])
    assert (info.value.code, info.value.result, info.value.node_ids) == (5063, "5063-" + BUSY, (3,))


async def test_start_of_a_node_without_contact_is_5000(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim("initial-start", time=manual_time)
    client = make_client(sim.connectstring)
    with pytest.raises(MgmCommandError) as info:
        await client.start_node(10)
    assert (
        info.value.result
        == "No contact with the process (dead ?).: Permanent error: Application error"
    )
    assert info.value.node_ids == (10,)
    with pytest.raises(MgmCommandError) as info:
        await client.stop_nodes([11])
    assert info.value.result == ec.ndb_error_string(ec.NO_CONTACT_WITH_PROCESS)


async def test_server_requiring_tls(start_sim: StartSim, make_client: MakeClient) -> None:
    sim = await start_sim("threads", require_tls=True)
    client = make_client(sim.connectstring)
    await client.check_connection()
    assert await client.get_mgmd_nodeid() == 1
    with pytest.raises(MgmAuthError) as info:
        await client.get_status()
    assert "requires TLS" in str(info.value)
    listener = EventListener(
        client.address or parse_connectstring(sim.connectstring).addresses[0], {250: 7}
    )
    with pytest.raises(MgmAuthError):
        await listener.open()


@pytest.mark.parametrize(
    ("levels", "message"),
    [({300: 7}, "Unknown category: >300<"), ({252: 16}, "Invalid level: >16<")],
)
async def test_refused_listen_filter(sim: Simulator, levels: dict[int, int], message: str) -> None:
    address = parse_connectstring(sim.connectstring).addresses[0]
    listener = EventListener(address, levels)
    with pytest.raises(MgmCommandError) as info:
        await listener.open()
    assert (info.value.command, info.value.result) == ("listen event", message)


async def test_listener_stream_and_its_end(sim: Simulator, client: MgmClient, until: Any) -> None:
    address = parse_connectstring(sim.connectstring).addresses[0]
    listener = EventListener(address, {250: 1}, idle_timeout=2.0)
    await listener.open()
    try:
        sim.cluster.emit(18, 3)
        item = await asyncio.wait_for(listener.items().__anext__(), 3.0)
        assert item == RawEvent(18, 0, 3, (("data", ""),))
        assert listener.last_ping is not None
        await sim.stop_mgmd(1)
        with pytest.raises(MgmDisconnected):
            async for _ in listener.items():
                pass
    finally:
        await listener.close()


# Failover and retries


async def test_failover_between_two_management_servers(
    start_sim: StartSim, make_client: MakeClient
) -> None:
    sim = await start_sim(two_mgmd_cluster())
    first, second = sim.mgm_ports[1], sim.mgm_ports[2]
    client = make_client(sim.connectstring)
    assert await client.get_mgmd_nodeid() == 1
    await sim.stop_mgmd(1)
    # A read-only call on the stale session is retried once on a new connection.
    nodes = await client.get_status()
    assert client.address is not None and client.address.port == second
    assert {n.node_id: n.status for n in nodes if n.type == "MGM"} == {
        1: "NO_CONTACT",
        2: "CONNECTED",
    }
    assert await client.get_mgmd_nodeid() == 2
    await sim.stop_mgmd(2)
    with pytest.raises(MgmConnectError) as info:
        await client.get_status()
    assert f"127.0.0.1:{first}" in str(info.value)
    assert f"127.0.0.1:{second}" in str(info.value)
    await sim.start_mgmd(1)
    assert await client.get_mgmd_nodeid() == 1
    assert client.address is not None and client.address.port == first


async def test_a_changing_call_on_a_stale_session_fails_instead_of_retrying(
    start_sim: StartSim, make_client: MakeClient
) -> None:
    sim = await start_sim(two_mgmd_cluster())
    client = make_client(sim.connectstring)
    await client.connect()
    await sim.stop_mgmd(1)
    with pytest.raises(MgmDisconnected):
        await client.set_cluster_loglevel(3, 252, 15)
    assert sim.mgmds[2].requests == 0
    assert sim.cluster.bus.cluster_log_levels[252] == 7
    assert await client.get_mgmd_nodeid() == 2


async def test_restart_during_a_stall_is_sent_once(
    start_sim: StartSim, make_client: MakeClient, until: Any
) -> None:
    sim = await start_sim(two_mgmd_cluster())
    first, second = sim.mgmds[1], sim.mgmds[2]
    client = make_client(sim.connectstring)
    await client.connect()
    before = first.requests
    first.stall = True
    restart = asyncio.create_task(client.restart_nodes([3]))
    await until(lambda: first.requests == before + 1, what="the restart request")
    await sim.stop_mgmd(1)
    with pytest.raises(MgmDisconnected):
        await asyncio.wait_for(restart, 3.0)
    assert first.requests == before + 1
    assert second.requests == 0
    assert sim.cluster.data_nodes[3].state == "STARTED"


async def test_read_only_call_on_a_hung_open_session_is_retried_once(
    sim: Simulator, make_client: MakeClient
) -> None:
    server = sim.mgmds[1]
    client = make_client(sim.connectstring, timeout=0.3)
    await client.get_status()
    before = server.requests
    server.stall = True
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(MgmTimeout):
        await client.get_status()
    # The get status, then the retry's get version on a new connection.
    assert server.requests == before + 2
    assert 0.55 <= loop.time() - began < 1.5


async def test_concurrent_calls_share_one_session(client: MgmClient) -> None:
    results = await asyncio.gather(*(client.get_status() for _ in range(10)))
    assert all(len(r) == 7 for r in results)
    assert await client.get_mgmd_nodeid() == 1


async def test_client_connects_again_after_close(client: MgmClient) -> None:
    await client.connect()
    await client.close()
    assert client.address is None
    assert await client.get_mgmd_nodeid() == 1
