"""Membership and arbitration on ``max`` (144 data nodes): what one read of
``ndbinfo.membership`` costs the client, and what working out the panel costs a refresh.

Run from the repository root: ``PYTHONPATH=. .venv/bin/python bench/membership_cost.py``.
The simulated SQL node runs on the event loop of the main thread; the read runs in a worker
thread whose own CPU time (``time.thread_time``) is the client's: PyMySQL reading the rows
and the parser. The model (president, arbitrator, agreement, ring, groups, the last
arbitration events) is timed on a snapshot holding those rows and 2,000 events.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any


async def membership_read(rounds: int) -> dict[str, Any]:
    """Client CPU and rows of one on-demand read, median of ``rounds``."""
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import MysqlOptions
    from ndbtop.sim.ndbinfo_rows import SimNdbinfo
    from ndbtop.sim.scenarios import build_scenario
    from ndbtop.sim.sqlnode import start_sql_node

    cluster = build_scenario("max")
    cluster.advance(5)
    server = await start_sql_node(SimNdbinfo(cluster), port=0)
    collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port, user="root",
                                              password=""))
    await asyncio.to_thread(collector.connect)

    def one(wanted: frozenset[str]) -> tuple[float, float, int, int]:
        collector.wanted = wanted
        c0, w0 = time.thread_time(), time.perf_counter()
        sample = collector.sample()
        return (time.thread_time() - c0, time.perf_counter() - w0, sample.rows,
                len(sample.membership))

    base_cpu, with_cpu, with_wall, rows_added = [], [], [], []
    members = 0
    try:
        for _ in range(3):
            await asyncio.to_thread(one, frozenset({"membership"}))
        for _ in range(rounds):
            cpu0, _, rows0, _ = await asyncio.to_thread(one, frozenset())
            cpu1, wall1, rows1, members = await asyncio.to_thread(one, frozenset({"membership"}))
            base_cpu.append(cpu0)
            with_cpu.append(cpu1)
            with_wall.append(wall1)
            rows_added.append(rows1 - rows0)
    finally:
        collector.close()
        await server.close()
    return {"data_nodes": len(cluster.data_nodes), "membership_rows": members,
            "rows_added_median": statistics.median(rows_added),
            "sample_cpu_ms_without": statistics.median(base_cpu) * 1000,
            "sample_cpu_ms_with": statistics.median(with_cpu) * 1000,
            "sample_wall_ms_with": statistics.median(with_wall) * 1000}


def membership_model(rounds: int) -> dict[str, Any]:
    """CPU of working out the membership (and the Nodes view's line) from a snapshot of
    ``max`` with its 144 rows and 2,000 events (8 of them arbitration events)."""
    from ndbtop.mgm.event_stream import EventStreamParser
    from ndbtop.mgm.events import decode_event
    from ndbtop.mgm.status import NodeStatus
    from ndbtop.mgm.wire import LineBuffer, RawEvent
    from ndbtop.model.membership import headline, membership
    from ndbtop.model.ndbinfo import NdbinfoSample
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.model.sources import SourceState, SourceStatus
    from ndbtop.ndbinfo.rows_membership import parse_membership
    from ndbtop.sim.ndbinfo_rows import SimNdbinfo
    from ndbtop.sim.scenarios import build_scenario

    cluster = build_scenario("max")
    cluster.advance(5)
    raw = SimNdbinfo(cluster).rows("membership")
    c0 = time.thread_time()
    for _ in range(rounds):
        rows = parse_membership(raw)
    parse_ms = (time.thread_time() - c0) / rounds * 1000
    blocks = b""
    for i in range(2000):
        kind, code = (29, 22) if i % 250 == 0 else (28, 0)  # ArbitState, NODE_FAILREP
        blocks += (f"log event reply\ntype={kind}\ntime=0\nsource_nodeid={1 + i % 144}\n"
                   f"code={code}\narbit_node=145\nticket_0=1\nticket_1=2\n\n").encode()
    parser = EventStreamParser()
    events = []
    for line in LineBuffer().feed(blocks):
        item = parser.feed(line)
        if isinstance(item, RawEvent):
            events.append(decode_event(item, 1000.0 + len(events)))
    nodes = tuple(NodeStatus(n.node_id, "NDB", "STARTED", dynamic_id=n.dynamic_id,
                             node_group=n.cfg.node_group or 0)
                  for n in cluster.data_nodes.values())
    sample = NdbinfoSample(taken_at=1.0, ndb_version=None, membership=rows,
                           read_at=(("membership", 1.0),))
    snap = ClusterSnapshot(taken_at=1.0, wall=3000.0, interval=1.0,
                           sources=(SourceStatus("ndbinfo", SourceState.CONNECTED),),
                           nodes=nodes, ndbinfo=sample, events=tuple(events))
    c0 = time.thread_time()
    for _ in range(rounds):
        line = headline(membership(snap))
    model_ms = (time.thread_time() - c0) / rounds * 1000
    return {"rows": len(rows), "events": len(events), "parse_ms": parse_ms,
            "model_ms": model_ms, "line": line}


if __name__ == "__main__":
    print(asyncio.run(membership_read(15)))
    print(membership_model(50))
