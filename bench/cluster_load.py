"""What ndbtop asks of the cluster per refresh, and the cost of parsing what it answers."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any


async def cluster_load(scenario: str, rounds: int) -> dict[str, Any]:
    """Requests ndbtop's refreshes put on the management server and the SQL node, and the
    ``ndbinfo`` rows the data nodes return for them (whatever the SQL node makes of them)."""
    from ndbtop.cli.scenario import make_simulator
    from ndbtop.demo.hub import demo_hub

    args = argparse.Namespace(scenario=scenario, seed=1, fast_redo=False, ndb_version=None,
                              speed=1.0, at=0.0)
    sim = make_simulator(args)
    await sim.start()
    hub = demo_hub(sim, 1.0, events=False)
    assert hub.sql is not None
    await hub.mgm.poll_once()
    await hub.sql.poll_once()
    mgm0 = sum(s.requests for s in sim.mgmds.values())
    sql0 = sim.sql_server.stats.statements
    rows0 = sim.sql_server.stats.rows_scanned
    for _ in range(rounds):
        await hub.mgm.poll_once()
        await hub.sql.poll_once()
    mgm = (sum(s.requests for s in sim.mgmds.values()) - mgm0) / rounds
    sql = (sim.sql_server.stats.statements - sql0) / rounds
    rows = (sim.sql_server.stats.rows_scanned - rows0) / rounds
    await hub.stop()
    await sim.close()
    return {"scenario": scenario, "mgm_requests_per_refresh": mgm,
            "ndbinfo_queries_per_refresh": sql, "ndbinfo_rows_per_refresh": rows}


async def status_parse(rounds: int) -> dict[str, Any]:
    """``get status`` of the 255-node ``max`` scenario: client call vs raw socket read."""
    from ndbtop.cli.scenario import make_simulator
    from ndbtop.mgm.client import MgmClient
    from ndbtop.mgm.connectstring import parse_connectstring

    args = argparse.Namespace(scenario="max", seed=1, fast_redo=False, ndb_version=None,
                              speed=1.0, at=0.0)
    sim = make_simulator(args)
    await sim.start(sql_port=None)
    port = next(iter(sim.mgmds.values())).port
    client = MgmClient(parse_connectstring(f"127.0.0.1:{port}"))
    nodes = await client.get_status()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    raw, parsed = [], []
    size = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        writer.write(b"get status\n\n")
        data = await reader.readuntil(b"\n\n")
        raw.append(time.perf_counter() - t0)
        size = len(data)
        t0 = time.perf_counter()
        await client.get_status()
        parsed.append(time.perf_counter() - t0)
    writer.close()
    await client.close()
    await sim.close()
    return {"nodes": len(nodes), "reply_bytes": size,
            "raw_read_ms_median": statistics.median(raw) * 1000,
            "client_get_status_ms_median": statistics.median(parsed) * 1000,
            "ratio": statistics.median(parsed) / statistics.median(raw)}
