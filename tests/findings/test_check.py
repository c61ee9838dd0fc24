"""``ndbtop check``: one line with perfdata and the monitoring-plugin exit codes
(0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)."""

from __future__ import annotations

import dataclasses
import socket
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.cli.check import coverage_text
from ndbtop.findings import Evidence, Finding, Severity, Threshold
from ndbtop.model.hosts import HostReport
from ndbtop.report.findings import check_line
from ndbtop.sim.scenarios import build_scenario
from tests.findings.test_rules_server_words import snap


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(["check", *argv])
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def test_a_hot_thread_is_a_warning_and_ignoring_it_is_ok(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any,
) -> None:
    sim = threaded_sim("threads", speed=1.0, sql=True)
    argv = ("-c", sim.connectstring, "--mysql-host", "127.0.0.1", "--mysql-port",
            str(sim.sim.sql_port), "--mysql-user", "root", "--no-host", "--interval", "0.5")
    status, out, err = _run(capsys, *argv)
    assert (status, err) == (1, "")
    text, perf = out.rstrip("\n").split(" | ")
    assert text.startswith("NDB WARNING - 1 warning: thread_saturated: node 2 ldm thread 3 ")
    assert perf == "critical=0;;1 warning=1;1 info=0 data_nodes_started=2;;;0;2"
    status, out, _ = _run(capsys, *argv, "--ignore", "thread_saturated")
    text, perf = out.rstrip("\n").split(" | ")
    assert status == 0 and perf.startswith("critical=0;;1 warning=0;1 ")
    # An OK names what it could not read and the rules that left unjudged: without the
    # cluster log the rules on warnings. The rules on growth between two readings of a
    # table are judged: its second sample reads those tables again.
    assert text == (
        "NDB OK - data nodes started 2/2; cluster-log not read (management node 1: on "
        "10.0.0.1: no --ssh connection to it); not judged (no cluster log read, no event "
        "heard): gcp_save_lag, gcp_commit_lag, gcp_stop, lcp_stalled, missed_heartbeat, "
        "node_failure_handling_slow, no_arbitrator, start_waiting_for_nodes, "
        "sql_node_disconnected_lagging")


