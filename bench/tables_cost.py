"""What one read of memory per table costs on ``max``: the client's CPU, the rows the SQL
node sends and the rows it scans, against reading ``memory_per_fragment`` whole.

``python bench/tables_cost.py [SCENARIO] [ROUNDS]`` runs the simulator in its own process
(so this process's CPU is the client's alone: the driver's decoding of the result and the
parsing into tables) and prints JSON.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

from harness import SimProcess


def _measure(port: int, sql: str, parse: Any, rounds: int) -> dict[str, Any]:
    import pymysql

    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           database="ndbinfo")
    try:
        with conn.cursor() as cur:
            cur.execute("SET SESSION group_concat_max_len = 67108864")
            cpus, walls, rows, size = [], [], 0, 0
            for _ in range(rounds):
                c0, w0 = time.process_time(), time.perf_counter()
                cur.execute(sql)
                fetched = cur.fetchall()
                parsed = parse(fetched)
                cpus.append(time.process_time() - c0)
                walls.append(time.perf_counter() - w0)
                rows = len(fetched)
                size = sum(len(str(v)) for r in fetched for v in r)
            return {"rows_sent": rows, "result_chars": size, "parsed": len(parsed),
                    "client_cpu_ms_median": round(statistics.median(cpus) * 1000, 1),
                    "wall_ms_median": round(statistics.median(walls) * 1000, 1)}
    finally:
        conn.close()


def _scanned(port: int) -> dict[str, int]:
    import pymysql

    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*), COUNT(DISTINCT COALESCE(parent_fq_name, fq_name)),"
                        " COUNT(DISTINCT node_id) FROM ndbinfo.memory_per_fragment")
            fragments, tables, nodes = cur.fetchone()
            return {"fragment_rows_scanned": int(fragments), "tables": int(tables),
                    "data_nodes": int(nodes)}
    finally:
        conn.close()


def tables_cost(scenario: str, rounds: int) -> dict[str, Any]:
    """The aggregate ndbtop sends, and ``SELECT *`` of the view for comparison."""
    from ndbtop.ndbinfo.queries_triage import TABLE_MEMORY
    from ndbtop.ndbinfo.rows_tables import parse_table_memory

    sim = SimProcess(scenario)
    try:
        # Let the data nodes start and take their DataMemory.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _scanned(sim.sql_port)["fragment_rows_scanned"] == 0:
            time.sleep(1)
        out: dict[str, Any] = {"scenario": scenario, **_scanned(sim.sql_port)}
        out["top_50_aggregate"] = _measure(sim.sql_port, TABLE_MEMORY.sql, parse_table_memory,
                                           rounds)
        out["whole_view"] = _measure(sim.sql_port, "SELECT * FROM ndbinfo.memory_per_fragment",
                                     lambda rows: rows, max(rounds // 2, 1))
        return out
    finally:
        sim.stop()


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "max"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    print(json.dumps(tables_cost(name, count), indent=2))
