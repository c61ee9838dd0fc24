"""``ndbtop rolling-restart`` and its gate from the command line: the dry run lists the
findings that would hold step 1 now, a run without anyone to ask waits up to --gate-wait
and aborts, ``--json`` reports the gate, and on a terminal skipping it takes the phrase and
is audited. The SQL-node options reach the hub beside the run (redo space, restart_info)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from ndbtop.ops.rolling_gate import GATE_PHRASE
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.conftest import run_cli
from tests.ops.test_rolling_interrupt import LIMIT, Terminal, audit_records


class Typing(Terminal):
    """The terminal, and lines typed on it."""

    def write(self, line: str) -> None:
        os.write(self.fd, line.encode())

FROZEN = 1e-6
"""Simulated seconds per real second: the cluster stands where the test put it."""


def filling() -> SimCluster:
    """``redo-filling`` 70 s in: node 2's redo log part 0 past 80% used."""
    cluster = build_scenario("redo-filling", ScenarioOptions(seed=1))
    cluster.advance_to(70.0)
    return cluster


def sql_options(sim: Any) -> list[str]:
    assert sim.sim is not None and sim.sim.sql_port is not None
    return ["--mysql-host", "127.0.0.1", "--mysql-port", str(sim.sim.sql_port),
            "--mysql-user", "root"]


