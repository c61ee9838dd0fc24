"""KeyedTable: cells drawn by its own path look exactly as DataTable draws them."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from ndbtop.tui.widgets.keyed_table import KeyedTable

COLUMNS = (("a", "thr"), ("b", "name"), ("c", "bar"), ("d", "blocks"))


class TableApp(App[None]):
    """One KeyedTable, narrow enough that the last column is cropped."""

    CSS = "KeyedTable { width: 40; height: 10; }"

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, id="t")


def _cells(lines: list[list[Segment]]) -> list[tuple[str, object]]:
    return [(ch, seg.style) for line in lines for seg in line for ch in seg.text]


ROWS = [
    ("1", ("1", Text("ldm", style="bold red"), Text("██", style="green") + Text("▌", "blue"),
           "DBLQH DBACC DBTUP DBTUX BACKUP SUMA")),
    ("2", ("2", Text("main"), Text("水水", style="on blue"), Text("[not markup]"))),
    ("3", ("3", Text(""), Text("·" * 30, style="dim"), "")),
]


async def test_text_cells_match_datatable_rendering_cell_for_cell() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(ROWS)
        await pilot.pause()
        style = table.rich_style
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        checked = 0
        for row in range(table.row_count):
            for col, width in enumerate(widths):
                for cursor in (False, True):
                    row_key = table._row_locations.get_key(row)
                    ours = table._render_text_cell(row, col, row_key, style, width, cursor, False)
                    theirs = DataTable._render_cell(table, row, col, style, width, cursor, False)
                    if ours is None:
                        continue
                    assert _cells(ours) == _cells(theirs), (row, col, cursor)
                    checked += 1
        assert checked >= 20


async def test_a_cell_is_drawn_again_only_when_its_value_changes() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(ROWS)
        await pilot.pause()
        style = table.rich_style
        first = table._render_cell(0, 1, style, 8)
        assert table._render_cell(0, 1, style, 8) is first
        table.sync([(ROWS[0][0], ("1", Text("ldm", style="bold red"), Text("█"), "X")),
                    *ROWS[1:]])
        await pilot.pause()
        assert table._render_cell(0, 1, style, 8) is first, "same name: drawn once"
        table.sync([(ROWS[0][0], ("1", Text("tc"), Text("█"), "X")), *ROWS[1:]])
        await pilot.pause()
        again = table._render_cell(0, 1, style, 8)
        assert again is not first
        assert "".join(ch for ch, _ in _cells(again)).strip() == "tc"


async def test_a_changed_cell_repaints_its_row_and_a_reorder_only_the_moved_rows() -> None:
    app = TableApp()
    rows = [(str(i), (str(i), Text(f"t{i}"), Text("█"), "X")) for i in range(6)]
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(rows)
        await pilot.pause()
        table._repaint_regions.clear()
        changed = list(rows)
        changed[2] = ("2", ("2", Text("busy"), Text("█"), "X"))
        table.sync(changed)
        assert {r.height for r in table._repaint_regions} == {1}
        assert len(table._repaint_regions) == 1, "one row, not the whole table"
        await pilot.pause()
        table._repaint_regions.clear()
        table.sync(changed, order=lambda k: {"1": -1, "0": 0}.get(k, int(k)))
        assert table.row_keys_in_order() == ["1", "0", "2", "3", "4", "5"]
        assert len(table._repaint_regions) == 2, "rows 0 and 1 swapped, the rest stays"
        await pilot.pause()
        assert table.selected_key == "1"
