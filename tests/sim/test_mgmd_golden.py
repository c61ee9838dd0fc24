"""The golden vectors of the protocol reference (§9, with §2.6), sent as raw bytes to the
simulated ndb_mgmd: every reply must be exactly the documented bytes.

Where the reference marks values as illustrative, the cluster is built so that the
simulated values are the reference's own (§2.6: data node 2 started, data node 3
starting with phase 4 completed, API 4 connected, API 5 free; memory 64 of 1280 pages).
Layout and literals are never adapted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]
Raw = Callable[[int], Awaitable[Any]]

VERSION_REQUEST = b"get version\n\n"
VERSION_REPLY = (
    b"version\nid: 525315\nmajor: 8\nminor: 4\nbuild: 3\nstring: mysql-8.4.3 ndb-8.4.3\n"
    b"mysql_major: 8\nmysql_minor: 4\nmysql_build: 3\n\n"
)
CLIENTVERSION_REQUEST = b"set clientversion\nmajor: 8\nminor: 4\nbuild: 3\n\n"
CLIENTVERSION_REPLY = b"set clientversion reply\nresult: Ok\n\n"


def _node(node_id: int, fields: list[tuple[str, str]]) -> bytes:
    return b"".join(f"node.{node_id}.{k}: {v}\n".encode() for k, v in fields)


def _fields(
    type_: str,
    status: str,
    version: str,
    startphase: str,
    dynamic_id: str,
    node_group: str,
    connect_count: str,
    address: str,
) -> list[tuple[str, str]]:
    return [
        ("type", type_),
        ("status", status),
        ("version", version),
        ("mysql_version", version),
        ("startphase", startphase),
        ("dynamic_id", dynamic_id),
        ("node_group", node_group),
        ("connect_count", connect_count),
        ("address", address),
        ("is_single_user", "0"),
    ]


NODE_2 = _node(2, _fields("NDB", "STARTED", "525315", "0", "1", "0", "1", "10.0.0.2"))
NODE_3 = _node(3, _fields("NDB", "STARTING", "525315", "4", "2", "0", "1", "10.0.0.3"))
NODE_1 = _node(1, _fields("MGM", "CONNECTED", "525315", "0", "0", "0", "0", "10.0.0.1"))
NODE_4 = _node(4, _fields("API", "CONNECTED", "525315", "0", "0", "0", "0", "10.0.0.4"))
NODE_5 = _node(5, _fields("API", "NO_CONTACT", "0", "0", "0", "0", "0", ""))
STATUS_REPLY = b"node status\nnodes: 5\n" + NODE_2 + NODE_3 + NODE_1 + NODE_4 + NODE_5 + b"\n"
STATUS_NDB_REPLY = b"node status\nnodes: 2\n" + NODE_2 + NODE_3 + b"\n"


def reference_cluster() -> SimCluster:
    """The cluster of the reference's complete example (§2.6), at the moment it describes."""
    config = simple_config(
        "reference",
        ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0)),
        mgm=((1, "10.0.0.1"),),
        api=((4, "10.0.0.4"), (5, None)),
        max_exec_threads=4,
        connected_api=(4,),
        data_memory_mb=40,
        index_memory_mb=10,
        fragment_log_file_size_mb=16,
        no_of_fragment_log_files=4,
    )
    cluster = SimCluster(config)
    cluster.boot_started((2,), data_fraction=0.05)
    cluster.launch((3,))
    while not (
        cluster.data_nodes[3].state == "STARTING" and cluster.data_nodes[3].start_phase == 4
    ):
        cluster.advance(0.25)
        assert cluster.now < 1000
    return cluster


def two_node_cluster(*, started: bool = True) -> SimCluster:
    """Data nodes 2 and 3 in node group 0 (started, or not yet launched), mgmd 1."""
    config = simple_config(
        "pair",
        ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0)),
        mgm=((1, "10.0.0.1"),),
        api=((4, None),),
        max_exec_threads=4,
        fragment_log_file_size_mb=16,
        no_of_fragment_log_files=4,
    )
    cluster = SimCluster(config)
    if started:
        cluster.boot_started()
    return cluster


