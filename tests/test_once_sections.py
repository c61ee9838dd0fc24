"""`--once --section`: a report of the named sections only, and the on-demand ndbinfo panels
read only for the sections asked for."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.ndbinfo.collector import MAX_ON_DEMAND_PER_SAMPLE
from ndbtop.ndbinfo.queries_triage import ON_DEMAND
from ndbtop.report.as_text import sources_text
from ndbtop.report.once_sections import CORE_KEYS
from ndbtop.report.section_names import CORE, TRIAGE_NAMES, parse_sections, section_names
from ndbtop.report.sections import TRIAGE, bundle_panels


def once(ts: Any, *extra: str) -> list[str]:
    return ["--once", "-c", ts.connectstring, "--mysql-host", "127.0.0.1", "--mysql-port",
            str(ts.sim.sql_port), "--mysql-user", "root", "--no-host", "--interval", "0.2",
            *extra]


def test_names_are_checked_and_put_in_report_order() -> None:
    assert tuple(CORE_KEYS) == CORE
    # The names the command line knows without importing the reports are those of the
    # sections the reports give.
    assert tuple(s.name for s in TRIAGE) == TRIAGE_NAMES
    assert section_names() == (*CORE, *TRIAGE_NAMES)
    assert parse_sections(" processes, nodes,processes") == ("nodes", "processes")
    with pytest.raises(ValueError, match="unknown section 'memory'"):
        parse_sections("nodes,memory")
    with pytest.raises(ValueError, match="no section"):
        parse_sections(" , ")


def test_a_bad_name_or_no_once_is_a_one_line_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--once", "--section", "nodes,bogus"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown section 'bogus'" in err and "Traceback" not in err
    assert main(["demo", "--section", "nodes"]) == 2
    assert "--section needs --once" in capsys.readouterr().err


def test_json_holds_only_the_named_sections(threaded_sim: Callable[..., Any],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("threads", speed=1e-6, sql=True)
    assert main(once(ts, "--json", "--section", "processes")) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"context", "time", "mgm", "sources", "processes"}
    sql_node = ts.sim.cluster.config.sql_node_id
    assert any(p["node_id"] == sql_node and p["process_name"] == "mysqld"
               for p in report["processes"])

    assert main(once(ts, "--json", "--section", "findings,nodes")) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"context", "time", "mgm", "sources", "summary", "nodes",
                           "start_timelines", "findings"}


def test_text_holds_the_heading_the_sections_and_the_sources(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("threads", speed=1e-6, sql=True)
    assert main(once(ts, "--section", "processes")) == 0
    out = capsys.readouterr().out
    assert out.startswith("Cluster at ")
    assert "Connected API and SQL nodes:" in out and "mysqld" in out
    assert "Sources:" in out
    assert "Data nodes started" not in out and "Findings" not in out


def test_panels_are_the_union_of_their_owners_and_none_once_released() -> None:
    hub = Hub(parse_connectstring("127.0.0.1:1"), RealClock(), 1.0)
    hub.want_panels("view", ("tables",))
    hub.want_panels("once", ("processes", "tables"))
    assert hub.panels_wanted() == {"processes", "tables"}
    hub.want_panels("once", ())
    assert hub.panels_wanted() == {"tables"}
    hub.want_panels("view", [])
    assert hub.panels_wanted() == frozenset()


def test_a_bundle_reads_every_triage_panel_in_one_sample() -> None:
    # The bundle asks for every section's panels: none may be left for a later sample.
    assert bundle_panels() == frozenset(ON_DEMAND)
    assert len(ON_DEMAND) <= MAX_ON_DEMAND_PER_SAMPLE


def test_once_reads_each_triage_table_once(threaded_sim: Callable[..., Any],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Two samples for the rates; the triage tables (no rate) only in the second.
    ts = threaded_sim("lock-chain", speed=1e-6, sql=True)
    assert main(once(ts, "--json", "--section", "locks,membership,processes")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["transactions"] and report["membership"]["president"] is not None
    stats = ts.sim.sql_server.stats.tables
    # One read each; the lock waits' statement names cluster_locks twice (its waiters and
    # the locks they wait for), each a scan.
    once_each = {"cluster_transactions": 1, "cluster_locks": 2, "membership": 1, "processes": 1}
    assert {table: stats[table].queries for table in once_each} == once_each


def test_a_source_turned_off_says_why_once() -> None:
    hub = Hub(parse_connectstring("127.0.0.1:1"), RealClock(), 1.0)
    ndbinfo = next(s for s in hub.source_statuses() if s.name == "ndbinfo")
    snap = ClusterSnapshot(taken_at=1.0, wall=1.0, interval=1.0, sources=(ndbinfo,))
    assert sources_text(snap)[2:] == ["  ndbinfo  disabled (--no-sql)"]


def test_the_sources_states_line_up_under_the_longest_name() -> None:
    sources = (SourceStatus("mgm", SourceState.CONNECTED, last_ok=1.0),
               SourceStatus("cluster-log", SourceState.DISABLED,
                            error="management node 1: on 10.0.0.1: no --ssh connection to it"))
    snap = ClusterSnapshot(taken_at=1.0, wall=1.0, interval=1.0, sources=sources)
    assert sources_text(snap)[2:] == [
        "  mgm         connected, 0.0 s old",
        "  cluster-log disabled (management node 1: on 10.0.0.1: no --ssh connection to it)"]
