"""The terminal goes away (SIGHUP, a dropped SSH session) or ndbtop is told to stop (SIGTERM)
while a rolling restart started from the live view runs: nothing more is sent, the audit
log says where it stopped, and ndbtop exits 128 + the signal's number."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Button

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.launch import hang_up
from ndbtop.tui.screens.rolling import RollingRestartScreen
from tests.tui.conftest import PtyProgram

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


def test_sigterm_ends_the_demo_with_its_rolling_restart_audited(
        tmp_path: Path, pty_program: Callable[[list[str]], PtyProgram]) -> None:
    audit = tmp_path / "audit.log"
    demo = pty_program(["demo", "--scenario", "threads", "--fail-node", "2",
                        "--audit-log", str(audit)])

    def sent() -> list[str]:
        if not audit.exists():
            return []
        return [json.loads(line)["event"] for line in audit.read_text().splitlines()]

    demo.wait("first screen", lambda: b"Nodes" in demo.shown)
    # W does nothing until the first status reading: press it until the plan shows.
    deadline = time.monotonic() + LIMIT
    while b"esc cancels" not in demo.shown:
        assert time.monotonic() < deadline, "W did not open the rolling restart"
        demo.write(b"W")
        demo.pump(time.monotonic() + 1.0)
    deadline = time.monotonic() + LIMIT
    while "sent" not in sent():
        assert time.monotonic() < deadline, "S did not start the run"
        demo.write(b"S")
        demo.pump(time.monotonic() + 0.5)
    demo.wait("the reply", lambda: "reply" in sent())
    os.kill(demo.pid, signal.SIGTERM)
    assert demo.exit_code("SIGTERM") == 128 + signal.SIGTERM
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [r["event"] for r in records] == ["sent", "reply", "interrupted"]
    assert records[-1]["message"] == "interrupted at step 1 of 2"
