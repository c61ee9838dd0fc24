"""Every alarm state carries a text marker without colour (NO_COLOR / --no-color), and
nothing is drawn in greys that hide it: each alarm rendered without colour shows its
marker, and with colour the screen stays as it was."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.app import App
from textual.filter import Monochrome, NoColor

from ndbtop.host.rates import DiskRates
from ndbtop.host.view import HostView
from ndbtop.model.history import PhaseVsLastTime
from ndbtop.model.hosts import HostReport
from ndbtop.model.phases import INITIAL_START, PhaseRecord, StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.alarm import plain_colours
from ndbtop.tui.views.disk import hit_text
from ndbtop.tui.views.node_cells import last_time_cell, memory_cell, timer_cell, util_cell
from ndbtop.tui.views.redo import host_disk_line
from ndbtop.tui.views.timeline import timeline_panel

BUSY = DiskRates("sdb", 0.0, 50.0, 0.0, 1040.0, wareq_kb=20.5, await_ms=36.5, util_pct=100.0)
HOST = HostReport("h", "ssh", (10,), "ok", view=HostView(1000.0, 1.0, (BUSY,), None, ()))
# Node 10, 40 minutes into phase 2 of an initial start whose phase 1 took 5 minutes: both
# well past the normal 10 s.
SLOW = StartTimeline(10, INITIAL_START, 0.0, True,
                     completed=(PhaseRecord(1, 0.0, 300.0, True),),
                     current_phase=2, current_since=300.0)


def plain(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def alarms() -> dict[str, tuple[str, str]]:
    """Each alarm state: (what is drawn, the marker it must carry without colour)."""
    versus = PhaseVsLastTime(2, 2400.0, 600.0, True, True)
    snap = ClusterSnapshot(1.0, 2700.0, 1.0, (), timelines=(SLOW,))
    panel = Console(width=120, color_system=None)
    with panel.capture() as captured:
        panel.print(timeline_panel(snap, 10, 2700.0))
    return {
        "DataMemory 94%": (plain(memory_cell(94.0)), "94% FULL"),
        "DataMemory 85%": (plain(memory_cell(85.0)), "85% !"),
        "disk 100% busy": (plain(util_cell(HOST)), "100% !"),
        "phase past twice its normal": (plain(timer_cell(SLOW, 2700.0)), "40m00s !"),
        "phase slower than last time": (plain(last_time_cell(versus)), "last time 10m00s !"),
        "hit ratio below 99%": (plain(hit_text(98.2)), "98.20% LOW"),
        "hit ratio below 95%": (plain(hit_text(93.4)), "93.40% LOW"),
        "await over 20 ms, %util over 90": (plain(host_disk_line(HOST)),
                                            "await 36.5 ms ! · %util 100% !"),
        "completed phase past twice its normal": (captured.get(), "5m00s !"),
    }


def test_without_colour_every_alarm_carries_its_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    for state, (drawn, marker) in alarms().items():
        assert marker in drawn, state


def test_with_colour_the_alarms_are_drawn_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    for state, (drawn, marker) in alarms().items():
        assert marker.rsplit(" ", 1)[-1] not in drawn.split(), state
    assert plain(memory_cell(94.0)) == "94%"


def test_without_colour_the_screen_drops_colours_instead_of_greying_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Textual's Monochrome drew a red alarm in grey 237 on grey 235: NoColor keeps the
    # terminal's own colours (bold stays bold).
    monkeypatch.setenv("NO_COLOR", "1")
    app = App[None]()
    assert any(isinstance(f, Monochrome) for f in app._filters)
    plain_colours(app)
    assert not any(isinstance(f, Monochrome) for f in app._filters)
    assert any(isinstance(f, NoColor) for f in app._filters)


async def test_the_threads_view_names_its_hottest_thread_without_colour(
    monkeypatch: pytest.MonkeyPatch, tui: Any,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with tui("threads") as t:
        await t.view("2")
        await t.until_shown("(hottest marked HOT)")
        text = t.text()
    assert "(hottest in red)" not in text
    assert " HOT" in text.replace("(hottest marked HOT)", "")
