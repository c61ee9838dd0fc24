"""Sessions of the simulated ndb_mgmd over raw TCP: the parser's edge cases of reference
§1.2-§1.6 as the server answers them, ``get status`` variants, timeouts and listeners."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.sim.mgmd import server as mgmd_server
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario

StartSim = Callable[..., Awaitable[Simulator]]
Raw = Callable[[int], Awaitable[Any]]

START_OK = b"start reply\nresult: Ok\n\n"
LOGLEVEL = b"set cluster loglevel reply\nresult: %s\n\n"


@pytest.fixture
async def frozen(start_sim: StartSim, manual_time: Any) -> Simulator:
    """The ``threads`` scenario with simulated time standing still."""
    return await start_sim("threads", time=manual_time)


@pytest.fixture
async def conn(frozen: Simulator, raw: Raw) -> Any:
    """A raw connection to the frozen cluster's management server."""
    return await raw(frozen.mgm_ports[1])


@pytest.mark.parametrize(
    "line", [b"node: 2", b"node:2", b"node=2", b'node:"2"', b"  node\t:  2 ", b"node: 2abc"]
)
async def test_argument_forms(conn: Any, line: bytes) -> None:
    await conn.exchange(b"start\n" + line + b"\n\n", START_OK)


@pytest.mark.parametrize(
    ("args", "result"),
    [
        (b"category: 252\nlevel: 16abc", b"Invalid loglevel 16"),
        (b"category: 252\nlevel: -1", b"Invalid loglevel -1"),
        (b"category: 999\nlevel: 16", b"Invalid loglevel 16"),
        (b"category: 263\nlevel: 1", b"Invalid category 13"),
        (b"category: 249\nlevel: 1", b"Invalid category -1"),
        (b"category: -1\nlevel: 1", b"Invalid category -251"),
        (b"category: 252abc\nlevel: 15", b"Ok"),
    ],
)
async def test_set_cluster_loglevel_checks_the_level_then_the_category(
    conn: Any, args: bytes, result: bytes
) -> None:
    await conn.exchange(b"set cluster loglevel\nnode: 1\n" + args + b"\n\n", LOGLEVEL % result)


async def test_minus_one_wraps_to_the_largest_unsigned(conn: Any) -> None:
    await conn.exchange(
        b"dump events\ntype: -1\n\n",
        b"dump events reply\nresult: ndb_logevent_type 4294967295 not supported\n\n",
    )


