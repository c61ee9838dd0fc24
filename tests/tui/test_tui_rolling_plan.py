"""The rolling restart's plan (``W``) before the start: which configuration it brings the
nodes onto, and the whole dialog (options, plan notes, verdict, buttons) at 80x24."""

from __future__ import annotations

import dataclasses

from textual.widgets import Button, Checkbox

from ndbtop.demo.capture import CaptureSpec, capture
from ndbtop.model.sources import SourceState
from ndbtop.tui.screens.rolling import RollingRestartScreen
from ndbtop.tui.source import FrozenSource


async def open_plan(t) -> RollingRestartScreen:
    await t.press("W")
    await t.until(lambda: isinstance(t.app.screen, RollingRestartScreen), "the plan")
    await t.pilot.pause(0.2)
    return t.app.screen


def box_lines(text: str) -> list[str]:
    """The dialog's lines, without its border."""
    lines = []
    for line in text.splitlines():
        if line.count("█") >= 2:
            lines.append(line[line.index("█") + 1:line.rindex("█")].strip())
    return lines


async def test_the_plan_names_the_nodes_it_brings_onto_the_new_generation(tui_on) -> None:
    # config-change: generation 5 since second 30; node 2 restarted onto it, 3, 4, 5 did not.
    cap = await capture(CaptureSpec("config-change", 100.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        await open_plan(t)
        joined = " ".join(box_lines(t.text()))
        assert ("configuration: brings node 3, 4, 5 onto configuration generation 5 "
                "(still running an older one)") in joined


async def test_without_a_sql_node_the_plan_says_what_it_cannot_know(tui_on) -> None:
    cap = await capture(CaptureSpec("config-change", 100.0))
    snap = cap.snapshot
    sources = tuple(dataclasses.replace(s, state=SourceState.DISABLED)
                    if s.name == "ndbinfo" else s for s in snap.sources)
    snap = dataclasses.replace(snap, sources=sources)
    assert snap.live_ndbinfo() is None
    async with tui_on(FrozenSource(snap, cap.connectstring)) as t:
        await open_plan(t)
        joined = " ".join(box_lines(t.text()))
        assert "configuration: generation 5; which nodes still run an older one needs a " \
               "SQL node (ndbinfo.nodes)" in joined
        assert "brings node" not in joined


async def test_force_degraded_fits_80x24(tui_on) -> None:
    # node-groups: node 5 is NO_CONTACT; forcing leaves out 5 and 3 (last of group 1).
    cap = await capture(CaptureSpec("node-groups", 60.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring), size=(80, 24)) as t:
        screen = await open_plan(t)
        assert "✖ pre-flight: refused: data node 5 is NO_CONTACT" in t.text()
        await t.pilot.click("#force-degraded")
        await t.until(lambda: screen.force_degraded, "force degraded ticked")
        await t.pilot.pause(0.3)
        text = t.text()
        lines = text.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        inside = box_lines(text)
        joined = " ".join(inside)
        for label in ("one per node group", "-i initial", "▐X▌ force degraded"):
            assert label in joined
        assert "(node 5 left out: NO_CONTACT, not STARTED)" in joined
        assert "pre-flight: degraded, going on (--force-degraded)" in joined
        assert "node group 1 misses node 5 (NO_CONTACT)" in joined
        assert "esc cancels" in joined
        assert any(line.split() == ["Cancel", "Start"] for line in inside)
        start = screen.query_one("#start", Button)
        assert not start.disabled
        for widget in (*screen.query(Checkbox), start, screen.query_one("#cancel", Button)):
            region = widget.region
            assert region.right <= 80 and region.bottom <= 24, widget.id
            assert region.width > 0 and region.height > 0, widget.id
