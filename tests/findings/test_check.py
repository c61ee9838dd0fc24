"""``ndbtop check``: one line with perfdata and the monitoring-plugin exit codes
(0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.findings import Evidence, Finding, Severity, Threshold
from ndbtop.report.findings import check_line
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
    assert status == 0 and out.startswith("NDB OK - data nodes started 2/2 | ")


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
