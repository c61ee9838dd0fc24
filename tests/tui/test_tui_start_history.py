"""The Nodes view's start-phase panel next to the last comparable start.

S2's node restart is captured in phase 5 (about 5 minutes in) and shown through a
frozen source, with remembered starts added to the snapshot by hand.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import EPOCH, Capture, CaptureSpec
from ndbtop.model.history import PastStart
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.views.nodes import NodesView
from tests.captures import captured_now

NODE_RESTART = 2
INITIAL_START = 0


def past(node_id: int, kind: int, phase5: float, days_ago: float = 1.0) -> PastStart:
    """A finished start: the short phases as S2 has them, phase 5 taking ``phase5`` s."""
    phases = ((1, 0.0), (2, 0.3), (3, 0.3), (4, 0.5), (5, phase5), (6, 0.2), (101, 5.0))
    return PastStart(
        node_id, kind, EPOCH - days_ago * 86400, phases, round(sum(s for _, s in phases), 1)
    )


@pytest.fixture(scope="module")
def s2_phase5() -> Capture:
    """Node 3 of S2 in phase 5 of its node restart, about 309 s into the phase."""
    return captured_now(CaptureSpec("node-restart", 400.0, samples=3))


async def detail(snapshot: ClusterSnapshot, cap: Capture, tmp_path: Path, screen: Any) -> str:
    """The screen with node 3's start in the Nodes view's detail panel."""

    async def start() -> FrozenSource:
        return FrozenSource(snapshot, cap.connectstring)

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), simulated="node-restart")
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause()
            view = app.current_view
            if isinstance(view, NodesView) and view.snapshot is snapshot:
                break
        await pilot.press("down")
        for _ in range(200):
            await pilot.pause()
            if "Node 3 · node restart" in screen(app):
                break
        return str(screen(app))


async def test_phases_show_last_time_and_the_slow_phase_in_progress_is_flagged(
    s2_phase5: Capture, tmp_path: Path, screen: Any
) -> None:
    # Node 3 restarted yesterday with phase 5 taking 200 s; now it has run about 309 s. Node
    # 2's more recent restart is not the comparison: a node is compared with itself first.
    history = (past(3, NODE_RESTART, 200.0), past(2, NODE_RESTART, 900.0, days_ago=0.5))
    snap = replace(s2_phase5.snapshot, past_starts=history)
    text = await detail(snap, s2_phase5, tmp_path, screen)
    assert "Node 3 · node restart" in text
    assert re.search(r" 4  restore or local start +0s +last time 0s", text)
    assert re.search(r"▶ 5  copy data, wait LCP +5m\d\ds so far +last time 3m20s", text)
    assert re.search(
        r"⚠ phase 5 copy data, wait LCP is slower than last time: 5m\d\ds so far, "
        r"3m20s last time \(\+5\d%\)",
        text,
    )


async def test_a_phase_within_its_last_time_is_not_flagged(
    s2_phase5: Capture, tmp_path: Path, screen: Any
) -> None:
    snap = replace(s2_phase5.snapshot, past_starts=(past(3, NODE_RESTART, 250.0),))
    text = await detail(snap, s2_phase5, tmp_path, screen)
    assert re.search(r"▶ 5  copy data, wait LCP +5m\d\ds so far +last time 4m10s", text)
    assert "slower than last time" not in text


async def test_without_a_comparable_start_nothing_is_added(
    s2_phase5: Capture, tmp_path: Path, screen: Any
) -> None:
    snap = replace(s2_phase5.snapshot, past_starts=(past(3, INITIAL_START, 10.0),))
    text = await detail(snap, s2_phase5, tmp_path, screen)
    assert re.search(r"▶ 5  copy data, wait LCP +5m\d\ds so far", text)
    assert "last time" not in text


def test_on_a_short_terminal_phases_no_slower_than_last_time_fold_into_one_line(
    s2_phase5: Capture,
) -> None:
    from rich.console import Console

    from ndbtop.tui.views.timeline import timeline_panel

    snap = replace(s2_phase5.snapshot, past_starts=(past(3, NODE_RESTART, 200.0),))
    console = Console(width=80, record=True, color_system=None, file=io.StringIO())
    console.print(timeline_panel(snap, 3, snap.wall, compact=True))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("Node 3 · node restart")
    assert re.match(r"▶ 5  copy data, wait LCP +5m\d\ds so far +last time 3m20s", lines[1])
    done = " ".join(lines[next(i for i, x in enumerate(lines) if x.startswith("done: ")):])
    assert "1 connect, heartbeats 0s" in done and "4 restore or local start 0s" in done
    assert not any(re.match(r" +4  restore or local start", line) for line in lines)
