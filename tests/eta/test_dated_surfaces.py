"""A start ndbtop came to late, dated from the cluster log file, the same on every surface:
``--once`` (text and JSON), the Nodes view, the export and ``wait``; and S1 attached
mid-way with the management server's cluster log on this host, through the command line.

The simulated management server writes its cluster log file in the real layout
(``--mgm-data-dir``, LogHandler.cpp ``getDefaultHeader``); a management server on this host
(``127.0.0.1``) has its file read directly.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ndbtop.eta.node_evidence import StartEtaKeeper
from ndbtop.eta.node_text import eta_text
from ndbtop.model.eta import Eta
from ndbtop.model.phases import apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import clock_time
from ndbtop.model.start_file import apply_file
from ndbtop.ops.wait import NodeChange, _estimate
from ndbtop.report.render import report_json, report_text
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.views.node_eta import eta_line
from ndbtop.tui.views.timeline import timeline_panel
from tests.conftest import run_cli
from tests.eta.test_attached_surfaces import attached_snapshot
from tests.eta.test_dated_estimate import PHASE_5_BEGAN, S2_LINES
from tests.export.export_helpers import NOW, samples, up, value
from tests.model.test_start_file import FIRST_SIGHT, lines

ATTACH_AT = 1000.0
"""Simulated seconds into S1 (its nodes launched at 2 s) when ndbtop comes."""


def dated_snapshot(seen: float) -> ClusterSnapshot:
    """S2's node restart as ndbtop finds it late (tests/eta/test_attached_surfaces.py): node 2
    first seen in phase 5, its start's lines read from the cluster log file."""
    snap = attached_snapshot(seen)
    t = apply_status({}, snap.nodes, FIRST_SIGHT)
    t = apply_file(t, lines(S2_LINES.replace("Node 3:", "Node 2:")))
    now = FIRST_SIGHT + seen
    snap = replace(snap, timelines=(t[2],), wall=now, taken_at=now)
    return replace(snap, start_etas=StartEtaKeeper().observe(snap))


