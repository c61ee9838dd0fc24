"""``rolling-restart --json`` against the simulator: one JSON object per line for the plan,
each step and the result, with the run's ETA (or null and why) on every step; refusals stay
one line on stderr with the same exit statuses; questions never reach the JSON stdout."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.cli.prompt import ask
from ndbtop.collect.history_store import HistoryStore
from ndbtop.model.history import PastStart, cluster_key
from ndbtop.model.phases import NODE_RESTART
from tests.eta.cluster_status import cluster_status
from tests.eta.test_eta_runs_cli import four, started_before


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty state directory: no start history unless a test writes one."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def lines_of(out: str) -> list[dict[str, Any]]:
    """Every line of ``out`` as JSON (a line that does not parse fails the test)."""
    return [json.loads(line) for line in out.splitlines()]


def test_dry_run_json_is_the_plan_alone_with_what_it_takes(
    threaded_sim: Any, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four())
    assert main(["rolling-restart", "-c", sim.connectstring, "--dry-run", "--json",
                 "--no-sql"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    [plan] = lines_of(out)
    assert plan["event"] == "plan"
    assert plan["steps"] == [[2], [3], [4], [5]]
    assert plan["commands"] == ["2 RESTART", "3 RESTART", "4 RESTART", "5 RESTART"]
    assert plan["cluster"].startswith(f"management server {sim.connectstring}")
    assert plan["verdict"]["ok"] is True and plan["verdict"]["refusal"] is None
    # Without a SQL node restart_info is not read: the reason does not name it.
    assert plan["takes"] == {"eta": None, "eta_missing": "no earlier start of node 2 "
                             "(start history)"}
    assert plan["gate"] == {"held": False, "step": 1, "nodes": [2], "findings": []}
    assert plan["not_judged"] == ["redo space is not judged (--no-sql; --mysql-host names a "
                                  "SQL node)"]

    store = HistoryStore(state / "ndbtop" / "history",
                         cluster_key(cluster_status(sim.connectstring), sim.connectstring))
    for node_id in (2, 3, 4, 5):
        store.add(PastStart(node_id, NODE_RESTART, 1.0e9, ((1, 1.0),), 60.0))
    assert main(["rolling-restart", "-c", sim.connectstring, "--dry-run", "--json"]) == 0
    [plan] = lines_of(capsys.readouterr().out)
    # Four steps of 60 s, within half of it either way (the history's margin).
    eta = plan["takes"]["eta"]
    assert (eta["seconds"], eta["low"], eta["high"]) == (240, 120, 360)
    assert eta["basis"] == ["start history"]
    assert "eta_missing" not in plan["takes"]


def test_a_json_run_gives_one_event_per_line_with_the_eta_once_a_step_is_done(
    threaded_sim: Any, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four(), speed=100.0)
    status = main(["rolling-restart", "-c", sim.connectstring, "--yes", "--json",
                   "--audit-log", str(tmp_path / "audit.log")])
    out, err = capsys.readouterr()
    assert status == 0, err
    events = lines_of(out)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "plan" and kinds[-1] == "done"
    assert kinds.count("sent") == 4 and kinds.count("started") == 4
    sent = [e for e in events if e["event"] == "sent"]
    assert [(e["step"], e["of"], e["nodes"], e["message"]) for e in sent] == [
        (i, 4, [n], f"{n} RESTART") for i, n in enumerate((2, 3, 4, 5), 1)]
    # Before the first step is done: no figure, and why.
    first = sent[0]
    assert first["eta"] is None
    assert first["eta_missing"].startswith("no step finished in this run")
    assert first["step_eta"]["eta"] is None
    # Once it is back: the run's ETA from this run, a range around it, and the step's.
    done = next(e for e in events if e["event"] == "started")
    assert done["step"] == 1 and done["states"] == [
        {"node": 2, "status": "STARTED", "phase": None}]
    assert done["took"] >= 0 and done["step_eta"] is None
    assert done["eta"]["basis"] == ["this run (1 step)"]
    assert done["eta"]["low"] <= done["eta"]["seconds"] <= done["eta"]["high"]
    assert "eta_missing" not in done
    assert sent[1]["eta"] is not None and sent[1]["step_eta"]["eta"] is not None
    last_started = [e for e in events if e["event"] == "started"][-1]
    assert last_started["eta"]["basis"] == ["every step done"]
    assert events[-1]["restarted"] == [2, 3, 4, 5] and events[-1]["skipped"] == []
    assert events[-1]["stopped_by"] is None


def test_json_refusals_stay_one_line_on_stderr_with_their_exit_status(
    threaded_sim: Any, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four())
    log = tmp_path / "audit.log"
    cs = sim.connectstring
    status = main(["rolling-restart", "-c", cs, "--json", "--read-only",
                   "--audit-log", str(log)])
    out, err = capsys.readouterr()
    assert status == 1 and err.startswith("ndbtop: refused: read-only") and err.count("\n") == 1
    assert out == ""  # refused before any plan, as mgm refuses a change
    # The phrase --per-group asks for: --yes never stands for it.
    status = main(["rolling-restart", "-c", cs, "--json", "--per-group", "--yes",
                   "--audit-log", str(log)])
    out, err = capsys.readouterr()
    assert status == 1
    assert err.startswith("ndbtop: rolling restart not started: ") and err.count("\n") == 1
    plan, ended = lines_of(out)
    assert plan["phrase"] == "abort transactions" and plan["steps"] == [[2, 4], [3, 5]]
    assert ended["event"] == "not started" and ended["restarted"] == []
    assert "--confirm 'abort transactions'" in ended["why"]
    # Not confirmed (no terminal to ask on, no --yes): nothing is sent.
    status = main(["rolling-restart", "-c", cs, "--json", "--audit-log", str(log)])
    out, err = capsys.readouterr()
    assert (status, err) == (1, "")
    assert [e["event"] for e in lines_of(out)] == ["plan", "not started"]
    assert not log.exists()
    status = main(["rolling-restart", "-c", cs, "--json", "--confirm", "abort transactions"])
    out, err = capsys.readouterr()
    assert status == 2 and "this plan asks for no typed phrase" in err


def test_a_question_asked_on_stderr_leaves_stdout_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    read, write = os.pipe()

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            return read

    monkeypatch.setattr(sys, "stdin", Terminal())
    os.write(write, b"y\n")
    try:
        answer = asyncio.run(ask("start? [y/N] ", "yn", sys.stderr))
    finally:
        os.close(read)
        os.close(write)
    out, err = capsys.readouterr()
    assert (answer, out, err) == ("y", "", "start? [y/N] ")


def test_the_step_in_progress_goes_by_the_node_start_estimate_once_it_has_one(
    threaded_sim: Any, state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # README "When will a node be STARTED": the step in progress goes by the start estimate
    # once its nodes are starting and have one; before, by this run's steps.
    sim = threaded_sim(four(), speed=5.0)
    started_before(sim.connectstring, state, 2, 3)
    status = main(["rolling-restart", "-c", sim.connectstring, "--nodes", "2,3", "--yes",
                   "--json", "--audit-log", str(tmp_path / "audit.log")])
    out, err = capsys.readouterr()
    assert status == 0, err
    events = lines_of(out)
    sent = next(e for e in events if e["event"] == "sent" and e["step"] == 2)
    assert sent["step_eta"]["eta"]["basis"] == ["this run (1 step)"]
    starting = [e for e in events if e["event"] == "waiting" and e["step"] == 2
                and e["states"][0]["status"] == "STARTING"]
    assert starting, "node 3 seen starting"
    by_node = [e for e in starting if e["step_eta"]["eta"]["basis"][0] == "last start"]
    assert by_node, [e["step_eta"] for e in starting]
    assert by_node[-1]["eta"]["basis"][0] == "current: last start"
    eta = by_node[-1]["step_eta"]["eta"]
    assert eta["low"] <= eta["seconds"] <= eta["high"] <= 40