@pytest.fixture
async def ref(start_sim: StartSim, manual_time: Any) -> Simulator:
    """The reference cluster, frozen in time."""
    return await start_sim(reference_cluster(), time=manual_time)


async def test_section_2_6_complete_example(ref: Simulator, raw: Raw) -> None:
    conn = await raw(ref.mgm_ports[1])
    await conn.exchange(VERSION_REQUEST, VERSION_REPLY)
    await conn.exchange(CLIENTVERSION_REQUEST, CLIENTVERSION_REPLY)
    await conn.exchange(b"get status\n\n", STATUS_REPLY)
    await conn.in_sync()


async def test_vector_6_types_ndb_and_no_is_single_user_without_clientversion(
    ref: Simulator, raw: Raw
) -> None:
    conn = await raw(ref.mgm_ports[1])
    without = STATUS_NDB_REPLY.replace(b"node.2.is_single_user: 0\n", b"").replace(
        b"node.3.is_single_user: 0\n", b""
    )
    await conn.exchange(b"get status\ntypes: NDB\n\n", without)
    await conn.exchange(CLIENTVERSION_REQUEST, CLIENTVERSION_REPLY)
    await conn.exchange(b"get status\ntypes: NDB\n\n", STATUS_NDB_REPLY)
    # The C client writes each type followed by a space.
    await conn.exchange(b"get status\ntypes: NDB \n\n", STATUS_NDB_REPLY)
    await conn.in_sync()


@pytest.mark.parametrize(
    ("request_", "reply"),
    [
        (VERSION_REQUEST, VERSION_REPLY),
        (CLIENTVERSION_REQUEST, CLIENTVERSION_REPLY),
        (b"check connection\n\n", b"check connection reply\nresult: Ok\n\n"),
        (b"get mgmd nodeid\n\n", b"get mgmd nodeid reply\nnodeid:1\n\n"),
        (b"get stat\n\n", b"result: Unknown command, 'get stat'\n\n"),
        (b"get status\nfoo: 1\n\n", b"result: Unknown argument, 'foo'\n\n"),
        (
            b"get status\nfoo: 1\ntypes: NDB\n\n",
            b"result: Unknown argument, 'foo'\n\nresult: Unknown command, 'types: NDB'\n\n",
        ),
        (b"start\nnode: x\n\n", b"result: Type mismatch, 'node'\n\n"),
        (b"start\n\n", b"result: Missing arg., '\n'\n\n"),
        (
            b"get info clusterlog\n\n",
            b"clusterlog\nenabled: 1\ndebug: 0\ninfo: 1\nwarning: 1\nerror: 1\ncritical: 1\n"
            b"alert: 1\n\n",
        ),
        (
            b"get cluster loglevel\n\n",
            b"get cluster loglevel\nstartup: 7\nshutdown: 7\nstatistics: 7\ncheckpoint: 7\n"
            b"noderestart: 7\nconnection: 8\ninfo: 7\nwarning: 7\nerror: 15\ncongestion: 7\n"
            b"debug: 7\nbackup: 15\nschema: 7\n\n",
        ),
        (
            b"listen event\nfilter: WARNING=7\n\n",
            b"listen event\nresult: -1\nmsg: Unknown category: >WARNING<\n\n",
        ),
        (
            b"listen event\nfilter: STARTUP\n\n",
            b"listen event\nresult: -1\nmsg: Invalid filter specification: >STARTUP< "
            b">STARTUP< 1\n\n",
        ),
        (b"dump state\nnode: 2\nargs: 1000\n\n", b"dump state reply\nresult: Ok\n\n"),
        (b"report event\nlength: 2\ndata: 131090 3\n\n", b"report event reply\nresult: ok\n\n"),
        (b"start tls\n\n", b"start tls reply\nresult: Failed\n\n"),
    ],
    ids=[
        "1-version",
        "2-clientversion",
        "3-check-connection",
        "4-mgmd-nodeid",
        "7-unknown-command",
        "8-unknown-argument",
        "8-follow-on-error",
        "9-type-mismatch",
        "10-missing-argument",
        "16-info-clusterlog",
        "17-cluster-loglevel",
        "19-unknown-category",
        "19-invalid-filter",
        "23-dump-state",
        "24-report-event",
        "26-start-tls-without-certificate",
    ],
)
async def test_golden_vector(ref: Simulator, raw: Raw, request_: bytes, reply: bytes) -> None:
    conn = await raw(ref.mgm_ports[1])
    await conn.exchange(request_, reply)
    await conn.in_sync()