def render(renderable: object) -> str:
    console = Console(width=140, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_every_surface_gives_the_files_beginning_and_the_same_estimate() -> None:
    snap = dated_snapshot(30.0)
    result = snap.start_eta(2)
    assert isinstance(result, Eta)
    note = f"attached mid-start: phase 5 began at {clock_time(PHASE_5_BEGAN)} (the cluster log)"
    assert result.basis[-1] == note
    words = eta_text(result)
    spent = snap.wall - PHASE_5_BEGAN
    # --once --json and text.
    report = report_json(snap)
    node = next(n for n in report["nodes"] if n["node_id"] == 2)
    assert node["eta"] == result.as_json()
    (t,) = report["start_timelines"]
    assert (t["in_phase_s"], t["in_phase_at_least_s"], t["in_phase_from"]) == (
        round(spent, 1), None, "file")
    assert t["start_began_from"] == "file" and t["elapsed_at_least_s"] is None
    assert {p["ended_from"] for p in t["completed"]} == {"file"}
    text = report_text(snap)
    assert f"  node 2 in phase 5 since {clock_time(PHASE_5_BEGAN)}, from the cluster log\n" \
        in text
    assert f"  node 2 {words}\n" in text + "\n"
    # The Nodes view: the estimate's line and the node's start panel.
    shown = eta_line(snap, 2)
    assert shown is not None and shown.plain == f"node 2 {words}"
    panel = render(timeline_panel(snap, 2, snap.wall))
    assert "(from the cluster log) · running" in panel
    assert f"in phase 5 since {clock_time(PHASE_5_BEGAN)}, from the cluster log" in panel
    assert "≥" not in panel
    # The export: the time in phase is exact now, not a lower bound.
    found = samples(replace(snap, taken_at=NOW, sources=up("mgm", "ndbinfo")))
    assert value(found, "ndb_node_phase_seconds", node_id="2") == pytest.approx(spent)
    assert value(found, "ndb_node_phase_at_least_seconds", node_id="2") is None
    assert value(found, "ndb_node_start_eta_seconds", node_id="2") == result.seconds
    # wait: the hub's estimate and timeline, said the same way.
    eta = _estimate(snap.start_eta, snap.nodes[0])
    assert eta == result
    change = NodeChange(snap.wall, 2, "STARTING", 4, "phase 5 copy data, wait LCP", spent, eta,
                        "file", PHASE_5_BEGAN)
    assert f"({int(spent)}s in phase, from the cluster log) · {words}" in change.text()
    assert change.as_json()["in_phase_from"] == "file"


def s1_attached(data_dir: Path, mgm_host: str = "127.0.0.1", **options: Any) -> Any:
    """S1 played alone to ATTACH_AT, progress reports every 10 s, its management server on
    ``mgm_host`` writing its cluster log in ``data_dir``."""
    cluster = build_scenario("initial-start", ScenarioOptions(
        report_frequency=10, mgm_host=mgm_host, mgm_data_dir=str(data_dir), **options))
    cluster.advance_to(ATTACH_AT)
    return cluster


def phase_4_began(data_dir: Path, node: int = 10) -> str:
    """``HH:MM:SS`` of node ``node``'s ``Start phase 3 completed`` line in the file."""
    log = (data_dir / "ndb_1_cluster.log").read_text()
    found = re.search(rf"^\d{{4}}-\d\d-\d\d (\d\d:\d\d:\d\d) \[MgmtSrvr\] INFO     -- Node "
                      rf"{node}: Start phase 3 completed \(initial start\)$", log, re.M)
    assert found is not None, log[:2000]
    return found.group(1)


def test_once_json_dates_phase_4_from_the_file_on_this_host(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, tmp_path: Path,
) -> None:
    # Slow enough that no progress report comes while --once runs: the file's lines give
    # the rate, and --once need not wait for two reports.
    sim = threaded_sim(s1_attached(tmp_path), speed=0.05)
    began = phase_4_began(tmp_path)
    status, out, err = run_cli(capsys, ["--once", "--json", "-c", sim.connectstring,
                                        "--no-sql", "--no-host", "--interval", "0.3"])
    assert (status, err) == (0, "")
    report = json.loads(out)
    for node in (n for n in report["nodes"] if n["type"] == "NDB"):
        eta = node["eta"]
        assert eta is not None, node.get("eta_missing")
        assert eta["basis"][0] == "redo rate (cluster log)"
        assert eta["basis"][-1] == f"attached mid-start: phase 4 began at {began} (the " \
                                   "cluster log)"
    t = next(x for x in report["start_timelines"] if x["node_id"] == 10)
    assert (t["phase_in_progress"], t["in_phase_from"], t["start_began_from"]) == (
        4, "file", "file")
    # The simulated start is 998 s in: by the file's second, the same.
    assert abs(t["in_phase_s"] - (ATTACH_AT - 2.5)) <= 2.0
    assert t["redo_init"]["mb_per_s"] == pytest.approx(43008 / (38 * 60 + 47), rel=0.05)
    assert all("start_phase_slow" not in x["rules"] for x in report["not_judged"])


def test_wait_says_the_phase_began_by_the_file(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, tmp_path: Path,
) -> None:
    sim = threaded_sim(s1_attached(tmp_path), speed=0.05)
    began = phase_4_began(tmp_path)
    # The timeout is the whole wait's, connecting included: long enough that a busy machine
    # still connects and prints the first line well before it ends the wait.
    status, out, err = run_cli(capsys, ["wait", "-c", sim.connectstring, "--timeout", "3",
                                      "--interval", "0.3", "--nodes", "10"])
    assert status == 1, err
    first = out.splitlines()[0]
    assert re.search(r" node 10 STARTING phase 4 redo log init \(\d+s in phase, from the "
                     r"cluster log\) · ", first), first
    assert first.endswith(f"; attached mid-start: phase 4 began at {began} (the cluster log)")
