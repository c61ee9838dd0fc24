"""A node a failed restart wait left NOT_STARTED, as ``--once`` tells it (server-rules.md §6:
MgmtSrvr::restartNodes sends START_ORD only after both waits succeed; after 5024 or 5025
the node stays NOT_STARTED until ``N START``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.actions.commands import RestartNode
from ndbtop.actions.runner import run_action
from ndbtop.cli import main
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.failed_waits import failed_wait, left_by_failed_waits
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config

WAIT_5025 = ("5025-Time-out due to node shutdown not completing in time: Temporary error: "
             "Timeout expired")
"""The restart reply's result, as Services.cpp prints it (mgm-protocol.md §3.1)."""


def test_failed_wait_reads_the_restart_reply_result() -> None:
    assert failed_wait(WAIT_5025) == 5025
    assert failed_wait("5024-Time-out due to node shutdown not starting in time: Temporary "
                       "error: Timeout expired") == 5024
    assert failed_wait("5028-Node shutdown would cause system crash: Permanent error: "
                       "Application error") is None
    assert failed_wait("Ok, restarted: 1") is None


def test_a_later_start_or_restart_clears_the_node() -> None:
    records = [
        {"event": "sent", "command": "3 RESTART"},
        {"event": "reply", "command": "3 RESTART", "ok": False, "reply": WAIT_5025},
        {"event": "reply", "command": "2 4 RESTART -a", "ok": False, "reply": WAIT_5025},
        {"event": "reply", "command": "4 START", "ok": True, "reply": "Ok"},
        {"event": "reply", "command": "2 START", "ok": False, "reply": "No contact"},
    ]
    assert left_by_failed_waits(records) == {3: 5025, 2: 5025}
    records.append({"event": "reply", "command": "3 RESTART", "ok": True,
                    "reply": "Ok, restarted: 1"})
    assert left_by_failed_waits(records) == {2: 5025}


def four_nodes() -> SimCluster:
    config = simple_config(
        "four", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1)),
        api=((7, None),), max_exec_threads=4, fragment_log_file_size_mb=16,
        no_of_fragment_log_files=4,
    )
    cluster = SimCluster(config)
    cluster.boot_started()
    cluster.slow_stops[4] = (0.0, 200.0)
    return cluster


def test_once_says_which_node_a_failed_wait_left_not_started(
    threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four_nodes(), speed=400)
    audit = AuditLog(default_audit_path())  # the one --once reads
    outcome = asyncio.run(run_action(RestartNode((4,)), parse_connectstring(sim.connectstring),
                                     audit))
    assert (outcome.ok, outcome.reply) == (False, WAIT_5025)
    deadline = time.monotonic() + 5
    while sim.cluster.data_nodes[4].state != "NOT_STARTED":
        assert time.monotonic() < deadline, "node 4 never stopped"
        time.sleep(0.01)
    argv = ["-c", sim.connectstring, "--once", "--no-sql", "--no-host", "--interval", "0.1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert ("\n  node 4 left NOT_STARTED by a failed restart wait (5025): start it with "
            "4 START\n") in out
    assert main([*argv, "--json"]) == 0
    nodes = {n["node_id"]: n for n in json.loads(capsys.readouterr().out)["nodes"]}
    assert nodes[4]["note"] == ("left NOT_STARTED by a failed restart wait (5025): start it "
                                "with 4 START")
    assert "note" not in nodes[2]
