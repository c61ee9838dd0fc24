"""``--once --section replication`` against the simulator's source and replica SQL nodes,
through the command line: text and JSON ``replication``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().out


def test_the_replication_section_in_text_and_json(threaded_sim: Callable[..., Any],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("replication-lag", speed=100.0, sql=True)
    sim = ts.sim
    argv = ("-c", ts.connectstring, "--mysql-host", "127.0.0.1", "--mysql-port",
            str(sim.sql_port), "--mysql-user", "root", "--replica-mysql-host",
            f"127.0.0.1:{sim.replica_sql_port}", "--no-host", "--interval", "0.3", "--once",
            "--section", "replication")
    status, out = run(capsys, *argv, "--json")
    assert status == 0
    report = json.loads(out)["replication"]
    (channel,) = report["channels"]
    assert channel["source"] == f"127.0.0.1:{sim.sql_port}" and channel["source_watched"]
    assert channel["replica"] == f"127.0.0.1:{sim.replica_sql_port}"
    assert (channel["io_running"], channel["sql_running"], channel["columns"]) == (
        "Yes", "Yes", "replica")
    assert channel["lag_epochs"] > 0 and channel["lag_basis"].startswith("derived: ")
    assert [n["side"] for n in report["sql_nodes"]] == ["this cluster", "replica"]
    status, out = run(capsys, *argv)
    assert status == 0 and "Replication (lag threshold 60 s):" in out
    assert "Seconds_Behind_Source: the replica's own estimate" in out


def test_without_a_replica_the_section_says_how_to_name_one(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("threads", sql=False)
    status, out = run(capsys, "-c", ts.connectstring, "--no-sql", "--no-host", "--once",
                      "--section", "replication")
    assert status == 0
    assert "Replication: no replica named: --replica-mysql-host" in out
