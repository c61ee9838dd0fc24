"""Ctrl-C in ``ndbtop rolling-restart``, typed on a real terminal (a pty): at the question
and while waiting for a node, it stops at once, exits 130 and leaves "interrupted at step N
of M" in the audit log. ``--yes`` never asks."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from pathlib import Path
from typing import Any

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario

LIMIT = 20.0
"""Seconds a step of these tests may take before the test fails (a hang, not a target)."""


class Terminal:
    """``ndbtop`` run on the slave side of a pty, as an operator runs it."""

    def __init__(self, argv: list[str], home: Path) -> None:
        env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state"),
               "NDB_CONNECTSTRING": "127.0.0.1:1"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            os.execve(sys.executable, [sys.executable, "-m", "ndbtop", *argv], env)
        self.text = ""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 4096)
        except OSError:
            return False
        if not chunk:
            return False
        self.text += chunk.decode(errors="replace")
        return True

    def expect(self, fragment: str) -> None:
        deadline = time.monotonic() + LIMIT
        while fragment not in self.text:
            assert time.monotonic() < deadline, f"{fragment!r} not shown:\n{self.text}"
            assert self._read(0.1), f"ended before {fragment!r}:\n{self.text}"

    def ctrl_c(self) -> None:
        os.write(self.fd, b"\x03")

    def exit_status(self) -> int:
        deadline = time.monotonic() + LIMIT
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._read(0):
                    if not select.select([self.fd], [], [], 0)[0]:
                        break
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            assert time.monotonic() < deadline, f"still running:\n{self.text}"
            self._read(0.05)


def audit_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_ctrl_c_at_the_question_exits_130_and_audits_step_0(
    threaded_sim: Any, tmp_path: Path
) -> None:
    sim = threaded_sim("threads")
    audit = tmp_path / "audit.log"
    term = Terminal(["rolling-restart", "-c", sim.connectstring, "--audit-log", str(audit)],
                    tmp_path)
    term.expect("? [y/N] ")
    term.ctrl_c()
    assert term.exit_status() == 130
    assert "rolling restart interrupted at step 0 of 2; nothing more was sent" in term.text
    (record,) = audit_records(audit)
    assert (record["event"], record["message"], record["target"], record["generation"]) == (
        "interrupted", "interrupted at step 0 of 2", sim.connectstring, 1)
    assert {n.stops for n in sim.cluster.data_nodes.values()} == {0}


def test_ctrl_c_while_a_node_restarts_exits_130_naming_it(
    threaded_sim: Any, tmp_path: Path
) -> None:
    # Node 2 hangs in a start phase once restarted: the run waits for it.
    sim = threaded_sim(build_scenario("threads", ScenarioOptions(fail_node=2)), speed=50)
    audit = tmp_path / "audit.log"
    term = Terminal(["--audit-log", str(audit), "rolling-restart", "-c", sim.connectstring,
                     "--yes"], tmp_path)
    term.expect("[1/2] 2 RESTART")
    term.expect("node 2 STARTING")
    term.ctrl_c()
    assert term.exit_status() == 130
    assert ("rolling restart interrupted at step 1 of 2; nothing more was sent; node 2 may "
            "still be restarting (ndbtop wait --nodes 2)") in term.text
    records = audit_records(audit)
    assert [r["event"] for r in records] == ["sent", "reply", "interrupted"]
    assert records[-1]["message"] == "interrupted at step 1 of 2"
    assert records[-1]["restarting"] == [2]
    # --yes: no question, not even after Ctrl-C.
    assert "?" not in term.text
    assert sim.cluster.data_nodes[3].stops == 0


def test_yes_never_asks(threaded_sim: Any, tmp_path: Path) -> None:
    sim = threaded_sim("threads")
    term = Terminal(["rolling-restart", "-c", sim.connectstring, "--yes", "--nodes", "2",
                     "--audit-log", str(tmp_path / "a.log")], tmp_path)
    # A healthy cluster: the plan is shown and carried out without a question.
    assert term.exit_status() == 0, term.text
    assert "?" not in term.text.replace("\r", "")
    assert "node 2" in term.text


def test_yes_aborts_on_a_refusal_without_asking(threaded_sim: Any, tmp_path: Path) -> None:
    sim = threaded_sim("add-node")
    sim.cluster.stop_nodes((4,))
    term = Terminal(["rolling-restart", "-c", sim.connectstring, "--yes", "--nodes", "3",
                     "--audit-log", str(tmp_path / "a.log")], tmp_path)
    # Node 3's partner is down: the pre-flight refuses the run, in one line, without a question.
    assert term.exit_status() == 1
    assert "?" not in term.text.replace("\r", "")
    assert "NO_CONTACT" in term.text


def test_yes_aborts_on_a_node_that_does_not_come_back_without_asking(
    threaded_sim: Any, tmp_path: Path
) -> None:
    # Node 2 never comes back: the timeout is a problem that would ask retry/skip/abort.
    sim = threaded_sim(build_scenario("threads", ScenarioOptions(fail_node=2)), speed=50)
    term = Terminal(["rolling-restart", "-c", sim.connectstring, "--yes", "--node-timeout", "1",
                     "--audit-log", str(tmp_path / "a.log")], tmp_path)
    # --yes aborts on it without a question.
    assert term.exit_status() == 1
    assert "?" not in term.text
    assert "rolling restart aborted at node 2 (timeout)" in term.text


def test_ctrl_c_stops_wait_with_130(threaded_sim: Any, tmp_path: Path) -> None:
    sim = threaded_sim("threads")
    term = Terminal(["wait", "-c", sim.connectstring, "--status", "no-contact"], tmp_path)
    term.expect("node 2")
    term.ctrl_c()
    assert term.exit_status() == 130
    assert "Traceback" not in term.text
