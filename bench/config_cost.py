"""The cluster configuration: decoding the largest one, and how often it is read."""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any


def config_decode(rounds: int) -> dict[str, Any]:
    """Decode the ``get config_v2`` reply body of ``max`` (255 nodes, every connection):
    base64 and the packed format, as the client does after reading it (CPU time, and wall
    time, which a busy machine inflates)."""
    from ndbtop.mgm.config_fetch import decode_body
    from ndbtop.model.config_decode import decode_config
    from ndbtop.sim.config_blob import config_reply, pack_v2
    from ndbtop.sim.scenarios import build_scenario

    reply = config_reply(pack_v2(build_scenario("max").config))
    body = reply.split(b"\n\n", 1)[1]
    cpu, wall = [], []
    config = None
    for _ in range(rounds):
        c0, w0 = time.thread_time(), time.perf_counter()
        config = decode_config(decode_body(body))
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - w0)
    assert config is not None
    return {"nodes": len(config.nodes), "data_nodes": len(config.data_nodes),
            "body_bytes": len(body), "decode_ms_median": statistics.median(cpu) * 1000,
            "decode_wall_ms_median": statistics.median(wall) * 1000}


async def config_reads(scenario: str, rounds: int) -> dict[str, Any]:
    """Configuration reads over ``rounds`` refreshes of a steady cluster (the first is the
    read at connect; none should follow)."""
    from ndbtop.cli.scenario import make_simulator
    from ndbtop.demo.hub import demo_hub

    args = argparse.Namespace(scenario=scenario, seed=1, fast_redo=False, ndb_version=None,
                              speed=1.0, at=0.0)
    sim = make_simulator(args)
    await sim.start(sql_port=None)
    hub = demo_hub(sim, 1.0, events=False)
    for _ in range(rounds):
        await hub.mgm.attempt()
        await hub.config.read_if_pending()
    reads = hub.config.reads
    await hub.stop()
    await sim.close()
    return {"scenario": scenario, "refreshes": rounds, "config_reads": reads}


if __name__ == "__main__":
    import asyncio

    print(config_decode(30))
    print(asyncio.run(config_reads("large", 30)))
