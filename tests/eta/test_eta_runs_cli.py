"""The estimates through the command line against the simulator: ``rolling-restart`` shows
the run's ETA once its first step is done (and why there is none before), its plan says
what it will take from the start history; ``wait --backup-completed`` shows the backup's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.collect.history_store import HistoryStore
from ndbtop.model.history import PastStart, cluster_key
from ndbtop.model.phases import NODE_RESTART
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from tests.eta.cluster_status import cluster_status

ETA = re.compile(r"ETA \d\d:\d\d(:\d\d)? \(\d\d:\d\d(:\d\d)?–\d\d:\d\d(:\d\d)?\) in \S+")


def four() -> SimCluster:
    """Four started data nodes in two node groups."""
    data = ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1))
    c = SimCluster(simple_config("four", data, api=((7, None),), max_exec_threads=4))
    c.boot_started()
    return c


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty state directory: no start history unless a test writes one."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def test_rolling_restart_shows_the_runs_eta_after_the_first_node(
    threaded_sim: Any, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four(), speed=100.0)
    status = main(["rolling-restart", "-c", sim.connectstring, "--yes", "--no-sql",
                   "--audit-log", str(tmp_path / "audit.log")])
    out, err = capsys.readouterr()
    assert status == 0, err
    # No SQL node: restart_info is not read, and not named.
    assert "takes: not estimated, no history: no earlier start of node 2 (start history)\n" in out
    steps = out.split("[2/4]")
    first, rest = steps[0], "[2/4]".join(steps[1:])
    # Before the first node is back: no figure, and why.
    assert "rolling restart: no ETA: no step finished in this run" in first
    # Once it is back: the run's ETA from this run, with its range and basis.
    after = first.split("(took", 1)[1]
    line = next(x for x in after.splitlines() if x.strip().startswith("rolling restart:"))
    assert ETA.search(line) and line.endswith("· this run (1 step)")
    assert "this step: " in rest and ETA.search(rest.split("this step: ", 1)[1])
    # Three finished steps: the basis says so.
    assert "this run (3 steps)" in rest
    assert "no ETA" not in rest


def test_the_plan_says_what_it_will_take_from_the_start_history(
    threaded_sim: Any, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four())

    nodes = cluster_status(sim.connectstring)
    store = HistoryStore(state / "ndbtop" / "history", cluster_key(nodes, sim.connectstring))
    for node_id in (2, 3, 4, 5):
        store.add(PastStart(node_id, NODE_RESTART, 1.0e9, ((1, 1.0),), 60.0))
    assert main(["rolling-restart", "-c", sim.connectstring, "--dry-run"]) == 0
    out = capsys.readouterr().out
    # Four steps of 60 s, within half of it either way (the history's margin).
    assert "takes: about 4m00s (2m00s–6m00s) · start history\n" in out


def test_wait_backup_completed_shows_the_backups_eta(
    threaded_sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # Backup 1 of the scenario starts 20 s in and writes 18 GB per node at 64 MB/s; the
    # status is asked every 10 simulated seconds (below the 2 GB a lost carry is told by).
    sim = threaded_sim("backup", speed=50.0)
    status = main(["wait", "-c", sim.connectstring, "--backup-completed", "1",
                   "--backup-status-interval", "0.2", "--timeout", "60"])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[-1].startswith("backup 1 completed")
    with_eta = [x for x in lines if ETA.search(x)]
    assert len(with_eta) >= 3
    assert all("backup log not known ahead" in x for x in with_eta)
    assert "DataMemory in use / replicas, at most" in with_eta[0]


def test_wait_backup_completed_json_gives_eta_or_eta_missing(
    threaded_sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim("backup", speed=50.0)
    status = main(["wait", "-c", sim.connectstring, "--backup-completed", "1",
                   "--backup-status-interval", "0.2", "--timeout", "60", "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    objects = [json.loads(x) for x in out.splitlines()]
    assert all("eta" in o for o in objects)
    estimated = [o["eta"] for o in objects if o["eta"] is not None]
    assert estimated and all(e["low"] <= e["seconds"] <= e["high"] for e in estimated)
    assert "backup log not known ahead" in estimated[0]["basis"]
    assert objects[-1]["state"] == "completed"
    assert objects[-1]["eta_missing"] == "backup completed"


def test_the_plan_names_the_start_history_once(
    threaded_sim: Any, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four())
    nodes = cluster_status(sim.connectstring)
    store = HistoryStore(state / "ndbtop" / "history", cluster_key(nodes, sim.connectstring))
    # Node 3 has a start of its own; 2, 4 and 5 go by the other nodes' (node 3's: 60 s).
    store.add(PastStart(3, NODE_RESTART, 1.0e9, ((1, 1.0),), 60.0))
    assert main(["rolling-restart", "-c", sim.connectstring, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "takes: about 4m00s (2m00s–6m00s) · start history (own and other nodes)\n" in out


def started_before(connectstring: str, state: Path, *nodes: int) -> None:
    """A whole node restart of each node in the start history, phase by phase (the phases
    the simulator's node restart runs), so the start estimate has a figure for every phase."""
    store = HistoryStore(state / "ndbtop" / "history",
                         cluster_key(cluster_status(connectstring), connectstring))
    phases = tuple((p, 20.0 if p == 5 else 0.5) for p in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101))
    for node_id in nodes:
        store.add(PastStart(node_id, NODE_RESTART, 1.0e9, phases, sum(s for _, s in phases)))


def test_the_progress_lines_give_the_node_start_estimate_while_a_node_starts(
    threaded_sim: Any, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # README: the step in progress goes by the start estimate once its nodes are starting
    # and have one (here: their last start, kept in the start history).
    sim = threaded_sim(four(), speed=5.0)
    started_before(sim.connectstring, state, 3)
    status = main(["rolling-restart", "-c", sim.connectstring, "--nodes", "3", "--yes",
                   "--audit-log", str(tmp_path / "audit.log")])
    out, err = capsys.readouterr()
    assert status == 0, err
    step = out.split("[1/1] 3 RESTART", 1)[1]
    # Sent: the start history's figure for the step; node 3 starting: its start estimate.
    assert step.splitlines()[1].strip().endswith("· start history")
    starting = step.split("    node 3 STARTING", 1)[1]
    assert re.search(r"\n    this step: ETA .* · last start", starting), step
