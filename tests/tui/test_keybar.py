"""The bottom line of keys: what it lists in the live view and in a replay, and clicks."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Tab

from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import Recorder
from ndbtop.record.replay import ReplaySource
from ndbtop.tui.screens.help import HelpScreen
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.widgets.keybar import KeyBar

LIVE = " r Restart  L Stats log  W Rolling restart  B Backup  p Pause  / Filter  ? Help  q Quit"
TABS = ["1 Nodes", "2 Threads", "3 Disk", "4 Events", "5 Restarts", "6 Backup", "7 Config",
        "8 Findings", "9 Tables", "0 Locks"]


def _snapshot() -> ClusterSnapshot:
    return ClusterSnapshot(time.monotonic(), time.time(), 1.0, ())


def _frozen() -> FrozenSource:
    return FrozenSource(_snapshot(), parse_connectstring("127.0.0.1:1"))


async def test_the_live_view_lists_its_keys_and_the_palette_at_the_right(tui_on) -> None:
    async with tui_on(_frozen()) as t:
        line = await t.footer()
        assert line.startswith(LIVE)
        assert line.endswith("▏^p palette ") and len(line) == 120
        # The views' number keys are on their tabs, not in the bar; Replication's tab (e)
        # shows once a replica is named.
        assert [str(tab.label) for tab in t.app.query(Tab) if tab.display] == TABS
        assert [str(tab.label) for tab in t.app.query(Tab) if not tab.display] == [
            "e Replication"]
        keys = [shown for shown, _, _, _ in t.app.query_one(KeyBar).entries()]
        assert "space" not in keys and "." not in keys  # replay keys are hidden


async def test_a_replay_lists_its_keys_with_grouped_ones_together(
    tmp_path: Path, tui_on
) -> None:
    recorder = Recorder(tmp_path / "r.ndbrec", source="test")
    recorder.write(_snapshot())
    recorder.close()
    replay = ReplaySource(read_recording(tmp_path / "r.ndbrec"))
    async with tui_on(replay, replay=True) as t:
        line = await t.footer()
        assert " space Play " in line
        assert " . , Step " in line and " > < Speed " in line
        assert "r Restart" not in line and "p Pause" not in line
        # The help lists no key a replay refuses (actions, backups, recording).
        helped = {key for key, _ in t.app.help_keys()}
        assert helped.isdisjoint({"r", "x", "t", "L", "W", "B", "A", "R"})


async def test_clicking_a_key_presses_it(tui_on) -> None:
    async with tui_on(_frozen()) as t:
        line = await t.footer()
        await t.pilot.click(KeyBar, offset=(line.index("? Help") + 1, 0))
        await t.until(lambda: isinstance(t.app.screen, HelpScreen), "the help")



async def test_help_and_quit_stay_on_a_narrow_terminal(tui_on) -> None:
    for width in (80, 100):
        async with tui_on(_frozen(), size=(width, 24)) as t:
            line = await t.footer()
            assert len(line) <= width
            assert " / Filter  ? Help  q Quit" in line, line
            assert line.startswith(" r Restart  L Stats log")
            await t.pilot.click(KeyBar, offset=(line.index("? Help") + 1, 0))
            await t.until(lambda: isinstance(t.app.screen, HelpScreen), "the help")


async def test_the_fleet_key_shows_where_there_is_a_fleet_even_on_a_narrow_terminal(
        tui_on) -> None:
    async with tui_on(_frozen(), size=(80, 24), fleet=True) as t:
        line = await t.footer()
        assert line.endswith(" F Fleet  / Filter  ? Help  q Quit ") and len(line) <= 80, line
        await t.pilot.press("F")
        await t.until(lambda: t.app.to_fleet, "the view left for the overview")
    # Without a fleet (one cluster, no context) F is not offered, and says why if pressed.
    async with tui_on(_frozen()) as t:
        assert "F Fleet" not in await t.footer()
        await t.pilot.press("F")
        await t.until(lambda: any("no fleet" in n for n, _ in t.notes), "why there is none")