async def test_vector_5_session_ids_count_from_one(ref: Simulator, raw: Raw) -> None:
    for expected in (1, 2, 3):
        conn = await raw(ref.mgm_ports[1])
        await conn.exchange(b"get session id\n\n", b"get session id reply\nid: %d\n\n" % expected)


async def test_vectors_15_16_log_levels_and_filter_change_state(ref: Simulator, raw: Raw) -> None:
    conn = await raw(ref.mgm_ports[1])
    await conn.exchange(
        b"set cluster loglevel\nnode: 2\ncategory: 252\nlevel: 15\n\n",
        b"set cluster loglevel reply\nresult: Ok\n\n",
    )
    await conn.exchange(
        b"set cluster loglevel\nnode: 2\ncategory: 252\nlevel: 16\n\n",
        b"set cluster loglevel reply\nresult: Invalid loglevel 16\n\n",
    )
    await conn.send(b"get cluster loglevel\n\n")
    reply = await conn.read_until(b"\n\n")
    assert b"\nstatistics: 15\n" in reply
    await conn.exchange(
        b"set logfilter\nlevel: 1\nenable: 1\n\n", b"set logfilter reply\nresult: 1\n\n"
    )
    await conn.send(b"get info clusterlog\n\n")
    assert b"\ndebug: 1\n" in await conn.read_until(b"\n\n")
    # -1 arrives as 4294967295 and toggles.
    await conn.exchange(
        b"set logfilter\nlevel: 1\nenable: -1\n\n", b"set logfilter reply\nresult: 0\n\n"
    )
    await conn.exchange(
        b"set logfilter\nlevel: 1\nenable: 0\n\n", b"set logfilter reply\nresult: 0\n\n"
    )


async def test_vector_22_memory_report(ref: Simulator, raw: Raw) -> None:
    data = (
        b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=32768\n"
        b"pages_used=64\npages_total=1280\nblock=249\n\n"
    )
    index = (
        b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=8192\n"
        b"pages_used=32\npages_total=1280\nblock=248\n\n"
    )
    conn = await raw(ref.mgm_ports[1])
    expected = b"dump events reply\nresult: Ok\nevents: 2\n\n" + data + index
    await conn.exchange(b"dump events\ntype: 50\nnodes: 2\n\n", expected)
    # Without nodes: every started data node (node 3 is still starting).
    await conn.exchange(b"dump events\ntype: 50\n\n", expected)
    await conn.exchange(
        b"dump events\ntype: 13\n\n",
        b"dump events reply\nresult: ndb_logevent_type 13 not supported\n\n",
    )
    await conn.exchange(
        b"dump events\ntype: 50\nnodes: 2,x\n\n",
        b"dump events reply\nresult: invalid nodes: '2,x'\n\n",
    )
    await conn.in_sync()


async def test_vector_25_end_session_and_bye(ref: Simulator, raw: Raw) -> None:
    conn = await raw(ref.mgm_ports[1])
    await conn.exchange(b"end session\n\n", b"end session reply\n")
    await conn.in_sync()
    await conn.send(b"bye\n\n")
    assert await conn.closed_by_server()


