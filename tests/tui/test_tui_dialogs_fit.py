"""The rolling restart's plan (``W``) before the start: which configuration it brings the
nodes onto; and the dialogs that force through a degraded cluster (``W`` with force
degraded, ``r`` with -i -f on the last node of a group) whole at 80x24."""

from __future__ import annotations

import dataclasses

from textual.widgets import Button, Checkbox, Input

from ndbtop.demo.capture import CaptureSpec
from ndbtop.model.sources import SourceState
from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.rolling import RollingRestartScreen
from ndbtop.tui.source import FrozenSource
from tests.captures import captured


async def open_plan(t) -> RollingRestartScreen:
    await t.press("W")
    await t.until(lambda: isinstance(t.app.screen, RollingRestartScreen), "the plan")
    await t.until(lambda: "pre-flight" in t.text(), "the plan's pre-flight")
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
    cap = await captured(CaptureSpec("config-change", 100.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        await open_plan(t)
        joined = " ".join(box_lines(t.text()))
        assert ("configuration: brings node 3, 4, 5 onto configuration generation 5 "
                "(still running an older one)") in joined


async def test_without_a_sql_node_the_plan_says_what_it_cannot_know(tui_on) -> None:
    cap = await captured(CaptureSpec("config-change", 100.0))
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
    cap = await captured(CaptureSpec("node-groups", 60.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring), size=(80, 24)) as t:
        screen = await open_plan(t)
        assert "✖ pre-flight: refused: data node 5 is NO_CONTACT" in t.text()
        await t.pilot.click("#force-degraded")
        await t.until(lambda: screen.force_degraded, "force degraded ticked")
        await t.until(lambda: "pre-flight: degraded, going on" in " ".join(t.text().split()),
                      "the plan drawn again")
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


async def test_initial_forced_restart_of_the_last_node_of_a_group_fits_80x24(tui_on) -> None:
    # node-groups: node 3 is the last started node of group 1 (5 is NO_CONTACT).
    cap = await captured(CaptureSpec("node-groups", 60.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring), size=(80, 24)) as t:
        await t.view("1")
        for _ in range(10):
            if t.app.current_view.selected_node() == 3:
                break
            await t.press("down")
        assert t.app.current_view.selected_node() == 3
        await t.press("r")
        await t.until(lambda: isinstance(t.app.screen, ConfirmAction), "the confirmation")
        screen = t.app.screen
        for flag in ("initial", "force"):
            await t.pilot.click(f"#flag-{flag}")
        await t.until(lambda: screen.assessment.confirm_text is not None, "-i -f ticked")
        await t.until(lambda: "THE SERVER WILL DO THIS" in t.text(), "the consequence drawn")
        text = t.text()
        joined = " ".join(box_lines(text))
        assert "Restart node 3?" in joined
        assert "▐X▌ -i initial" in joined and "▐X▌ -f force" in joined
        assert "ndb_mgm> 3 RESTART -i -f" in joined
        assert "restart node v2⏎node: 3⏎abort: 0⏎initialstart: 1⏎nostart: 0⏎force: 1⏎⏎" in joined
        assert "THE SERVER WILL DO THIS: the whole cluster restarts initial" in joined
        assert joined.count("every data node (2 3 4) starts from an empty file system") == 1
        assert "type delete all data to confirm" in joined
        assert any(line.split() == ["Cancel", "Restart", "(type", "to", "confirm)"]
                   for line in box_lines(text))
        for widget in (screen.query_one("#confirm", Input), screen.query_one("#go", Button),
                       screen.query_one("#cancel", Button)):
            region = widget.region
            assert region.right <= 80 and region.bottom <= 24, widget.id
            assert region.width > 0 and region.height > 0, widget.id


async def test_a_disabled_button_says_so_in_words(tui_on) -> None:
    # Without colour, a disabled button looks like an enabled one: its label tells.
    cap = await captured(CaptureSpec("node-groups", 60.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        screen = await open_plan(t)
        start = screen.query_one("#start", Button)
        assert start.disabled and str(start.label) == "Start (refused)"
        await t.pilot.click("#force-degraded")
        await t.until(lambda: not start.disabled, "Start enabled by force degraded")
        assert str(start.label) == "Start"
        await t.pilot.click("#initial")
        await t.until(lambda: start.disabled, "Start waits for the typed -i")
        assert str(start.label) == "Start (type initial)"
        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, RollingRestartScreen), "closed")

        await t.view("1")
        for _ in range(10):
            if t.app.current_view.selected_node() == 5:
                break
            await t.press("down")
        await t.press("r")
        await t.until(lambda: isinstance(t.app.screen, ConfirmAction), "the confirmation")
        go = t.app.screen.query_one("#go", Button)
        assert go.disabled and str(go.label) == "Restart (refused)"
