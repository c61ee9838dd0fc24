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


def test_once_attached_mid_way_estimates_what_remains_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 120 s into S1, its redo log creation reported every 10 s (a third of a second at the
    # demo's speed: --once waits for two reports): ndbtop did not see the start begin, and
    # what remains does not depend on that.
    assert main(["--once", "--json", "demo", "--no-sql", "--report-frequency", "10",
                 "--at", "120"]) == 0
    report = json.loads(capsys.readouterr().out)
    timelines = {t["node_id"]: t for t in report["start_timelines"]}
    for node in (n for n in report["nodes"] if n["type"] == "NDB"):
        eta = node["eta"]
        assert eta is not None, node.get("eta_missing")
        assert eta["basis"][0] == "redo rate (events)"
        assert eta["basis"][-2].startswith("attached mid-start: phase 4 began before ")
        assert eta["basis"][-1] == ("taken for an initial start: it creates its redo log "
                                    "(its progress reports), no data node started")
        # The simulated start is 120 s in, and ndbtop has watched it this much since.
        t = timelines[node["node_id"]]
        assert t["elapsed_s"] is None
        left = S1_TOTAL - 120 - t["elapsed_at_least_s"]
        assert eta["low"] <= left <= eta["high"] + 10, (left, eta)
    assert main(["--once", "--no-color", "demo", "--no-sql", "--report-frequency", "10",
                 "--at", "120"]) == 0
    text = capsys.readouterr().out
    for node_id in (10, 11):
        line = next(x for x in text.splitlines() if x.startswith(f"  node {node_id} ETA "))
        assert "· redo " in line and "; attached mid-start: phase 4 began before " in line
