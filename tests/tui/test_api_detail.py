"""The Nodes view's detail panel for an API node, and the ``processes`` of ``--once``: on
made-up snapshots (get status as server-rules.md gives it, ndbinfo.processes rows as
ndbinfo.md §2 describes them), and end to end against the simulator."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.ndbinfo import ApiProcess, NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.report.processes import processes_json, processes_text
from ndbtop.tui.views.api_detail import api_detail

V = (8 << 16) | (4 << 8) | 3
NODES = (
    NodeStatus(2, "NDB", "STARTED", version=V),
    NodeStatus(50, "API", "CONNECTED", version=V, connect_count=3, address="10.0.0.9"),
    NodeStatus(51, "API", "CONNECTED", version=V, connect_count=1, address="10.0.0.8"),
    NodeStatus(52, "API", "NO_CONTACT"),
)
ROWS = (ApiProcess(50, "mysql-8.4.3 ndb-8.4.3", 6001, None, "mysqld",
                   "mysql://10.0.0.9:3306"),)


def snapshot(read: bool, sql: bool = True) -> ClusterSnapshot:
    sample = NdbinfoSample(taken_at=10.0, ndb_version=V, processes=ROWS if read else (),
                           read_at=(("processes", 9.0),) if read else ())
    state = SourceState.CONNECTED if sql else SourceState.UNAVAILABLE
    return ClusterSnapshot(taken_at=10.0, wall=10.0, interval=1.0,
                           sources=(SourceStatus("ndbinfo", state),), nodes=NODES,
                           ndbinfo=sample)


def test_a_sql_node_shows_its_process_pid_and_service() -> None:
    text = api_detail(snapshot(True), NODES[1]).plain
    assert text == ("SQL node 50  10.0.0.9  mysql-8.4.3 ndb-8.4.3  connects 3\n"
                    "process mysqld pid 6001  service mysql://10.0.0.9:3306")


def test_what_the_panel_says_without_a_process_row() -> None:
    assert api_detail(snapshot(True), NODES[2]).plain.endswith(
        "ndbinfo.processes has no row for this node")
    assert api_detail(snapshot(False), NODES[2]).plain.endswith(
        "reading ndbinfo.processes at the next refresh")
    assert api_detail(snapshot(True, sql=False), NODES[1]).plain == (
        "API node 50  10.0.0.9  8.4.3  connects 3\n"
        "process name and pid: ndbinfo.processes needs a SQL node")
    assert api_detail(snapshot(True), NODES[3]).plain == "API node 52: not connected (NO_CONTACT)"


def test_once_lists_every_connected_api_node() -> None:
    listed = processes_json(snapshot(True))
    assert [p["node_id"] for p in listed] == [50, 51]
    assert listed[0] == {"node_id": 50, "kind": "SQL", "address": "10.0.0.9",
                         "version": "mysql-8.4.3 ndb-8.4.3", "process_name": "mysqld",
                         "pid": 6001, "angel_pid": None, "service_uri": "mysql://10.0.0.9:3306",
                         "connect_count": 3}
    assert listed[1]["process_name"] is None and listed[1]["version"] == "8.4.3"
    assert "not read" in processes_text(snapshot(False))[1]


def test_once_json_has_the_simulated_processes(threaded_sim: Callable[..., Any],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("threads", speed=1e-6, sql=True)
    code = main(["--once", "--json", "-c", ts.connectstring, "--mysql-host", "127.0.0.1",
                 "--mysql-port", str(ts.sim.sql_port), "--mysql-user", "root", "--no-host",
                 "--interval", "0.2"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    sql = [p for p in report["processes"] if p["kind"] == "SQL"]
    assert len(sql) == 1 and sql[0]["process_name"] == "mysqld"
    assert sql[0]["service_uri"].startswith("mysql://") and sql[0]["pid"]
    ids = {n["node_id"] for n in report["nodes"] if n["type"] == "API"
           and n["status"] == "CONNECTED"}
    assert {p["node_id"] for p in report["processes"]} == ids


async def test_the_live_view_reads_processes_only_while_an_api_node_is_detailed(tui) -> None:
    async with tui("threads") as t:
        hub = t.app.hub
        reader = hub.sql.reader
        sql_node = t.sim.cluster.config.sql_node_id
        assert "processes" not in reader.wanted
        for _ in range(12):
            if t.app.current_view.selected_node() == sql_node:
                break
            await t.press("down")
        assert t.app.current_view.selected_node() == sql_node
        await t.until_shown(f"process mysqld pid {20000 + 100 * sql_node}")
        assert "processes" in reader.wanted
        assert "service mysql://" in t.text()
        for _ in range(12):
            if t.app.current_view.selected_node() == 2:
                break
            await t.press("up")
        await t.until(lambda: "processes" not in reader.wanted, "processes no longer wanted")
