"""A source that dies: the header says so, the last data stays on screen, and it comes back."""

from __future__ import annotations

import re

from tests.captures import captured

LOST = re.compile(r"mgm( stale \d+s)? lost(, retry in \d+s)?")


async def test_a_lost_management_server_shows_in_the_header_and_comes_back(tui):
    async with tui("threads") as t:
        await t.until(lambda: re.search(r"mgm \d+s", t.header()), "mgm fresh")
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.view("1")
        rows = t.row_keys("#nodes")
        assert len(rows) == 7

        await t.sim.stop_mgmd(1)
        await t.until(lambda: LOST.search(t.header()), "mgm lost in the header")
        header = t.header()
        assert re.search(r"ndbinfo \d+s", header), "ndbinfo is still fresh"
        assert re.search(r"host \d+s", header)
        # What the management server said last stays on screen.
        assert t.row_keys("#nodes") == rows
        assert t.node_status(2) == "STARTED" and t.node_status(3) == "STARTED"
        await t.view("2")
        assert t.table("#detail").row_count == 7, "threads come from ndbinfo: still there"
        assert "ldm 3" in t.text()

        await t.sim.start_mgmd(1)
        await t.until(lambda: not LOST.search(t.header()), "mgm back", timeout=15.0)
        await t.until(
            lambda: (
                re.search(r"mgm \d+s", t.header()) and re.search(r"events \d+s", t.header())
            ),
            "mgm and events fresh again",
            timeout=15.0,
        )
        assert t.hub.snapshot().source("mgm").error is None


async def test_figures_of_a_silent_management_server_are_stale_and_no_action_takes_them(tui):
    from rich.text import Text
    from textual.widgets import Button, Static

    from ndbtop.tui.screens.confirm import ConfirmAction

    async with tui("threads") as t:
        await t.until(lambda: "every node group complete" in t.text(), "the summary")
        await t.sim.stop_mgmd(1)
        stale = re.compile(r"STALE as of \d\d:\d\d:\d\d, \d+ s ago: data nodes started 2/2  ·  "
                           r"every node group complete")
        await t.until(lambda: stale.search(t.text()), "the summary marked stale")
        summary = t.app.current_view.query_one("#summary", Static).content
        assert isinstance(summary, Text)
        styles = {str(span.style) for span in summary.spans}
        assert not any("green" in s for s in styles), styles
        # The node statuses lose their colour too.
        cell = t.table("#nodes").get_cell("2", "status")
        assert isinstance(cell, Text) and cell.plain == "STARTED" and str(cell.style) == "dim"

        # The guard does not act on the partner's last known STARTED.
        await t.press("r")
        await t.until(lambda: isinstance(t.app.screen, ConfirmAction), "the confirmation")
        screen = t.app.screen
        await t.until(lambda: "the cluster state is stale (as of " in t.text(), "the refusal")
        assert re.fullmatch(r"the cluster state is stale \(as of \d\d:\d\d:\d\d, \d+ s ago: the "
                            r"management server has not answered since\); not acting on it",
                            screen.assessment.blockers[0])
        assert screen.query_one("#go", Button).disabled
        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, ConfirmAction), "the dialog closed")

        # Nor does the rolling restart start on it.
        from ndbtop.tui.screens.rolling import RollingRestartScreen

        await t.press("W")
        await t.until(lambda: isinstance(t.app.screen, RollingRestartScreen), "the plan")
        await t.until(lambda: "step 1 would stop now: the cluster state is stale" in t.text(),
                      "the stale guard")
        assert t.app.screen.query_one("#start", Button).disabled


async def test_no_data_node_seen_is_never_complete(tui_on):
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.model.sources import SourceState, SourceStatus
    from ndbtop.tui.source import FrozenSource

    # A connect string with a typo: the management server never answered.
    lost = SourceStatus("mgm", SourceState.RETRYING, target="db1:1168",
                        error="cannot connect to a management server: db1:1168: refused")
    snap = ClusterSnapshot(100.0, 1_800_000_000.0, 1.0, (lost,))
    async with tui_on(FrozenSource(snap, parse_connectstring("db1:1168"))) as t:
        text = t.text()
        assert "management server never answered: no data nodes seen" in text
        assert "every node group complete" not in text and "started 0/0" not in text


async def test_figures_of_a_quiet_sql_node_and_host_are_marked_stale(tui_on):
    import dataclasses

    from ndbtop.demo.capture import CaptureSpec
    from ndbtop.tui.source import FrozenSource

    cap = await captured(CaptureSpec("threads", 120.0))
    snap = cap.snapshot
    sources = tuple(
        dataclasses.replace(s, last_ok=snap.taken_at - 78)
        if s.name in ("ndbinfo", "host") else s
        for s in snap.sources
    )
    snap = dataclasses.replace(snap, sources=sources)
    stale = re.compile(r"STALE as of \d\d:\d\d:\d\d, 78 s ago: ")
    async with tui_on(FrozenSource(snap, cap.connectstring)) as t:
        # The management server answered: its summary is current; the SQL node's figures
        # in the table are dimmed.
        assert "STALE" not in t.app.current_view.query_one("#summary").content.plain
        cell = t.table("#nodes").get_cell("2", "uptime")
        assert str(cell.style) == "dim"
        await t.view("2")
        await t.until(lambda: stale.search(t.text()), "the threads marked stale")
        assert re.search(stale.pattern + "node 2: 7 threads", t.text())
        await t.view("3")
        await t.until(lambda: re.search(stale.pattern + "Host disks", t.text()), "host stale")
        assert re.search(stale.pattern + "Data nodes", t.text())


async def test_a_stale_management_server_greys_every_state_and_figure_of_the_rows(tui_on):
    import dataclasses

    from ndbtop.demo.capture import CaptureSpec
    from ndbtop.tui.source import FrozenSource

    cap = await captured(CaptureSpec("threads", 120.0))
    snap = cap.snapshot
    # Only the management server went quiet: ndbinfo's figures are current, but the rows
    # they sit in may show nodes that have stopped since, as the summary's STALE says.
    sources = tuple(dataclasses.replace(s, last_ok=snap.taken_at - 78) if s.name == "mgm"
                    else s for s in snap.sources)
    snap = dataclasses.replace(snap, sources=sources)
    async with tui_on(FrozenSource(snap, cap.connectstring)) as t:
        summary = t.app.current_view.query_one("#summary").content.plain
        assert re.match(r"STALE as of \d\d:\d\d:\d\d, 78 s ago: ", summary)
        table = t.table("#nodes")
        for column, plain in (("status", "STARTED"), ("tx", "2,000"), ("memory", "30%"),
                              ("uptime", None), ("disk", "5%")):
            cell = table.get_cell("2", column)
            assert str(cell.style) == "dim", (column, cell)
            assert plain is None or cell.plain == plain
        # The words stay: greyed, not blanked.
        assert table.get_cell("2", "uptime").plain


async def test_fresh_sources_keep_the_rows_colours(tui_on):
    from ndbtop.demo.capture import CaptureSpec
    from ndbtop.tui.source import FrozenSource

    cap = await captured(CaptureSpec("threads", 120.0))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        table = t.table("#nodes")
        assert "green" in str(table.get_cell("2", "status").style)
        assert all(str(getattr(table.get_cell("2", c), "style", "")) != "dim"
                   for c in ("tx", "memory", "uptime", "disk"))