async def test_vector_27_authorization_failure(
    start_sim: StartSim, manual_time: Any, raw: Raw
) -> None:
    sim = await start_sim(reference_cluster(), time=manual_time, require_tls=True)
    conn = await raw(sim.mgm_ports[1])
    denied = b"Authorization failed\nError: Requires TLS\n\n"
    await conn.exchange(b"get status\n\n", denied)
    await conn.exchange(b"listen event\nfilter: STARTUP=1\n\n", denied)
    await conn.exchange(b"bye\n\n", denied)
    # The bootstrap commands run before TLS.
    await conn.exchange(VERSION_REQUEST, VERSION_REPLY)
    await conn.exchange(CLIENTVERSION_REQUEST, CLIENTVERSION_REPLY)
    await conn.exchange(b"get mgmd nodeid\n\n", b"get mgmd nodeid reply\nnodeid:1\n\n")
    await conn.exchange(b"start tls\n\n", b"start tls reply\nresult: Failed\n\n")
    await conn.exchange(b"end session\n\n", b"end session reply\n")
    await conn.in_sync()


RESTART_3 = b"restart node v2\nnode: 3\nabort: 0\ninitialstart: 0\nnostart: 0\nforce: 0\n\n"
RESTART_2 = RESTART_3.replace(b"node: 3", b"node: 2")


