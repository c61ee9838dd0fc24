"""The cost of one read of the Locks view's tables on ``max`` (144 data nodes, 5,000 open
transactions with four row locks each, one in a hundred waiting): the rows the SQL node
sends, and the client's CPU to read, parse and chain them.

The simulated SQL node runs in the same process, on the event loop's thread; the client's
reads run in a worker thread, whose CPU (``time.thread_time``) is the client's alone.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any


def _read_once(collector: Any) -> tuple[float, dict[str, int], int]:
    from ndbtop.model.locks import lock_waits
    from ndbtop.ndbinfo import queries_triage as qt
    from ndbtop.ndbinfo.rows_locks import parse_locks, parse_transactions
    from ndbtop.ndbinfo.statements import Tally

    start = time.thread_time()
    rows: dict[str, int] = {}
    fetched, _ = collector._fetch(qt.TRANSACTIONS, Tally())
    rows["transactions"] = len(fetched)
    parse_transactions(fetched)
    fetched, _ = collector._fetch(qt.LOCKS, Tally())
    rows["locks"] = len(fetched)
    waits = lock_waits(parse_locks(fetched))
    return time.thread_time() - start, rows, len(waits)


async def locks_read(rounds: int) -> dict[str, Any]:
    """Median client CPU and wall time of one read (two statements), with the rows."""
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import MysqlOptions
    from ndbtop.sim.ndbinfo_rows import SimNdbinfo
    from ndbtop.sim.scenarios import build_scenario
    from ndbtop.sim.sqlnode import start_sql_node

    cluster = build_scenario("max")
    cluster.advance(12)
    provider = SimNdbinfo(cluster)
    scanned = {t: len(provider.rows(t)) for t in ("cluster_transactions", "cluster_locks")}
    server = await start_sql_node(provider, port=0)
    collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port, user="root",
                                              password=""))
    try:
        await asyncio.to_thread(collector.connect)
        cpu, wall = [], []
        rows: dict[str, int] = {}
        waits = 0
        for _ in range(rounds):
            w0 = time.perf_counter()
            spent, rows, waits = await asyncio.to_thread(_read_once, collector)
            wall.append(time.perf_counter() - w0)
            cpu.append(spent)
    finally:
        collector.close()
        await server.close()
    return {"data_nodes": len(cluster.config.data_nodes),
            "open_transactions": len(cluster.open_transactions),
            "rows_scanned_per_table_scan": scanned, "rows_sent_to_client": rows,
            "lock_waits": waits, "client_cpu_ms_median": round(statistics.median(cpu) * 1000, 2),
            "wall_ms_median_with_simulated_server": round(statistics.median(wall) * 1000, 1)}


if __name__ == "__main__":
    print(asyncio.run(locks_read(15)))
