"""An 80x24 terminal: every tab in sight, tables that show fewer columns rather than cut
ones, and a starting node's redo progress at the top of its detail panel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_tui_snapshots import settle

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import CaptureSpec
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.widgets.keyed_table import KeyedTable
from tests.captures import captured

SIZE = (80, 24)
S1_REPORTING = CaptureSpec("initial-start", 1200.0, report_frequency=10)
"""S1 twenty minutes in, its data nodes reporting the redo log's creation every 10 s."""


async def shown(spec: CaptureSpec, key: str, tmp_path: Path):
    """The app at 80x24 showing ``spec``'s moment in the view of ``key``, settled."""
    cap = await captured(spec)

    async def start() -> FrozenSource:
        return FrozenSource(cap.snapshot, cap.connectstring)

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), simulated=spec.scenario)
    return app, cap


async def still(app: NdbtopApp, pilot, key: str) -> str:
    await settle(pilot, lambda: app.hub is not None and app.current_view.snapshot)
    await pilot.press(key)
    shots = [screen_text(app)]

    def same() -> bool:
        shots.append(screen_text(app))
        return len(shots) > 4 and len(set(shots[-4:])) == 1

    await settle(pilot, same)
    return shots[-1]


VIEWS = [
    ("nodes-started", CaptureSpec("threads", 120.0), "1"),
    ("nodes-s1", CaptureSpec("initial-start", 1800.0), "1"),
    ("threads", CaptureSpec("threads", 120.0), "2"),
    ("disk", CaptureSpec("disk-buffer", 1500.0, step=45.0), "3"),
    ("tables", CaptureSpec("node-down", 60.0, step=1.0, panels=("tables",)), "9"),
]


@pytest.mark.parametrize(("name", "spec", "key"), VIEWS, ids=[v[0] for v in VIEWS])
async def test_no_table_cuts_a_value_or_a_header_and_every_tab_is_in_sight(
    name: str, spec: CaptureSpec, key: str, tmp_path: Path
) -> None:
    app, _ = await shown(spec, key, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        text = await still(app, pilot, key)
        lines = text.splitlines()
        assert all(f" {k % 10} " in lines[2] for k in range(1, 11)), lines[2]
        tables = [t for t in app.current_view.query(KeyedTable) if t.display and t.row_count]
        assert tables
        for table in tables:
            # Nothing beyond the right edge: the table does not scroll sideways.
            assert table.virtual_size.width <= table.size.width, table.id
            header = table.render_line(0).text
            labels = [str(c.label) for c in table.ordered_columns]
            assert header.split() == " ".join(labels).split(), (table.id, header)
            for y in range(1, 1 + min(table.row_count, table.size.height - 1)):
                row = table.render_line(y).text
                assert len(row.rstrip()) <= table.size.width
            # Each value shown whole: the table's cell, not a cut copy.
            for row_key in list(table.rows)[:3]:
                for column in table.ordered_columns:
                    value = table.get_cell(row_key, column.key)
                    plain = getattr(value, "plain", str(value or ""))
                    assert len(plain) <= column.get_render_width(table) - 2


async def test_the_nodes_rows_keep_memory_transactions_and_disk_at_80_columns(
    tmp_path: Path,
) -> None:
    app, _ = await shown(CaptureSpec("threads", 120.0), "1", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        text = await still(app, pilot, "1")
        table = app.current_view.query_one("#nodes", KeyedTable)
        # The version and the phase columns (no node starts) make room.
        assert table.shown_columns[-3:] == ["memory", "tx", "disk"]
        assert "version" not in table.shown_columns and "phase" not in table.shown_columns
        row = next(line for line in text.splitlines() if line.startswith(" 2 "))
        assert row.split()[-3:] == ["30%", "2,000", "5%"]


async def test_during_s1_the_redo_line_comes_first_under_the_nodes_title(tmp_path: Path) -> None:
    app, _ = await shown(S1_REPORTING, "1", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        text = await still(app, pilot, "1")
        lines = text.splitlines()
        title = next(i for i, line in enumerate(lines) if line.startswith(" Node 10 · initial"))
        assert re.match(r" redo log init \S+ +[\d,]+/43,008 MB · [\d.]+ MB/s of log",
                        lines[title + 1]), lines[title + 1]
        assert lines[-1].rstrip().endswith("q Quit")


async def test_the_tabs_take_their_full_titles_again_on_a_wider_terminal(tmp_path: Path) -> None:
    app, _ = await shown(CaptureSpec("threads", 120.0), "1", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await still(app, pilot, "1")
        assert screen_text(app).splitlines()[2].split()[:4] == ["1", "Nodes", "2", "Thr"]
        table = app.current_view.query_one("#nodes", KeyedTable)
        await pilot.resize_terminal(120, 40)
        await settle(pilot, lambda: "2 Threads" in screen_text(app).splitlines()[2])
        await settle(pilot, lambda: "version" in table.shown_columns)
        await pilot.resize_terminal(*SIZE)
        await settle(pilot, lambda: "2 Thr " in screen_text(app).splitlines()[2])
        await settle(pilot, lambda: "version" not in table.shown_columns)
        assert "0 Locks" in screen_text(app).splitlines()[2]