def test_unknown_when_the_management_server_cannot_be_reached(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    status, out, _ = _run(capsys, "-c", f"127.0.0.1:{port}", "--no-sql", "--no-host")
    assert status == 3 and out.startswith("NDB UNKNOWN - ") and out.count("\n") == 1


def test_an_unknown_finding_id_is_unknown_not_critical(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(capsys, "--ignore", "thread_saturated,no_such_rule", "--no-sql")
    assert status == 3
    assert out.startswith("NDB UNKNOWN - --ignore: no finding 'no_such_rule' (ids: ")


def test_critical_and_warning_only() -> None:
    crit = Finding("node_group_down", Severity.CRITICAL, "node group 0 has no started node",
                   (Evidence("g", "0 of 2", "get status"),), Threshold("0", "server"), "start")
    code, line = check_line(snap(), (crit,), warning_only=False)
    assert code == 2 and line.startswith("NDB CRITICAL - 1 critical: node_group_down: ")
    code, line = check_line(snap(), (crit,), warning_only=True)
    assert code == 1 and line.startswith("NDB WARNING - ")
    info = Finding("mixed_versions", Severity.INFO, "v", (), Threshold("2", "ndbtop"), "a")
    code, line = check_line(snap(), (info,), warning_only=False)
    assert code == 0 and line.startswith("NDB OK - data nodes started 4/4 | ")
    assert "info=1" in line


def test_a_required_source_not_read_is_unknown(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any,
) -> None:
    sim = threaded_sim("threads", speed=1.0)
    argv = ("-c", sim.connectstring, "--no-sql", "--no-host", "--interval", "0.3")
    status, out, _ = _run(capsys, *argv, "--require", "sql,cluster-log")
    assert status == 3
    assert out == ("NDB UNKNOWN - required source not read: sql (--no-sql); cluster-log "
                   "(management node 1: on 10.0.0.1: no --ssh connection to it)\n")
    status, out, _ = _run(capsys, *argv, "--require", "ssh")
    assert (status, out) == (3, "NDB UNKNOWN - required source not read: ssh (no --ssh)\n")
    status, out, _ = _run(capsys, *argv, "--require", "disk")
    assert status == 3 and out.startswith("NDB UNKNOWN - --require: no source 'disk' ")


def test_every_data_node_down_is_critical(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any,
) -> None:
    # Every data node stopped with 2305 at 10 minutes (arbitrator-lost).
    cluster = build_scenario("arbitrator-lost")
    cluster.advance_to(700.0)
    sim = threaded_sim(cluster, speed=1.0)
    status, out, _ = _run(capsys, "-c", sim.connectstring, "--no-sql", "--no-host",
                          "--interval", "0.3")
    assert status == 2
    assert out.startswith("NDB CRITICAL - 1 critical: cluster_down: no data node is started: "
                          "the cluster serves no data (no data node is starting)")
    assert "data_nodes_started=0;;;0;4" in out


def test_memory_without_a_sql_node_from_the_data_nodes_report(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any,
) -> None:
    # memory-full: DataMemory in the 90% band at 100 s on both nodes; no SQL node.
    cluster = build_scenario("memory-full")
    cluster.advance_to(100.0)
    sim = threaded_sim(cluster, speed=0.05)
    status, out, _ = _run(capsys, "-c", sim.connectstring, "--no-sql", "--no-host",
                          "--interval", "0.3")
    assert status == 1, out
    assert out.startswith("NDB WARNING - 2 warnings: memory_high: node 2 Data memory 92% "
                          "used (band 90%): inserts can fail with 827 from about 95% "
                          "(MinFreePct 5% is kept for restarts); memory_high: node 3 Data "
                          "memory 92% used ")
    # Judged from the report: memory_high is not among the rules ndbinfo's absence leaves.
    assert "; not judged (no ndbinfo): redo_part_filling, " in out


def test_a_replica_that_does_not_answer_is_never_an_all_clear() -> None:
    # The source's SQL node answers, the replica's does not: no channel is seen, so the
    # replication rules judged nothing; check names it and --require replication is UNKNOWN.
    from ndbtop.cli.check import coverage_text, missing
    from ndbtop.model.replication import Endpoint, ReplicationState
    from ndbtop.model.sources import SourceState, SourceStatus
    from tests.findings.test_rules_server_words import NOW, UP, WALL

    state = ReplicationState((Endpoint("10.0.1.5:3306", "prod", read_at=WALL, server_id=11),
                              Endpoint("10.0.2.5:3306", "dr", error="connection refused")),
                             (), 60.0, WALL)
    read = SourceStatus("replication", SourceState.CONNECTED, last_ok=NOW)
    s = snap(replication=state, sources=(*UP, read))
    text = coverage_text(s, None)
    assert "replication not read (no answer from 10.0.2.5:3306 (dr))" in text
    assert ("not judged (no answer from 10.0.2.5:3306 (dr): its channels): "
            "replication_stopped, replication_lag") in text
    assert missing(s, ("replication",), False) == [
        "replication (no answer from 10.0.2.5:3306 (dr))"]
    answered = dataclasses.replace(state, endpoints=state.endpoints[:1])
    fine = snap(replication=answered, sources=(*UP, read))
    assert missing(fine, ("replication",), False) == []
    assert "replication" not in coverage_text(fine, None)
    assert missing(snap(), ("replication",), False) == ["replication (no replica named)"]


def test_data_node_hosts_ssh_could_not_read_are_named() -> None:
    # --ssh given, its hosts refusing: the line says so, as it says it for ndbinfo and the
    # cluster log (a WARNING or OK must not hide what was not looked at).
    refused = "ssh: connect to host 127.0.2.1 port 1: Connection refused"
    hosts = (HostReport("127.0.2.1", "ssh", (2, 4), "error", error=refused),
             HostReport("127.0.2.2", "ssh", (3, 5), "error", error=refused),
             HostReport("127.0.2.3", "ssh", (6,), "ok"))
    text = coverage_text(snap(hosts=hosts), 0.0)
    assert f"ssh not read (127.0.2.1, 127.0.2.2: {refused})" in text
    assert "ssh not read" not in coverage_text(snap(hosts=hosts[2:]), 0.0)
