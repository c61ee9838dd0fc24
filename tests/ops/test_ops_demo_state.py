"""The demo keeps its start history and audit log in a directory of its own for the run:
nothing goes to the user's state directory, and a second demo never shows the starts the
first one saw as "last time"."""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import ndbtop.cli.demo as demo_cli
import ndbtop.tui.launch as launch
from ndbtop.collect.hub import Hub
from ndbtop.demo.state import PREFIX
from ndbtop.files import state_dir
from ndbtop.sim.runtime import Simulator
from tests.conftest import run_cli

RESTART_LIMIT = 30.0
"""Real seconds a simulated node restart may take before the test fails (a hang, not a target)."""


def demo_dirs(where: Path) -> list[Path]:
    return sorted(where.glob(f"{PREFIX}*"))


def test_two_demo_runs_share_no_state_and_leave_the_users_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    until: Callable[..., Awaitable[None]],
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sims: list[Simulator] = []
    make = demo_cli.make_simulator
    monkeypatch.setattr(demo_cli, "make_simulator",
                        lambda args: sims.append(make(args)) or sims[-1])
    seen: list[dict[str, Any]] = []

    async def watch(start: Callable[[], Awaitable[Hub]], stop: Callable[[], Awaitable[None]],
                    args: argparse.Namespace, restart: bool) -> None:
        hub = await start()
        await hub.start()
        try:
            await until(lambda: hub.snapshot().nodes, what="the first status reading")
            first_reading = hub.snapshot().past_starts
            if restart:
                sims[-1].cluster.restart_nodes((3,))
                await until(lambda: hub.snapshot().past_starts, timeout=RESTART_LIMIT,
                            what="node 3's restart remembered")
            (directory,) = demo_dirs(tmp_path)
            seen.append({"directory": directory, "audit": Path(args.audit_log),
                         "past_starts": first_reading,
                         "history": sorted((directory / "history").iterdir())})
        finally:
            await hub.stop()
            await stop()

    def live_view(restart: bool) -> Callable[..., int]:
        def run(start: Any, stop: Any, args: argparse.Namespace, simulated: str) -> int:
            asyncio.run(watch(start, stop, args, restart))
            return 0
        return run

    argv = ["demo", "--scenario", "threads", "--speed", "100", "--interval", "0.1"]
    for restart in (True, False):
        monkeypatch.setattr(launch, "run_simulated_tui", live_view(restart))
        status, _, err = run_cli(capsys, argv)
        assert (status, err) == (0, "")
        assert demo_dirs(tmp_path) == [], "the run's state directory is removed at its end"

    first, second = seen
    assert [p.parent for p in first["history"]] == [first["directory"] / "history"]
    assert first["audit"] == first["directory"] / "audit.log"
    assert second["directory"] != first["directory"]
    assert second["past_starts"] == () and second["history"] == []
    assert not os.path.lexists(state_dir())
