"""Whole screens rendered from captured moments of the scenarios, compared with golden files.

Each case captures a scenario at a fixed simulated time (:mod:`ndbtop.demo.capture`),
shows it through a :class:`FrozenSource` at 120x40 and compares the screen's text
and its SVG export with ``snapshots/<case>.txt`` and ``snapshots/<case>.svg``.
After a deliberate change to the views, regenerate them and review the diff:

    NDBTOP_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/tui/test_tui_snapshots.py
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import MONOTONIC, Capture, CaptureSpec, capture
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.source import FrozenSource
from tests.captures import captured

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("NDBTOP_UPDATE_SNAPSHOTS") == "1"


@dataclass(frozen=True)
class Case:
    """A moment, the view that tells its story, and what the screen must show (a regex)."""

    spec: CaptureSpec
    key: str
    expect: str


CASES = {
    "nodes_s1_phase4": Case(
        CaptureSpec("initial-start", 1800.0),
        "1",
        r"▶ 4  redo log init +29m\d\ds so far  normal ~14m20s \(redo log at an assumed 50 "
        r"MB/s\)  ← slow",
    ),
    "threads_s5": Case(CaptureSpec("threads", 120.0), "2", r"2 +\S+ +ldm 3 \d+%"),
    # 45 s per refresh: the trend spans the restarts from 64M to 512M and the climb after.
    "disk_s4_after_buffer_change": Case(
        CaptureSpec("disk-buffer", 1500.0, step=45.0), "3", r"\n 3 .* 9\d\.\d\d% "
    ),
    "events_statistics": Case(
        CaptureSpec("threads", 60.0, statistics=True),
        "4",
        r"Statistics reported by the data nodes \(CLUSTERLOG STATISTICS\)",
    ),
    "restarts_s2": Case(CaptureSpec("node-restart", 520.0), "5", "Restart completed"),
    "config_change": Case(
        CaptureSpec("config-change", 100.0), "7",
        r"nodes 3, 4, 5 still run an older configuration",
    ),
    "backup_running": Case(
        CaptureSpec("backup", 170.0, step=5.0),
        "6",
        r"Backup 1 running since .* requested by node 1, master node 2",
    ),
}


async def render(case: Case, cap: Capture, tmp_path: Path, screen) -> tuple[str, str]:
    """The screen's text and SVG with the captured moment in ``case.key``'s view."""

    async def start() -> FrozenSource:
        return FrozenSource(cap.snapshot, cap.connectstring)

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), simulated=case.spec.scenario)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: app.hub is not None and app.current_view.snapshot)
        await pilot.press(case.key)
        await settle(pilot, lambda: app.current_view.snapshot is cap.snapshot)
        # Focus moves, redraws, scrolling and the footer's keys after the switch take a few
        # more messages: the picture is taken once it is complete and stopped changing.
        shots = [screen(app)]

        def still() -> bool:
            shots.append(screen(app))
            return "q Quit" in shots[-1] and len(set(shots[-4:])) == 1

        await settle(pilot, still)
        return shots[-1], app.export_screenshot()


async def settle(pilot, done) -> None:
    """Let the app handle its messages until ``done()`` holds."""
    for _ in range(200):
        await pilot.pause()
        if done():
            return
    raise AssertionError("the app did not get there")


def _compare(name: str, suffix: str, got: str) -> None:
    path = SNAPSHOTS / f"{name}{suffix}"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}: run with NDBTOP_UPDATE_SNAPSHOTS=1"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "\n".join(
            difflib.unified_diff(
                want.splitlines(), got.splitlines(), "golden", "now", lineterm="", n=1
            )
        )
        pytest.fail(f"{path.name} differs (NDBTOP_UPDATE_SNAPSHOTS=1 to accept):\n{diff[:6000]}")


@pytest.mark.parametrize("name", sorted(CASES))
async def test_screen_matches_its_golden_file(name: str, tmp_path: Path, screen) -> None:
    case = CASES[name]
    cap = await captured(case.spec)
    text, svg = await render(case, cap, tmp_path, screen)
    assert re.search(case.expect, text), case.expect
    _compare(name, ".txt", text)
    _compare(name, ".svg", svg)


async def test_a_capture_is_the_same_every_time_and_free_of_this_machine() -> None:
    spec = CaptureSpec("node-restart", 200.0, samples=5)
    first, second = await capture(spec), await capture(spec)
    assert first == second
    snap = first.snapshot
    assert snap.taken_at == MONOTONIC
    assert all(s.last_ok in (None, MONOTONIC) for s in snap.sources)
    assert snap.mgm_address == "10.0.0.1:1186"
    assert str(first.connectstring) == "10.0.0.1:1186"
    assert all("127.0.0.1:" not in (s.target + (s.error or "")) for s in snap.sources)
    assert snap.source("host").target == "localhost"
    # Simulated second 200 on the fixed wall clock, and node 3 restarting since second 60.
    assert snap.wall == pytest.approx(1224851053.5 + 200.0)
    timeline = snap.timeline(3)
    assert timeline is not None and timeline.active
    assert 60.0 < timeline.began_at - 1224851053.5 < 65.0