def test_the_dry_run_lists_the_findings_that_would_hold_step_1_and_exits_1(
    threaded_sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(filling(), speed=FROZEN, sql=True)
    status, out, err = run_cli(capsys, ["rolling-restart", "-c", sim.connectstring,
                                        "--dry-run", *sql_options(sim)])
    assert status == 1
    lines = out.splitlines()
    at = lines.index("gate: step 1 would wait now for 1 finding(s):")
    assert lines[at - 1] == "pre-flight: ok"
    # One reading gives no fill rate: judged on the worst case, the node's redo writes of
    # the last minute all going into the part (410 within 2 minutes: critical).
    assert lines[at + 1].startswith("  critical redo_part_filling: node 2 redo log part 0 8")
    assert "at the soonest (filling at most at the node's redo rate" in lines[at + 1]
    # Read from a SQL node: restart_info is one of the sources the estimate looked in.
    assert "takes: not estimated, no history: no earlier start of node 2 (start history, " \
           "restart_info)" in lines
    assert lines[-1] == ("verdict: allowed, but step 1 would wait at the gate (above); dry run, "
                         "nothing sent")
    assert err == "ndbtop: step 1 would wait at the gate for redo_part_filling\n"
    # The same rule with --json: the plan alone on stdout, with the gate.
    status, out, err = run_cli(capsys, ["rolling-restart", "-c", sim.connectstring,
                                        "--dry-run", "--json", *sql_options(sim)])
    assert status == 1 and err == "ndbtop: step 1 would wait at the gate for redo_part_filling\n"
    [plan] = [json.loads(line) for line in out.splitlines()]
    assert plan["event"] == "plan" and plan["gate"]["held"] is True

    # --no-sql: redo space is not judged, and said so; nothing else holds step 1.
    status, out, err = run_cli(capsys, ["rolling-restart", "-c", sim.connectstring,
                                        "--dry-run", "--no-sql"])
    assert (status, err) == (0, "")
    assert "gate: no finding holds step 1 now\n" in out
    assert "gate: redo space is not judged (--no-sql; --mysql-host names a SQL node)\n" in out
    assert "(start history)\n" in out


def test_without_anyone_to_ask_the_run_waits_up_to_gate_wait_then_aborts(
    threaded_sim: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(filling(), speed=FROZEN, sql=True)
    audit = tmp_path / "audit.log"
    status, out, err = run_cli(capsys, ["rolling-restart", "-c", sim.connectstring, "--yes",
                                        "--gate-wait", "0", "--audit-log", str(audit),
                                        *sql_options(sim)])
    assert status == 1
    assert "    gate: step 1 (node 2) waits for:\n      critical redo_part_filling: " in out
    assert "    waiting up to 0 s for them to clear (--gate-wait), then aborting\n" in out
    assert ("    rolling restart: no ETA: no step finished in this run and no earlier start of "
            "node 2 (start history, restart_info) (paused while the gate holds: the steps "
            "still to go, not the wait)\n") in out
    assert out.endswith("restarted: none; ABORTED (0 s)\n")
    assert err.startswith("ndbtop: rolling restart aborted at node 2 (gate): step 1 (node 2) "
                          "waits for: critical redo_part_filling: node 2 redo log part 0 ")
    assert err.endswith("; still held after 0 s\n") and err.count("\n") == 1
    assert not audit.exists()
    assert {n.stops for n in sim.cluster.data_nodes.values()} == {0}

    status, out, err = run_cli(capsys, ["rolling-restart", "-c", sim.connectstring, "--json",
                                        "--yes", "--gate-wait", "0", "--audit-log", str(audit),
                                        *sql_options(sim)])
    assert status == 1
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["event"] for e in events] == ["plan", "gate", "aborted"]
    plan, gate, aborted = events
    assert plan["gate"]["held"] is True and plan["not_judged"] == []
    assert [f["id"] for f in plan["gate"]["findings"]] == ["redo_part_filling"]
    assert plan["gate"]["findings"][0]["holds_because"] == "critical"
    assert (gate["step"], gate["nodes"], gate["waits_up_to"]) == (1, [2], 0)
    assert gate["gate"]["findings"][0]["evidence"][0]["source"] == "ndbinfo.logspaces"
    assert aborted["stopped_by"]["kind"] == "gate" and aborted["restarted"] == []


def test_on_a_terminal_skipping_the_gate_takes_the_phrase_and_is_audited(
    threaded_sim: Any, tmp_path: Path
) -> None:
    sim = threaded_sim(filling(), speed=FROZEN, sql=True)
    audit = tmp_path / "audit.log"
    term = Typing(["rolling-restart", "-c", sim.connectstring, "--nodes", "3",
                     "--audit-log", str(audit), *sql_options(sim)], tmp_path)
    term.expect("? [y/N] ")
    term.write("y\n")
    term.expect("[w]ait for them to clear, [g]o on: skip the gate, [a]bort? ")
    assert "gate: step 1 (node 3) waits for:" in term.text
    term.write("g\n")
    term.expect(f"type '{GATE_PHRASE}' to restart node 3 now: ")
    term.write(f"{GATE_PHRASE}\n")
    term.expect("[1/1] 3 RESTART")
    deadline = time.monotonic() + LIMIT
    while not any(r["event"] == "sent" for r in audit_records(audit)):
        assert time.monotonic() < deadline, term.text
        assert term._read(0.05), term.text  # what the run prints, while it waits
    term.ctrl_c()  # the frozen cluster never brings node 3 back
    assert term.exit_status() == 130
    records = audit_records(audit)
    events = [r["event"] for r in records]
    assert events[:2] == ["gate skipped", "sent"] and events[-1] == "interrupted"
    skipped = records[0]
    assert (skipped["step"], skipped["nodes"], skipped["confirmed_with"]) == (1, [3], GATE_PHRASE)
    assert [f["id"] for f in skipped["findings"]] == ["redo_part_filling"]


def test_ctrl_c_at_the_gate_says_which_step_it_held(threaded_sim: Any, tmp_path: Path) -> None:
    # Nothing was sent (step 0 of 2): the line and the audit log name the gate of step 1,
    # where the run sat, not only the steps sent.
    sim = threaded_sim(filling(), speed=FROZEN, sql=True)
    audit = tmp_path / "audit.log"
    term = Typing(["rolling-restart", "-c", sim.connectstring, "--audit-log", str(audit),
                   *sql_options(sim)], tmp_path)
    term.expect("? [y/N] ")
    term.write("y\n")
    term.expect("[w]ait for them to clear, [g]o on: skip the gate, [a]bort? ")
    term.ctrl_c()
    assert term.exit_status() == 130
    assert ("rolling restart interrupted at step 0 of 2, held at the gate of step 1; nothing "
            "more was sent") in term.text
    (record,) = audit_records(audit)
    assert record["message"] == "interrupted at step 0 of 2, held at the gate of step 1"


def test_warnings_read_from_the_cluster_log_file_count_before_ndbtop_listened(
    threaded_sim: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # heartbeat, 75 s in: node 4 declared node 5 dead at 55 s, before the run listened. The
    # management server's cluster log file (on this host) holds it: the plan does not say the
    # warnings count only from now.
    cluster = build_scenario("heartbeat", ScenarioOptions(
        seed=1, mgm_host="127.0.0.1", mgm_data_dir=str(tmp_path)))
    cluster.advance_to(75.0)
    sim = threaded_sim(cluster, speed=FROZEN)
    status, out, err = run_cli(capsys, ["rolling-restart", "-c", sim.connectstring,
                                        "--dry-run", "--no-sql", "--force-degraded"])
    assert "  critical missed_heartbeat: data node 5 declared dead (seen by node 4)\n" in out
    assert ("gate: the GCP, LCP and heartbeat warnings count from the management server's "
            "cluster log file, then from the events\n") in out
    assert "count from now" not in out
    assert status == 1 and err.startswith("ndbtop: step 1 would wait at the gate for "
                                          "missed_heartbeat")
