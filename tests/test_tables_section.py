"""The ``tables`` section: ``--once --json --section tables`` and the bundle's tables.txt
end to end against the simulator, what the report says when there is nothing to show, and
that the plain ``--once`` report does not read ``memory_per_fragment``."""

from __future__ import annotations

import json
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.model.table_memory import TOP_TABLES, TableMemory, TableNodeMemory
from ndbtop.report.sections import triage_section
from ndbtop.report.table_memory import (
    NO_SQL_NODE,
    NO_TABLES,
    NOT_READ,
    READ,
    SQL_NODE_DOWN,
    UNAVAILABLE,
    tables_json,
    tables_state,
    tables_text,
)
from ndbtop.sim.ndbinfo_rows.tables import SKEWED

V = (8 << 16) | (4 << 8) | 3
GIB = 1 << 30


def _sql(ts: Any) -> list[str]:
    return ["-c", ts.connectstring, "--mysql-host", "127.0.0.1", "--mysql-port",
            str(ts.sim.sql_port), "--mysql-user", "root", "--no-host"]


def test_once_json_section_tables_from_the_simulator(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("node-down", speed=1e-6, sql=True)
    assert main(["--once", "--json", "--section", "tables", "--interval", "0.2",
                 *_sql(ts)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"context", "time", "mgm", "sources", "tables", "tables_state",
                           "data_memory_headroom"}
    assert report["tables_state"] == READ
    tables = report["tables"]
    assert 0 < len(tables) <= TOP_TABLES
    assert [t["bytes"] for t in tables] == sorted((t["bytes"] for t in tables), reverse=True)
    for t in tables:
        assert t["bytes"] == sum(t["per_node"].values())
        assert t["bytes"] == t["fixed_bytes"] + t["var_bytes"] + t["hash_index_bytes"]
        assert t["in_use_bytes"] <= t["bytes"]
    skewed = next(t for t in tables if f"{t['schema']}/def/{t['table']}" == SKEWED)
    assert skewed["skew"] > 2 and skewed["largest_fragment_bytes"] > 2 * skewed[
        "mean_fragment_bytes"]
    # Node 3 is down (no rows); the node group holding the skewed fragment fills first.
    head = report["data_memory_headroom"]
    assert [n["node_id"] for n in head["nodes"]] == [2, 4, 5]
    assert head["fills_first"] in (4, 5)
    assert skewed["per_node"][str(head["fills_first"])] == max(skewed["per_node"].values())


def test_once_text_and_plain_once_without_it(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("node-down", speed=1e-6, sql=True)
    assert main(["--once", "--section", "tables", "--interval", "0.2", *_sql(ts)]) == 0
    out = capsys.readouterr().out
    assert "Memory per table (the 50 largest by DataMemory allocated" in out
    assert "fills first: node 4" in out or "fills first: node 5" in out
    assert "order_events" in out
    scans = ts.sim.sql_server.stats.tables["memory_per_fragment"].queries
    assert scans >= 1
    assert main(["--once", "--json", "--interval", "0.2", *_sql(ts)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "tables" not in report and "processes" in report
    # The plain report does not read it: no scan more.
    assert ts.sim.sql_server.stats.tables["memory_per_fragment"].queries == scans


def test_the_bundle_holds_tables_txt(threaded_sim: Callable[..., Any], tmp_path: Path) -> None:
    ts = threaded_sim("node-down", speed=1e-6, sql=True)
    bundle = tmp_path / "b.tar.gz"
    assert main(["report", "--bundle", str(bundle), "--events-seconds", "0", *_sql(ts)]) == 0
    with tarfile.open(bundle) as tar:
        text = tar.extractfile("ndbtop-bundle/tables.txt").read().decode()  # type: ignore[union-attr]
        manifest = tar.extractfile("ndbtop-bundle/MANIFEST.txt").read().decode()  # type: ignore[union-attr]
    assert text.startswith("Memory per table")
    assert "order_events" in text and "DataMemory left: node 2 " in text
    assert "tables.txt: the 50 largest tables by DataMemory allocated" in manifest


def _snap(state: SourceState | None, *, read: bool = False, tables: tuple[TableMemory, ...] = (),
          unavailable: tuple[tuple[str, str], ...] = ()) -> ClusterSnapshot:
    memory = (MemoryUse(1, "Data memory", 3 * GIB, 0, 4 * GIB, 0),
              MemoryUse(2, "Data memory", 1 * GIB, 0, 4 * GIB, 0),
              MemoryUse(2, "Long message buffer", 1, 0, 2, 0))
    sample = NdbinfoSample(taken_at=10.0, ndb_version=V, tables=tables, memory=memory,
                           read_at=(("tables", 9.0),) if read else (), unavailable=unavailable)
    sources = () if state is None else (SourceStatus("ndbinfo", state, "root@10.0.0.9:3306",
                                                     error="refused"),)
    return ClusterSnapshot(taken_at=10.0, wall=10.0, interval=1.0, sources=sources,
                           ndbinfo=sample)


ONE = TableMemory("db/def/t1", (TableNodeMemory(1, 10, 2, 0, 0, 6, ((0, 16),)),))


@pytest.mark.parametrize(("snap", "state", "words"), [
    (_snap(None), NO_SQL_NODE, "no SQL node"),
    (_snap(SourceState.DISABLED), NO_SQL_NODE, "no SQL node"),
    (_snap(SourceState.RETRYING), SQL_NODE_DOWN, "root@10.0.0.9:3306 is not answering: refused"),
    (_snap(SourceState.CONNECTED), NOT_READ, "not read yet"),
    (_snap(SourceState.CONNECTED, read=True), NO_TABLES, "no tables"),
    (_snap(SourceState.CONNECTED, unavailable=(("tables", "SELECT command denied"),)),
     UNAVAILABLE, "could not be read: SELECT command denied"),
    (_snap(SourceState.CONNECTED, read=True, tables=(ONE,)), READ, ""),
])
def test_what_the_report_says_for_each_state(snap: ClusterSnapshot, state: str,
                                             words: str) -> None:
    assert tables_state(snap) == (state, tables_state(snap)[1])
    assert words in tables_state(snap)[1]
    out = tables_json(snap)
    assert out["tables_state"] == state
    assert out["tables"] == ([] if state != READ else [{
        "schema": "db", "table": "t1", "fq_name": "db/def/t1", "bytes": 16, "in_use_bytes": 14,
        "fixed_bytes": 10, "var_bytes": 0, "hash_index_bytes": 6, "per_node": {"1": 16},
        "fragments": 1, "largest_fragment_bytes": 16,
        "largest_fragment": {"node_id": 1, "fragment_num": 0}, "mean_fragment_bytes": 16,
        "skew": 1.0}])
    text = tables_text(snap)
    assert words in text[1]
    if state in (NO_SQL_NODE, SQL_NODE_DOWN):
        # The headroom comes from the live sample only.
        assert out["data_memory_headroom"] == {"nodes": [], "fills_first": None}
        assert text[2] == "DataMemory headroom: memoryusage not read"
    else:
        assert out["data_memory_headroom"]["fills_first"] == 1
        assert text[2] == ("DataMemory left: node 1 1.0 GiB of 4.0 GiB (75.0% used), "
                           "node 2 3.0 GiB of 4.0 GiB (25.0% used); fills first: node 1")


def test_the_section_is_read_only_when_asked() -> None:
    section = triage_section("tables")
    assert section is not None
    assert section.panels == ("tables",) and not section.default
    assert section.bundle_file == "tables.txt"