async def test_vectors_11_12_restart_and_stop(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any, advance: Any
) -> None:
    sim = await start_sim(two_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    first, second = await raw(sim.mgm_ports[1]), await raw(sim.mgm_ports[1])
    await first.send(RESTART_3)
    await until(lambda: nodes[3].state == "SHUTTING_DOWN", what="node 3 shutting down")
    manual_time.advance(3.0)
    await first.expect(b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n")
    await advance(sim, manual_time, lambda: nodes[3].state == "STARTING")
    await second.exchange(
        RESTART_2,
        b"restart reply\nresult: 5063-Operation not allowed while nodes are starting or "
        b"stopping.: Permanent error: Application error\nrestarted: 0\ndisconnect: 0\n\n",
    )
    await advance(sim, manual_time, lambda: nodes[3].state == "STARTED")
    await second.send(b"stop v2\nnode: 2\nabort: 0\nforce: 0\n\n")
    await until(lambda: nodes[2].state == "SHUTTING_DOWN", what="node 2 shutting down")
    manual_time.advance(3.0)
    await second.expect(b"stop reply\nresult: Ok\nstopped: 1\ndisconnect: 0\n\n")
    await second.exchange(
        b"stop v2\nnode: 3\nabort: 0\nforce: 0\n\n",
        b"stop reply\nresult: Node shutdown would cause system crash: Permanent error: "
        b"Application error\nstopped: 0\ndisconnect: 0\n\n",
    )
    await second.exchange(
        b"start\nnode: 2\n\n",
        b"start reply\nresult: No contact with the process (dead ?).: Permanent error: "
        b"Application error\n\n",
    )
    await second.exchange(b"start\nnode: 3\n\n", b"start reply\nresult: Ok\n\n")
    await second.exchange(b"start all\n\n", b"start reply\nresult: Ok\nstarted: 1\n\n")
    await second.in_sync()
    await first.in_sync()


async def test_vector_11_restart_refused_for_the_last_node_of_its_group(
    start_sim: StartSim, manual_time: Any, raw: Raw
) -> None:
    # Node 2 is not running: node 3 is the last started node of node group 0. (Naming
    # both nodes would be refused earlier, with 5031: several nodes without abort.)
    cluster = two_node_cluster(started=False)
    cluster.boot_started([3])
    sim = await start_sim(cluster, time=manual_time)
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(
        RESTART_3,
        b"restart reply\nresult: 5028-Node shutdown would cause system crash: Permanent "
        b"error: Application error\nrestarted: 0\ndisconnect: 0\n\n",
    )


async def test_vectors_13_14_stop_all_and_start_all(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    sim = await start_sim(two_node_cluster(), time=manual_time)
    nodes = sim.cluster.data_nodes
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(b"start all\n\n", b"start reply\nresult: Ok\nstarted: 2\n\n")
    await conn.send(b"stop all\nabort: 0\nstop: db\n\n")
    await until(lambda: nodes[3].state == "SHUTTING_DOWN", what="the shutdown")
    manual_time.advance(3.0)
    await conn.expect(b"stop reply\nresult: Ok\nstopped: 2\ndisconnect: 0\n\n")
    assert {n.state for n in nodes.values()} == {"NO_CONTACT"}
    await conn.exchange(b"start all\n\n", b"start reply\nresult: Ok\nstarted: 0\n\n")
    await conn.in_sync()


STARTUP_PHASE_4 = b"log event reply\ntype=13\ntime=0\nsource_nodeid=3\nphase=4\nstarttype=0\n\n"


async def test_vector_18_listen_event_parsable_and_text(
    start_sim: StartSim, manual_time: Any, raw: Raw, advance: Any
) -> None:
    sim = await start_sim(two_node_cluster(started=False), time=manual_time)
    parsable, text = await raw(sim.mgm_ports[1]), await raw(sim.mgm_ports[1])
    await parsable.exchange(
        b"listen event\nfilter: STARTUP=15 STATISTICS=5 250=7\nparsable: 1\n\n",
        b"listen event\nresult: 0\n\n",
    )
    await parsable.expect(b"<PING>\n")
    await text.exchange(b"listen event\nfilter: STARTUP=7\n\n", b"listen event\nresult: 0\n\n")
    sim.cluster.launch((2, 3), initial=True)
    await advance(sim, manual_time, lambda: sim.cluster.data_nodes[3].start_phase >= 5)
    data = b"\n" + await parsable.read_until(STARTUP_PHASE_4.replace(b"phase=4", b"phase=5"))
    assert b"\n" + STARTUP_PHASE_4 in data
    assert b"\n" + STARTUP_PHASE_4.replace(b"source_nodeid=3", b"source_nodeid=2") in data
    lines = await text.read_until(b"Node 3: Start phase 4 completed (initial start)\n")
    assert lines.startswith(b"<PING>\n")
    assert b"log event reply" not in lines


async def test_vectors_20_21_24_events_through_a_listener(
    start_sim: StartSim, manual_time: Any, raw: Raw, until: Any
) -> None:
    sim = await start_sim(two_node_cluster(), time=manual_time)
    listener, text, control = [await raw(sim.mgm_ports[1]) for _ in range(3)]
    await listener.exchange(
        b"listen event\nfilter: STARTUP=1 CONNECTION=8\nparsable: 1\nnode: 0\n\n",
        b"listen event\nresult: 0\n\n",
    )
    await text.exchange(b"listen event\nfilter: CONNECTION=8\n\n", b"listen event\nresult: 0\n\n")
    await control.exchange(
        b"report event\nlength: 1\ndata: 196626\n\n", b"report event reply\nresult: ok\n\n"
    )
    await listener.read_until(b"log event reply\ntype=18\ntime=0\nsource_nodeid=3\ndata=\n\n")
    await control.exchange(
        b"report event\nlength: 2\ndata: 131090 3\n\n", b"report event reply\nresult: ok\n\n"
    )
    await listener.read_until(b"log event reply\ntype=18\ntime=0\nsource_nodeid=2\ndata=3 \n\n")
    await control.send(RESTART_3)
    await until(lambda: sim.cluster.data_nodes[3].state == "SHUTTING_DOWN", what="shutdown")
    manual_time.advance(3.0)
    await control.expect(b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n")
    await listener.read_until(b"log event reply\ntype=0\ntime=0\nsource_nodeid=1\nnode=3\n\n")
    await text.read_until(b"Node 1: Node 3 Connected\n")
