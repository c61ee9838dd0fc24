"""`ndbtop --once --json` with a SQL node: the same numbers a hand-written query returns."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pymysql
import pytest

from ndbtop.cli import main


def query(port: int, sql: str) -> list[tuple[Any, ...]]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           database="ndbinfo")
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def test_once_json_matches_hand_written_sql(threaded_sim: Callable[..., Any],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # Simulated time practically stands still: the report and the queries see one moment.
    ts = threaded_sim("disk-buffer", speed=1e-6, sql=True)
    port = ts.sim.sql_port
    code = main(["--once", "--json", "-c", ts.connectstring, "--mysql-host", "127.0.0.1",
                 "--mysql-port", str(port), "--mysql-user", "root", "--no-host",
                 "--interval", "0.2"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    sources = {s["name"]: s for s in report["sources"]}
    assert sources["ndbinfo"]["state"] == "connected", sources["ndbinfo"]

    cpu = {(n, t): (u, s_) for n, t, u, s_ in query(
        port, "SELECT c.node_id, c.thr_no, c.OS_user, c.OS_system FROM cpustat c "
              "JOIN threads t ON c.node_id = t.node_id AND c.thr_no = t.thr_no")}
    got = {(t["node_id"], t["thr_no"]): (t["os_user_pct"], t["os_system_pct"])
           for t in report["threads"]}
    assert got == cpu and len(got) == 14

    ratios = {n: float(r) for n, r in query(
        port, "SELECT node_id, 100*SUM(page_requests_direct_return)/"
              "(SUM(page_requests_direct_return)+SUM(page_requests_wait_io)) "
              "FROM diskpagebuffer GROUP BY node_id")}
    for d in report["disk_page_buffer"]:
        assert d["hit_ratio_pct"] == pytest.approx(ratios[d["node_id"]], abs=0.01)
    assert {d["node_id"] for d in report["disk_page_buffer"]} == {3, 4}
    assert 93.0 < ratios[3] < 94.0

    memory = {(n, m): int(u) for n, m, u in query(
        port, "SELECT node_id, memory_type, used FROM memoryusage")}
    assert {(m["node_id"], m["memory_type"]): m["used"] for m in report["memory"]} == memory
    redo = query(port, "SELECT node_id, log_part, used FROM logspaces WHERE log_type='REDO'")
    assert {(r["node_id"], r["log_part"]): r["used"] for r in report["redo_log"]} == {
        (n, p): int(u) for n, p, u in redo}
    links = query(port, "SELECT node_id, remote_node_id, status FROM transporters")
    api = {n["node_id"] for n in report["nodes"] if n["type"] == "API"}
    for node in report["links"]:
        own = [(r, s) for n, r, s in links if n == node["node_id"] and r != n]
        assert node["not_connected"] == sorted(r for r, s in own if s != "CONNECTED")
        assert sum(node["configured"].values()) == len(own)
        assert node["connected"]["API"] == sum(1 for r, s in own if r in api and s == "CONNECTED")
        assert node["not_connected_while_up"] == node["overloaded"] == node["slowdown"] == []
    assert {n["node_id"] for n in report["links"]} == {3, 4}
    counted = dict(query(
        port, "SELECT node_id, SUM(val) FROM counters WHERE counter_name = 'TRANSACTIONS'"
              " GROUP BY node_id"))
    assert {a["node_id"]: a["transactions"] for a in report["activity"]} == {
        n: int(v) for n, v in counted.items()}
    # the counters are read at connect and again a refresh later: a rate over that time
    # (of nothing: simulated time stands still)
    assert all(a["transactions_per_s"] == 0.0 and a["over_s"] > 0 for a in report["activity"])