async def test_node_lists_are_read_with_atoi(
    frozen: Simulator, conn: Any, manual_time: Any, until: Any
) -> None:
    await conn.send(b'stop v2\nnode: "3x"\nabort: 0\n\n')
    await until(lambda: frozen.cluster.data_nodes[3].state == "SHUTTING_DOWN", what="shutdown")
    manual_time.advance(3.0)
    await conn.expect(b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")


async def test_longest_line_is_answered_and_a_longer_one_closes_the_session(
    frozen: Simulator, raw: Raw
) -> None:
    conn = await raw(frozen.mgm_ports[1])
    command = b"x" * 510
    await conn.exchange(command + b"\n\n", b"result: Unknown command, '" + command + b"'\n\n")
    await conn.in_sync()
    await conn.send(b"y" * 511 + b"\n")
    assert await conn.closed_by_server()
    other = await raw(frozen.mgm_ports[1])
    await other.send(b"get status\ntypes: " + b"N" * 600)
    assert await other.closed_by_server()


async def test_crlf_line_ends_are_accepted(conn: Any) -> None:
    await conn.exchange(b"start\r\nnode: 2\r\n\r\n", START_OK)
    await conn.exchange(b"get mgmd nodeid\r\n\r\n", b"get mgmd nodeid reply\nnodeid:1\n\n")


async def test_empty_lines_between_requests_produce_nothing(conn: Any) -> None:
    await conn.exchange(
        b"\n\n\nget mgmd nodeid\n\n\n \n\t\ncheck connection\n\n\n",
        b"get mgmd nodeid reply\nnodeid:1\n\ncheck connection reply\nresult: Ok\n\n",
    )
    await conn.in_sync()


async def test_requests_split_into_single_bytes_and_pipelined(conn: Any) -> None:
    for byte in b"check connection\n\nget mgmd nodeid\n\n":
        await conn.send(bytes([byte]))
    await conn.expect(b"check connection reply\nresult: Ok\n\nget mgmd nodeid reply\nnodeid:1\n\n")


def _status_lines(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if line]


@pytest.mark.parametrize(
    ("version", "present"),
    [
        (None, False),
        (b"major: 8\nminor: 0\nbuild: 21", False),
        (b"major: 8\nminor: 0\nbuild: 22", True),
    ],
)
async def test_is_single_user_only_for_clients_from_8_0_22(
    conn: Any, version: bytes | None, present: bool
) -> None:
    if version is not None:
        await conn.exchange(
            b"set clientversion\n" + version + b"\n\n", b"set clientversion reply\nresult: Ok\n\n"
        )
    await conn.send(b"get status\n\n")
    reply = await conn.read_until(b"\n\n")
    lines = _status_lines(reply)
    assert lines[1] == b"nodes: 7"
    single = [line for line in lines if b".is_single_user: " in line]
    assert len(single) == (7 if present else 0)
    assert len(lines) == 2 + 7 * (10 if present else 9)


@pytest.mark.parametrize(
    ("types", "ids"),
    [
        (b"NDB", [2, 3]),
        (b"NDB ", [2, 3]),
        (b"ndbd mysqld", [2, 3, 4, 5, 6, 7]),
        (b"MGM NDB", [1, 2, 3]),
        (b"API junk NDB", [4, 5, 6, 7]),
        (b"junk", []),
    ],
)
async def test_get_status_types(conn: Any, types: bytes, ids: list[int]) -> None:
    await conn.send(b"get status\ntypes: " + types + b"\n\n")
    lines = _status_lines(await conn.read_until(b"\n\n"))
    assert lines[:2] == [b"node status", f"nodes: {len(ids)}".encode()]
    assert [int(line.split(b".")[1]) for line in lines[2:] if b".type: " in line] == ids


async def test_data_node_without_node_group_prints_minus_256(
    start_sim: StartSim, manual_time: Any, raw: Raw
) -> None:
    cluster = build_scenario("add-node", ScenarioOptions(seed=1))
    cluster.launch((5, 6), initial=True, nostart=True)
    sim = await start_sim(cluster, time=manual_time)
    conn = await raw(sim.mgm_ports[1])
    expected = b"node status\nnodes: 4\n"
    for node_id, status, dynamic_id, group in (
        (3, "STARTED", 1, 0),
        (4, "STARTED", 2, 0),
        (5, "NOT_STARTED", 0, -256),
        (6, "NOT_STARTED", 0, -256),
    ):
        expected += (
            f"node.{node_id}.type: NDB\nnode.{node_id}.status: {status}\n"
            f"node.{node_id}.version: 525315\nnode.{node_id}.mysql_version: 525315\n"
            f"node.{node_id}.startphase: 0\nnode.{node_id}.dynamic_id: {dynamic_id}\n"
            f"node.{node_id}.node_group: {group}\nnode.{node_id}.connect_count: 1\n"
            f"node.{node_id}.address: 192.168.0.{node_id}\n"
        ).encode()
    await conn.exchange(b"get status\ntypes: NDB\n\n", expected + b"\n")
    await conn.exchange(
        b"create nodegroup\nnodes: 5 6\n\n", b"create nodegroup reply\nng: 1\nresult: Ok\n\n"
    )
    await conn.exchange(
        b"get status\ntypes: NDB\n\n",
        expected.replace(b"node_group: -256", b"node_group: 1") + b"\n",
    )


async def test_a_request_without_its_empty_line_runs_when_the_read_times_out(
    frozen: Simulator, raw: Raw, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mgmd_server, "SOCKET_TIMEOUT", 0.2)
    conn = await raw(frozen.mgm_ports[1])
    await conn.send(b"get mgmd nodeid\n")
    await conn.expect(b"get mgmd nodeid reply\nnodeid:1\n\n", timeout=2.0)
    await conn.send(b"start\n")
    await conn.expect(b"result: Missing arg., '\n'\n\n", timeout=2.0)
    # An idle session is never closed.
    assert not await conn.closed_by_server(timeout=0.5)
    await conn.in_sync()
    # A half line followed by silence closes it.
    await conn.send(b"get mgm")
    assert await conn.closed_by_server(timeout=2.0)


async def test_a_stalled_server_answers_nothing(frozen: Simulator, raw: Raw) -> None:
    conn = await raw(frozen.mgm_ports[1])
    frozen.mgmds[1].stall = True
    await conn.send(b"check connection\n\n")
    assert await conn.read(1, timeout=0.3) == b""
    frozen.mgmds[1].stall = False
    fresh = await raw(frozen.mgm_ports[1])
    await fresh.in_sync()


async def test_listener_pings_and_unsubscribes_when_closed(
    frozen: Simulator, raw: Raw, monkeypatch: pytest.MonkeyPatch, until: Any
) -> None:
    monkeypatch.setattr(mgmd_server, "PING_INTERVAL", 0.02)
    bus = frozen.cluster.bus
    conn = await raw(frozen.mgm_ports[1])
    await conn.exchange(b"listen event\nfilter: 250=1\n\n", b"listen event\nresult: 0\n\n")
    await conn.expect(b"<PING>\n<PING>\n<PING>\n")
    assert len(bus.subscriptions) == 1
    # Commands are not read any more on a listening socket.
    await conn.send(b"check connection\n\n")
    assert await conn.read_until(b"<PING>\n") == b"<PING>\n"
    await conn.close()
    await until(lambda: not bus.subscriptions, what="the listener to be dropped")


async def test_stopped_server_refuses_and_restarted_server_answers_on_the_same_port(
    frozen: Simulator, raw: Raw
) -> None:
    port = frozen.mgm_ports[1]
    conn = await raw(port)
    await frozen.stop_mgmd(1)
    assert await conn.closed_by_server()
    with pytest.raises(OSError):
        await raw(port)
    await frozen.start_mgmd(1)
    assert frozen.mgm_ports[1] == port
    await (await raw(port)).in_sync()


async def test_listener_queue_overflow_drops_the_listener(
    frozen: Simulator, raw: Raw, monkeypatch: pytest.MonkeyPatch, until: Any
) -> None:
    monkeypatch.setattr(mgmd_server, "LISTENER_QUEUE", 5)
    bus = frozen.cluster.bus
    conn = await raw(frozen.mgm_ports[1])
    await conn.exchange(
        b"listen event\nfilter: 250=1\nparsable: 1\n\n", b"listen event\nresult: 0\n\n"
    )
    await until(lambda: len(bus.subscriptions) == 1, what="the subscription")
    for _ in range(10):
        frozen.cluster.emit(18, 3)
    await until(lambda: not bus.subscriptions, what="the slow listener to be dropped")
    rest = await conn.read_to_eof()
    assert rest.count(b"log event reply\ntype=18\n") <= 5


async def test_many_sessions_at_once(frozen: Simulator, raw: Raw) -> None:
    conns = [await raw(frozen.mgm_ports[1]) for _ in range(20)]
    await asyncio.gather(*(c.in_sync() for c in conns))
