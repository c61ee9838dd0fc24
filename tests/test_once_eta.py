"""``--once`` gives each starting data node's estimate of its time to STARTED, from the
simulator's S1 (an initial start whose redo log takes 38 min 47 s to create), or says why
there is none."""

from __future__ import annotations

import json

import pytest

from ndbtop.cli import main

S1_TOTAL = 2.0 + 38 * 60 + 47
"""Seconds from the launch of S1's nodes to the end of their redo phase (field-scenarios.md
S1), the phases before and after it taking seconds."""


def test_once_json_gives_an_estimate_whose_range_holds_the_real_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Progress reports every 2 s: the events give the rate of the redo log's creation.
    status = main(["--once", "--json", "demo", "--no-sql", "--report-frequency", "2"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    timelines = {t["node_id"]: t for t in report["start_timelines"]}
    for node in (n for n in report["nodes"] if n["type"] == "NDB"):
        eta = node["eta"]
        assert "eta_missing" not in node
        assert eta["basis"][0] == "redo rate (events)"
        assert eta["low"] <= eta["seconds"] <= eta["high"]
        assert eta["at"].endswith("+00:00")
        left = S1_TOTAL - timelines[node["node_id"]]["elapsed_s"]
        assert eta["low"] <= left <= eta["high"] + 10, (left, eta)
    for node in (n for n in report["nodes"] if n["type"] != "NDB"):
        assert "eta" not in node


def test_once_attached_mid_way_gives_no_estimate_and_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    why = "start not seen from its beginning: its times are lower bounds"
    assert main(["--once", "--json", "demo", "--no-sql", "--report-frequency", "2",
                 "--at", "120"]) == 0
    nodes = [n for n in json.loads(capsys.readouterr().out)["nodes"] if n["type"] == "NDB"]
    assert [(n["eta"], n["eta_missing"]) for n in nodes] == [(None, why)] * 2
    assert main(["--once", "--no-color", "demo", "--no-sql", "--at", "120"]) == 0
    text = capsys.readouterr().out
    assert f"  node 10 no ETA: {why}\n" in text and f"  node 11 no ETA: {why}\n" in text
