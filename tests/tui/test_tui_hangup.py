"""The terminal goes away (SIGHUP, a dropped SSH session) or ndbtop is told to stop (SIGTERM)
while a rolling restart started from the live view runs: nothing more is sent, the audit
log says where it stopped, and ndbtop exits 128 + the signal's number."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

from textual.widgets import Button

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.launch import hang_up
from ndbtop.tui.screens.rolling import RollingRestartScreen

LIMIT = 30.0
"""Seconds a step may take before the test fails (a hang, not a target)."""


async def test_hang_up_interrupts_the_rolling_restart_and_audits_it(tui) -> None:
    # Node 2 never comes back: the run is waiting for it when the terminal goes away.
    cluster = build_scenario("threads", ScenarioOptions(seed=1, fail_node=2))
    async with tui(cluster) as t:
        t.app.rolling_poll = 0.05
        events = t.hub.events
        await t.until(lambda: events.listening_levels is not None, "the event listener")
        await t.press("W")
        await t.until(lambda: isinstance(t.app.screen, RollingRestartScreen)
                      and t.app.focused is t.app.screen.query_one("#cancel", Button), "W")
        await t.press("S")
        await t.until(lambda: [r["event"] for r in t.audit.records()] == ["sent", "reply"],
                      "the first restart sent")
        t.app.statistics_raised_from = 7
        hang_up(t.app, signal.SIGHUP)
        await t.until(lambda: not t.app.is_running, "the app to end")
        assert t.app.return_code == 129
        records = t.audit.records()
        assert [r["event"] for r in records] == ["sent", "reply", "interrupted"]
        assert records[-1]["message"] == "interrupted at step 1 of 2"
        assert records[-1]["restarting"] == [2] and records[-1]["generation"] == 1
        assert t.app.notes_on_exit == [
            "rolling restart interrupted at step 1 of 2",
            "the cluster log's STATISTICS level is still 15: ALL CLUSTERLOG STATISTICS=7 in "
            "ndb_mgm restores it",
        ]
        assert t.sim.cluster.data_nodes[3].stops == 0


def test_sigterm_ends_the_demo_with_its_rolling_restart_audited(tmp_path: Path) -> None:
    audit = tmp_path / "audit.log"
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "ndbtop", "demo", "--scenario", "threads",
                                   "--fail-node", "2", "--audit-log", str(audit)], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    shown = bytearray()

    def pump(until: float) -> None:
        while time.monotonic() < until:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            shown.extend(chunk)

    def wait(what: str, done) -> None:
        deadline = time.monotonic() + LIMIT
        while not done():
            assert time.monotonic() < deadline, f"no {what}"
            pump(time.monotonic() + 0.2)

    def sent() -> list[str]:
        if not audit.exists():
            return []
        return [json.loads(line)["event"] for line in audit.read_text().splitlines()]

    try:
        wait("first screen", lambda: b"Nodes" in shown)
        # W does nothing until the first status reading: press it until the plan shows.
        deadline = time.monotonic() + LIMIT
        while b"esc cancels" not in shown:
            assert time.monotonic() < deadline, "W did not open the rolling restart"
            os.write(fd, b"W")
            pump(time.monotonic() + 1.0)
        deadline = time.monotonic() + LIMIT
        while "sent" not in sent():
            assert time.monotonic() < deadline, "S did not start the run"
            os.write(fd, b"S")
            pump(time.monotonic() + 0.5)
        wait("the reply", lambda: "reply" in sent())
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + LIMIT
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            assert time.monotonic() < deadline, "still running after SIGTERM"
            pump(time.monotonic() + 0.1)
        pid = 0
        assert os.waitstatus_to_exitcode(status) == 128 + signal.SIGTERM
        records = [json.loads(line) for line in audit.read_text().splitlines()]
        assert [r["event"] for r in records] == ["sent", "reply", "interrupted"]
        assert records[-1]["message"] == "interrupted at step 1 of 2"
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
