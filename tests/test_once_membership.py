"""``--once`` and the membership section end to end against the simulator: the plain report
carries it (a row a data node: cheap), ``--section membership`` reads ndbinfo.membership only
for it, and without a SQL node it says it comes from get status, the events and the
configuration."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.scenarios.triage import ARBITRATOR_LOST_AT, SECOND_MGMD


def once(ts: Any, *extra: str, sql: bool = True) -> list[str]:
    mysql = ["--mysql-host", "127.0.0.1", "--mysql-port", str(ts.sim.sql_port),
             "--mysql-user", "root"] if sql else ["--no-sql"]
    return ["--once", "-c", ts.connectstring, *mysql, "--no-host", "--interval", "0.2", *extra]


def changed() -> Any:
    """arbitrator-change after both failures: president 3, arbitrator 49."""
    cluster = build_scenario("arbitrator-change")
    cluster.advance_to(ARBITRATOR_LOST_AT + 5)
    return cluster


def test_the_plain_json_report_carries_the_membership(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim(changed(), speed=1e-6, sql=True)
    assert main(once(ts, "--json")) == 0
    m = json.loads(capsys.readouterr().out)["membership"]
    assert m["from"] == "ndbinfo"
    assert (m["president"], m["successor"]) == (3, 4)
    assert m["arbitrator"] == {"node_id": SECOND_MGMD, "rank": 1, "state": "ARBIT_RUN",
                               "agreed": True, "agreed_by": 3, "data_nodes": 3,
                               "connected": True, "dissent": []}
    assert m["ring"] == [[3, 5, 4], [4, 3, 5], [5, 4, 3]]
    assert m["node_groups"] == [{"group": 0, "members": [2, 3], "live": [3]},
                                {"group": 1, "members": [4, 5], "live": [4, 5]}]
    assert [c["node_id"] for c in m["candidates"]] == [1, SECOND_MGMD]


def test_the_section_alone_in_text(threaded_sim: Callable[..., Any],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim(changed(), speed=1e-6, sql=True)
    assert main(once(ts, "--section", "membership")) == 0
    out = capsys.readouterr().out
    assert "Membership and arbitration:" in out
    assert (f"president 3 · successor 4 · arbitrator {SECOND_MGMD} rank 1 active, "
            "agreed by 3/3") in out
    assert "Heartbeat ring" in out and "Node groups:" in out
    assert "Connected API and SQL nodes" not in out and "Data nodes started" not in out


def test_without_a_sql_node_it_says_where_it_comes_from(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim(changed(), speed=1e-6, sql=False)
    assert main(once(ts, "--json", "--section", "membership", sql=False)) == 0
    m = json.loads(capsys.readouterr().out)["membership"]
    assert m["from"] == "events+config" and m["ring"] is None  # not read, not empty
    assert (m["president"], m["successor"]) == (3, 4)
    assert m["arbitrator"]["agreed"] is None
    assert m["note"].startswith("no SQL node: ")
    assert [(c["node_id"], c["rank"]) for c in m["candidates"]] == [(1, 1), (SECOND_MGMD, 1)]


def test_a_sql_node_not_answering_is_not_called_missing(
        capsys: pytest.CaptureFixture[str]) -> None:
    # initial-start: the SQL node is there but not connected to the data nodes yet.
    assert main(["demo", "--once", "--json", "--section", "membership"]) == 0
    m = json.loads(capsys.readouterr().out)["membership"]
    assert m["from"] == "events+config" and m["ring"] is None
    assert m["note"].startswith("ndbinfo.membership not read: the SQL node at root@127.0.0.1:")
    assert "is not answering (the SQL node is not connected to the data nodes)" in m["note"]
