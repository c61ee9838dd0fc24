"""The configuration source: read at connect, after a reconnect, when a data node connects
again or runs a newer generation, never each refresh; a failure keeps the last one."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent / "mgm"))
from config_vectors import STATUS_NODE_5_DOWN, TWO_GROUPS, config_reply

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import RealClock
from ndbtop.model.ndbinfo import NdbinfoNode, NdbinfoSample
from ndbtop.model.sources import SourceState

Scripted = Callable[..., Awaitable[Any]]
LOGLEVELS = (b"get cluster loglevel\nstartup: 7\nshutdown: 7\nstatistics: 7\ncheckpoint: 7\n"
             b"noderestart: 7\nconnection: 7\ninfo: 7\nwarning: 7\nerror: 15\ncongestion: 7\n"
             b"debug: 7\nbackup: 7\nschema: 7\n\n")
NO_BACKUP = b"dump events reply\nresult: Ok\nevents: 0\n\n"


def hub_for(server: Any) -> Hub:
    return Hub(parse_connectstring(server.connectstring), RealClock(), 1.0, events=False)


async def refresh(hub: Hub) -> None:
    await hub.mgm.attempt()
    await hub.config.read_if_pending()


async def test_read_once_at_connect_and_not_on_refreshes(scripted: Scripted) -> None:
    server = await scripted({"get status": STATUS_NODE_5_DOWN, "get cluster loglevel": LOGLEVELS,
             "dump events": NO_BACKUP,
                             "get config_v2": config_reply(TWO_GROUPS)})
    hub = hub_for(server)
    try:
        for _ in range(5):
            await refresh(hub)
        assert server.commands.count("get config_v2") == 1
        snap = hub.snapshot()
        assert snap.config is not None and snap.config.generation == 7
        assert snap.source("config").state is SourceState.CONNECTED
        # A reconnect (the server may be another one now) reads it again.
        await hub.mgm.client.close()
        await refresh(hub)
        assert server.commands.count("get config_v2") == 2
    finally:
        await hub.stop()


async def test_a_damaged_configuration_keeps_the_last_one_and_says_why(
        scripted: Scripted) -> None:
    replies = {"get status": STATUS_NODE_5_DOWN, "get cluster loglevel": LOGLEVELS,
             "dump events": NO_BACKUP,
               "get config_v2": config_reply(TWO_GROUPS)}
    server = await scripted(replies)
    hub = hub_for(server)
    try:
        await refresh(hub)
        damaged = bytearray(TWO_GROUPS)
        damaged[60] ^= 0x01
        server.replies["get config_v2"] = config_reply(bytes(damaged))
        hub.config.request("test")
        await hub.config.read_if_pending()
        snap = hub.snapshot()
        src = snap.source("config")
        assert src.state is SourceState.UNAVAILABLE
        assert src.error.startswith("configuration unavailable: checksum mismatch")
        assert "\n" not in src.error
        assert snap.config is not None and snap.config.generation == 7
        assert snap.nodes and snap.source("mgm").state is SourceState.CONNECTED
    finally:
        await hub.stop()


async def test_unknown_command_leaves_get_status_working(scripted: Scripted) -> None:
    server = await scripted({"get status": STATUS_NODE_5_DOWN, "get cluster loglevel": LOGLEVELS,
             "dump events": NO_BACKUP,
                             "get config_v2": b"result: Unknown command, 'get config_v2'\n\n",
                             "get config": b"result: Unknown command, 'get config'\n\n"})
    hub = hub_for(server)
    try:
        await refresh(hub)
        await refresh(hub)
        snap = hub.snapshot()
        assert snap.config is None and len(snap.nodes) == 6
        assert "knows no get config command" in snap.source("config").error
    finally:
        await hub.stop()


def status(node_id: int, connects: int) -> NodeStatus:
    return NodeStatus(node_id, "NDB", "STARTED", connect_count=connects, node_group=0)


def test_a_node_that_connects_again_or_runs_a_newer_generation_asks_for_a_read() -> None:
    hub = Hub(parse_connectstring("127.0.0.1:1"), RealClock(), 1.0, events=False)
    source = hub.config
    source.observe([status(2, 1), status(3, 1)], None)
    source._wanted.clear()
    source.observe([status(2, 1), status(3, 1)], None)
    assert not source.pending
    source.observe([status(2, 2), status(3, 1)], None)
    assert not source.pending  # read once the count held still for a refresh
    source.observe([status(2, 2), status(3, 1)], None)
    assert source.pending and source.reason == "node 2 connected again"
    source._wanted.clear()
    from ndbtop.model.config import ClusterConfig
    source.config = ClusterConfig(4, "c", 2, (), ())

    def sample(taken_at: float) -> NdbinfoSample:
        return NdbinfoSample(taken_at=taken_at, ndb_version=None, nodes=(
            NdbinfoNode(2, 10, "STARTED", 0, 5), NdbinfoNode(3, 10, "STARTED", 0, 4)))

    source.observe([status(2, 2), status(3, 1)], sample(1.0))
    assert not source.pending
    source.observe([status(2, 2), status(3, 1)], sample(2.0))
    assert source.pending and source.reason == "node runs generation 5"
    source._wanted.clear()
    source.observe([status(2, 2), status(3, 1)], sample(3.0))
    assert not source.pending
