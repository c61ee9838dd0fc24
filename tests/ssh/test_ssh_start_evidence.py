"""Attaching to a start already under way: what ndbtop did not see it says it did not see,
and with ``--ssh`` the data node's host tells when the start (and its redo log) began."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import run_cli
from tests.ssh.conftest import (
    PrivateSshd,
    StandIn,
    s1_with_node_10_creating_its_redo_log,
)


def _epoch(iso: str) -> float:
    return dt.datetime.fromisoformat(iso).timestamp()


def test_once_attached_to_a_start_under_way_reports_a_lower_bound(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, standins: list[StandIn],
    tmp_path: Path,
) -> None:
    # S1 600 s in: both nodes have been initialising their redo log for minutes; ndbtop
    # sees them for the first time, without events or a host.
    sim = s1_with_node_10_creating_its_redo_log(threaded_sim, standins, tmp_path)
    argv = ["--once", "--no-sql", "--no-host", "--interval", "0.3", "-c", sim.connectstring]
    status, out, err = run_cli(capsys, [*argv, "--json"])
    assert (status, err) == (0, "")
    timelines = {t["node_id"]: t for t in json.loads(out)["start_timelines"]}
    for node_id in (10, 11):
        t = timelines[node_id]
        assert t["in_phase_from"] == "first_seen"
        assert t["start_began_at"] is None and t["start_began_from"] is None
        # A time not measured from the phase's beginning is a lower bound, in its own field.
        assert t["in_phase_s"] is None and 0 <= t["in_phase_at_least_s"] < 5
        assert t["elapsed_s"] is None and t["elapsed_at_least_s"] is not None
        assert [(c["phase"], c["seconds"]) for c in t["completed"]] == [
            (1, None), (2, None), (3, None)]
    status, out, err = run_cli(capsys, argv)
    assert status == 0
    assert "4 restore or local start (≥" in out
    assert "node 10 in phase 4 since ndbtop connected at " in out


def test_with_ssh_the_host_gives_when_the_start_and_the_redo_log_began(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd,
    standins: list[StandIn], tmp_path: Path,
) -> None:
    sim = s1_with_node_10_creating_its_redo_log(threaded_sim, standins, tmp_path)
    process_start = psutil.Process(standins[0].proc.pid).create_time()
    # The node has been in its phase a while before ndbtop attaches (not a synchronisation:
    # ndbtop's own sight of the node then gives a timer shorter than this).
    time.sleep(3.0)
    status, out, err = run_cli(capsys, [
        "--once", "--json", "--no-sql", "--no-host", "--interval", "0.3", "-c", sim.connectstring,
        "--ssh", "--ssh-config", str(sshd.config),
    ])
    assert (status, err) == (0, "")
    report = json.loads(out)
    timelines = {t["node_id"]: t for t in report["start_timelines"]}
    ten = timelines[10]
    # The worker process's start (btime + /proc/PID/stat field 22, as psutil reads it
    # locally), to the second: never later than the process's start.
    assert ten["start_began_from"] == "host"
    assert process_start - 1.0 <= _epoch(ten["start_began_at"]) <= process_start
    # Its redo log files were born after the process started: the redo phase counts from
    # them, so the timer is exact and longer than ndbtop's own sight of the node.
    assert ten["in_phase_from"] == "host"
    assert ten["in_phase_s"] >= 3.0
    node = next(n for n in report["nodes"] if n["node_id"] == 10)
    assert node["phase"] == "4 redo log init"
    # The stand-in wrote nothing between the host's two readings: no rate to go by, and
    # the estimate says so rather than guess (the phase's beginning is known, though).
    assert node["eta_missing"] == "phase 4 (redo log init): no rate measured, no past start"
    # Node 11's host runs no process of node 11: what ndbtop saw is all it says.
    assert timelines[11]["in_phase_from"] == "first_seen"
    assert timelines[11]["start_began_from"] is None


def test_with_ssh_a_start_attached_mid_way_is_estimated_from_the_hosts_rate(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd,
    standins: list[StandIn], tmp_path: Path,
) -> None:
    # S1 600 s in, no progress reports: node 10's stand-in writes its redo log while ndbtop
    # looks (1 MiB at a time), so the host's two readings give the rate, and the files'
    # birth dates the phase.
    sim = s1_with_node_10_creating_its_redo_log(threaded_sim, standins, tmp_path)
    writing = threading.Event()

    def write() -> None:
        while not writing.wait(0.05):
            standins[0].send("redo 0 5")

    writer = threading.Thread(target=write)
    writer.start()
    try:
        status, out, err = run_cli(capsys, [
            "--once", "--json", "--no-sql", "--no-host", "--interval", "0.5", "-c",
            sim.connectstring, "--ssh", "--ssh-config", str(sshd.config),
        ])
    finally:
        writing.set()
        writer.join(10)
    assert (status, err) == (0, "")
    node = next(n for n in json.loads(out)["nodes"] if n["node_id"] == 10)
    eta = node["eta"]
    assert eta is not None, node.get("eta_missing")
    assert eta["basis"][0] == "redo rate (host)"
    # The host knows when the phase began: nothing is a lower bound, no "attached" note.
    assert not any(b.startswith("attached mid-start") for b in eta["basis"])
    assert eta["basis"][-1] == ("taken for an initial start: it creates its redo log (its "
                                "host), no data node started")
    assert 0 < eta["low"] <= eta["seconds"] <= eta["high"]
