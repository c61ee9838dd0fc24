"""The configuration: read when the README's rules say, once per change, bounded in size.

The management server's replies are written as the reference gives them: ``get status``
with ``node.N.connect_count`` (mgm-protocol.md §2.2) and ``get config_v2`` with a base64
body of ``Content-Length`` bytes (§7.4); the packed configuration is the v2 layout of
config-protocol.md, built by the simulator's packer.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.packed_config import MAX_CONFIG_BYTES
from ndbtop.model.clock import RealClock
from ndbtop.model.config_decode import config_from_blob
from ndbtop.sim.config import simple_config
from ndbtop.sim.config_blob import config_reply, pack_v2
from tests.bounds.conftest import GROWTH_LIMIT, growth
from tests.hostile.conftest import CONFIG_REFUSED, loglevel_reply, node_fields, status_reply

NO_BACKUP = b"dump events reply\nresult: Ok\nevents: 0\n\n"


def cluster_config(api_nodes: int, host_chars: int = 0) -> bytes:
    """A packed configuration of 4 data nodes and ``api_nodes`` API nodes, each API node
    with a HostName of ``host_chars`` characters (0: none)."""
    config = simple_config(
        "big", tuple((i, f"10.0.0.{i}", (i - 1) // 2) for i in range(1, 5)),
        mgm=((250, "10.0.1.1"),),
        api=tuple((10 + i, f"api{i}-" + "h" * host_chars if host_chars else None)
                  for i in range(api_nodes)))
    return pack_v2(config)


class MovingCounts:
    """``get status`` whose data node 2 connects again at every refresh while ``moving``."""

    def __init__(self) -> None:
        self.count = 1
        self.moving = True

    async def __call__(self, writer: asyncio.StreamWriter) -> None:
        if self.moving:
            self.count += 1
        nodes = {2: node_fields(2, connect_count=self.count), 3: node_fields(3)}
        writer.write(status_reply(nodes))


async def refresh(hub: Hub) -> None:
    await hub.mgm.attempt()
    await hub.config.read_if_pending()


async def test_a_connect_count_that_keeps_changing_causes_one_read_when_it_settles(
    scripted: Any,
) -> None:
    counts = MovingCounts()
    server = await scripted({
        "get status": counts, "get cluster loglevel": loglevel_reply(),
        "dump events": NO_BACKUP, "get config_v2": config_reply(cluster_config(8)),
    })
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 1.0, events=False)
    try:
        for _ in range(20):
            await refresh(hub)
        # Read at connect only: twenty refreshes of a count that never holds still.
        assert server.commands.count("get config_v2") == 1
        counts.moving = False
        for _ in range(5):
            await refresh(hub)
        assert server.commands.count("get config_v2") == 2
        assert hub.config.reads == 2
    finally:
        await hub.stop()


async def test_a_configuration_beyond_the_bound_is_refused_before_its_body(
    scripted: Any,
) -> None:
    length = MAX_CONFIG_BYTES * 2
    head = (f"get config reply\nresult: Ok\nContent-Length: {length}\n"
            "Content-Type: ndbconfig/octet-stream\nContent-Transfer-Encoding: base64\n\n")
    server = await scripted({
        "get status": status_reply({2: node_fields(2)}), "get cluster loglevel":
        loglevel_reply(), "dump events": NO_BACKUP, "get config_v2": head.encode(),
        "get config": CONFIG_REFUSED,
    })
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 1.0, events=False)
    try:
        await refresh(hub)
        error = hub.snapshot().source("config").error
        assert error == f"configuration unavailable: Content-Length {length} is too large"
    finally:
        await hub.stop()


def test_a_configuration_just_within_the_bound_is_read() -> None:
    blob = cluster_config(200, 16_000)
    assert MAX_CONFIG_BYTES * 3 // 4 < len(blob) < MAX_CONFIG_BYTES
    assert len(config_from_blob(blob).data_nodes) == 4
    assert len(base64.b64encode(blob)) < MAX_CONFIG_BYTES * 3 // 2


def test_decoding_grows_linearly_with_the_configuration() -> None:
    # 200 API nodes with HostNames of 4,000 and of 8,000 characters: 0.8 and 1.6 MB.
    blobs = {n: cluster_config(200, n) for n in (4000, 8000)}
    assert growth(lambda n: blobs[n], config_from_blob, 4000) < GROWTH_LIMIT
