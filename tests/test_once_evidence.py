"""``--once`` names a start's phase from the same evidence as the live view: it listens to
the management server's events for its whole collection (the demo's --once once said
``2 arbitrator (30s)`` while the live view said ``4 redo log init``)."""

from __future__ import annotations

import json

import pytest

from ndbtop.cli import main


def test_demo_once_sees_the_start_events_the_live_view_sees(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # S1 from its beginning: the report listens while the nodes start, so it sees
    # NDBStartStarted, the phases completed and the first redo-log status event.
    status = main(["--once", "--json", "--no-color", "demo", "--no-sql"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert {s["name"]: s["state"] for s in report["sources"]}["events"] == "connected"
    nodes = {n["node_id"]: n for n in report["nodes"]}
    timelines = {t["node_id"]: t for t in report["start_timelines"]}
    for node_id in (10, 11):
        assert nodes[node_id]["phase"] == "4 redo log init"
        assert timelines[node_id]["in_phase_from"] == "event"
        assert timelines[node_id]["start_began_from"] == "event"


def test_demo_once_attached_late_says_what_it_did_not_see(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 120 s in, the start's events are past: the phase is named by its number alone and
    # its timer is a lower bound, in the text and in the JSON.
    assert main(["--once", "--no-color", "demo", "--no-sql", "--at", "120"]) == 0
    text = capsys.readouterr().out
    assert "4 restore or local start (≥" in text
    assert "node 10 in phase 4 since ndbtop connected at " in text
    assert main(["--once", "--json", "demo", "--no-sql", "--at", "120"]) == 0
    timelines = json.loads(capsys.readouterr().out)["start_timelines"]
    assert {t["in_phase_from"] for t in timelines} == {"first_seen"}


def test_once_during_an_initial_start_reports_the_sql_node_waiting_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The SQL node answers "not connected to the data nodes" (error 157 through ndbinfo):
    # it has answered. Exit 3 stays for a source that cannot be reached or refuses.
    status = main(["--once", "--no-color", "demo", "--at", "120"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert "  ndbinfo  waiting (the SQL node is not connected to the data nodes)" in out
