"""``ndbtop mgm -e COMMAND --wait``: the request and the wait for the nodes it acted on in
one command, against the simulator (a restart plays its start phases and their events as
the data node sends them: NDBStartStarted, StartPhaseCompleted, NDBStartCompleted)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ndbtop.collect.history_store import HistoryStore
from ndbtop.model.phases import NODE_RESTART
from tests.conftest import run_cli
from tests.ops.test_mgm_cli import audit_records, four, stops

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d node (\d+) (\S+)(.*)$")


def test_restart_and_wait_sees_the_start_from_its_beginning(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    c = four()
    sim = threaded_sim(c)
    log = tmp_path / "a.log"
    argv = ["mgm", "-c", sim.connectstring, "-e", "2 RESTART", "--yes", "--wait",
            "--timeout", "60", "--audit-log", str(log)]
    status, out, err = run_cli(capsys, argv)
    assert (status, err) == (0, "")
    head, tail = out.split("2 RESTART: Ok, restarted: 1\n")
    assert "confirm: yes/no" in head
    lines = [LINE.match(x) for x in tail.splitlines()]
    assert all(lines), tail
    # Only the node acted on, and it ends STARTED.
    assert {m.group(1) for m in lines if m} == {"2"}
    assert lines[-1] is not None and lines[-1].group(2) == "STARTED"
    # The hub beside the wait listened before the request was sent: every phase shown was
    # seen from its beginning, and every line carries the estimate or why there is none.
    # (How many phases a poll catches depends on the machine: the restart is fast here.)
    for rest in (m.group(3) for m in lines if m and m.group(2) == "STARTING"):
        assert "since before" not in rest and "attached mid-start" not in rest, rest
        assert " · ETA " in rest or " · no ETA: " in rest, rest
    assert stops(c)[2] == 1
    assert [r["event"] for r in audit_records(log)] == ["sent", "reply"]
    # The start is kept whole in the start history, from NDBStartStarted on: the next one
    # goes by it.
    (kept,) = (tmp_path / "state" / "ndbtop" / "history").glob("*.json")
    starts = HistoryStore(kept.parent, kept.stem).load()
    assert [(p.node_id, p.partial, p.start_type) for p in starts] == [(2, False, NODE_RESTART)]
    assert starts[0].seconds(5) is not None


def test_wait_after_restart_n_waits_for_not_started(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any
) -> None:
    sim = threaded_sim(four())
    status, out, err = run_cli(capsys, ["mgm", "-c", sim.connectstring, "-e", "3 RESTART -n",
                                        "--yes", "--wait", "--timeout", "60"])
    assert (status, err) == (0, "")
    assert out.splitlines()[-1].endswith(" node 3 NOT_STARTED")


def test_wait_refuses_a_command_that_starts_nothing_before_sending_it(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any
) -> None:
    c = four()
    sim = threaded_sim(c)
    status, out, err = run_cli(capsys, ["mgm", "-c", sim.connectstring, "-e", "2 STOP", "--yes",
                                        "--wait"])
    assert status == 2 and out == ""
    assert err == ("ndbtop: error: --wait waits for nodes to start: it applies to RESTART and "
                   "START, not to 2 STOP\n")
    assert stops(c)[2] == 0
    for argv, why in ((["--wait"], "--wait follows the one command -e sends"),
                      (["-e", "2 RESTART", "--timeout", "5"], "--timeout needs --wait"),
                      (["-e", "2 RESTART", "--wait", "--dry-run"],
                       "--dry-run sends nothing to wait for")):
        status, out, err = run_cli(capsys, ["mgm", "-c", sim.connectstring, *argv])
        assert status == 2 and why in err and err.count("\n") == 1, err
    assert stops(c)[2] == 0
