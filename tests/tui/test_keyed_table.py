"""KeyedTable: rows drawn by its own path look exactly as DataTable draws them, and a
change repaints only the rows (and the part of a row) it touches."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable

from ndbtop.tui.widgets.keyed_table import KeyedTable

COLUMNS = (("a", "thr"), ("b", "name"), ("c", "bar"), ("d", "blocks"))


class TableApp(App[None]):
    """One KeyedTable, narrow enough that the last column is cropped (with ``fit``: left
    out, or those of ``drop`` first)."""

    CSS = "KeyedTable { width: 40; height: 10; }"

    def __init__(self, fit: bool = False, drop: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.fit, self.drop = fit, drop

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, id="t", fit=self.fit, drop=self.drop)


ROWS = [
    ("1", ("1", Text("ldm", style="bold red"), Text("██", style="green") + Text("▌", "blue"),
           "DBLQH DBACC DBTUP DBTUX BACKUP SUMA")),
    ("2", ("2", Text("main"), Text("水水", style="on blue"), Text("[not markup]"))),
    ("3", ("3", Text(""), Text("·" * 30, style="dim"), "")),
    ("4", ("4", "[b]markup[/b]", Text("x", justify="right"), "a:b:c 12:30:00")),
    ("5", ("5", None, Text("two\nlines"), "last")),
]


def looks(strip: Strip) -> list[tuple[str, object]]:
    """Every character of a line with how it looks: its style (mouse metadata aside), or
    for a space only what shows in a space (the background, lines, reverse video)."""
    out: list[tuple[str, object]] = []
    for segment in strip:
        style = segment.style or Style()
        for char in segment.text:
            if char == " ":
                out.append((char, (style.bgcolor, style.reverse, style.underline,
                                   style.strike, style.overline)))
            else:
                out.append((char, style.clear_meta_and_links()))
    return out


async def test_lines_look_exactly_as_datatable_draws_them() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(ROWS)
        await pilot.pause()
        checked = 0
        for zebra, scroll_x, cursor_row in ((False, 0, 0), (False, 0, 3), (True, 0, 1),
                                            (False, 7, 2)):
            table.zebra_stripes = zebra
            table.move_cursor(row=cursor_row)
            table.scroll_to(x=scroll_x, animate=False)
            await pilot.pause()
            assert table.scroll_x == scroll_x
            table._pseudo_class_state = table.get_pseudo_class_state()
            for y in range(1, 1 + len(ROWS)):
                ours = table.render_line(y)
                theirs = DataTable.render_line(table, y)
                assert looks(ours) == looks(theirs), (zebra, scroll_x, cursor_row, y)
                checked += 1
        assert checked == 4 * len(ROWS)


async def test_a_row_is_drawn_again_only_when_its_values_change() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(ROWS)
        await pilot.pause()
        first, second = table.render_line(1), table.render_line(2)
        assert table.render_line(1) is first
        busy = ("2", ("2", Text("busy"), Text("水水", style="on blue"), Text("[not markup]")))
        table.sync([ROWS[0], busy, *ROWS[2:]])
        assert table.render_line(1) is first, "row 1 did not change"
        again = table.render_line(2)
        assert again is not second
        assert "busy" in again.text
        table.sync([ROWS[0], ("2", ("2", Text("busy"), Text("水水", style="on blue"),
                                     Text("[not markup]"))), *ROWS[2:]])
        assert table.render_line(2) is again, "values that look the same: not drawn again"


async def test_a_row_has_one_segment_per_look() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        bars = Text("██", style="green") + Text(" ") + Text("▌", style="green")
        table.sync([("1", ("1", Text("ldm"), bars, "x"))])
        await pilot.pause()
        table.move_cursor(row=0)
        table.sync([("1", ("1", Text("ldm"), bars, "x")), ("2", ("2", "tc", bars, "y"))])
        await pilot.pause()
        line = table.render_line(2)
        # The plain cells before the bar, the bar (its space and padding take its colour:
        # spaces look the same in any), then the plain rest of the line.
        assert [segment.text.split() for segment in line] == [["2", "tc"], ["██", "▌"], ["y"]]
        assert all(segment.style.meta == {"row": 1, "column": 0} for segment in line)


async def test_a_changed_value_repaints_its_row_up_to_that_column() -> None:
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
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        # Textual sends a repainted line from the widget's left edge to the region's end:
        # the columns after the changed one are not sent again.
        assert table._repaint_regions == {Region(0, 1 + 2, widths[0] + widths[1], 1)}
        await pilot.pause()
        table._repaint_regions.clear()
        table.sync(changed, order=lambda k: {"1": -1, "0": 0}.get(k, int(k)))
        assert table.row_keys_in_order() == ["1", "0", "2", "3", "4", "5"]
        assert len(table._repaint_regions) == 2, "rows 0 and 1 swapped, the rest stays"
        await pilot.pause()
        assert table.selected_key == "1"
        table._repaint_regions.clear()
        table.sync(changed, order=lambda k: {"1": -1, "0": 0}.get(k, int(k)))
        assert not table._repaint_regions, "nothing changed, nothing repainted"


async def test_rows_out_of_sight_are_not_repainted() -> None:
    app = TableApp()
    rows = [(str(i), (str(i), Text(f"t{i}"), "", "")) for i in range(30)]
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(rows)
        await pilot.pause()
        table._repaint_regions.clear()
        table.sync([*rows[:20], ("20", ("20", Text("busy"), "", "")), *rows[21:]])
        assert not table._repaint_regions
        assert table.get_cell("20", "b").plain == "busy"


async def test_the_table_is_sized_as_rows_arrive_not_when_idle() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync([("1", ("1", "a", "", "")), ("2", ("2", "b", "", ""))])
        # Sized before the screen is drawn again: drawn once, with the final sizes.
        assert table.virtual_size.height == 1 + 2
        name = table.ordered_columns[1]
        assert name.content_width == len("name")
        table.sync([("1", ("1", "a much longer name", "", "")), ("2", ("2", "b", "", ""))])
        assert name.content_width == len("a much longer name")
        table.sync([("1", ("1", "[b]bold[/b] x", "", ""))])
        assert table.virtual_size.height == 1 + 1
        assert table.widths[1] == len("a much longer name"), "columns never shrink"
        await pilot.pause()
        assert "a much longer name" not in table.render_line(1).text


async def test_every_column_is_as_wide_as_datatable_measures_its_cells() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(ROWS)
        await pilot.pause()
        ours = [column.content_width for column in table.ordered_columns]
        size = table.virtual_size
        for column in table.ordered_columns:
            column.content_width = column.label.cell_len  # as add_column() leaves it
        DataTable._update_dimensions(table, list(table.rows))
        assert [column.content_width for column in table.ordered_columns] == ours
        assert table.virtual_size == size


async def test_rows_all_replaced_at_once_leave_exactly_the_new_ones() -> None:
    app = TableApp()
    rows = [(str(i), (str(i), Text(f"t{i}"), "", "")) for i in range(30)]
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(rows)
        await pilot.pause()
        table.move_cursor(row=20)
        await pilot.pause()
        assert table.scroll_y > 0
        first = table.render_line(1)
        table.sync([])
        assert table.row_count == 0 and table.virtual_size.height == 1
        table.sync(rows[:3])
        assert table.row_keys_in_order() == ["0", "1", "2"]
        # Another set of rows under the same keys: dropped first, drawn anew, from the top.
        other = [(str(i), (str(i), Text(f"other {i}"), "", "")) for i in range(3)]
        table.move_cursor(row=2)
        table.sync(other, reset=True)
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert table.get_cell("1", "b").plain == "other 1"
        await pilot.pause()
        line = table.render_line(1)
        assert line is not first and "other 0" in line.text


async def test_clicking_a_row_selects_it() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(ROWS)
        await pilot.pause()
        assert table.selected_key == "1"
        await pilot.click(KeyedTable, offset=(12, 3))
        await pilot.pause()
        assert table.selected_key == "3"


class ShrinkingApp(App[None]):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, id="t", shrink=True)


async def test_a_shrinking_table_narrows_a_column_only_when_its_widest_value_is_gone() -> None:
    long = "not connected, accepting connect from db-2"
    app = ShrinkingApp()
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(KeyedTable)
        name = table.ordered_columns[1]
        table.sync([("1", ("1", "db-1", "", "")), ("2", ("2", long, "", ""))])
        assert name.content_width == len(long)
        table.sync([("1", ("1", "db-1-a", "", "")), ("2", ("2", long, "", ""))])
        assert name.content_width == len(long), "a narrower value leaves the widest one"
        table.sync([("1", ("1", "db-1-a", "", "")), ("2", ("2", "db-2", "", ""))])
        assert name.content_width == len("db-1-a") and table.widths[1] == len("db-1-a")
        table.sync([("1", ("1", "db-1-a", "", "")), ("2", ("2", long, "", ""))])
        table.sync([("1", ("1", "db-1-a", "", ""))])
        assert name.content_width == len("db-1-a"), "nor when its row is gone"
        await pilot.pause()
        assert "db-1-a" in table.render_line(1).text


class FitApp(App[None]):
    """One KeyedTable as wide as the terminal, leaving out columns that do not fit."""

    CSS = "KeyedTable { width: 100%; height: 10; }"

    def compose(self) -> ComposeResult:
        yield KeyedTable((("id", "id"), ("name", "name"), ("mem", "data mem"),
                          ("version", "version"), ("util", "disk %util")),
                         id="t", drop=("version",))


FIT_ROWS = [(str(i), (str(i), f"node-{i}", f"{i}%", "8.4.3", f"{10 * i}%"))
            for i in range(1, 6)]


def header_and_rows(app: App[object], table: KeyedTable) -> list[str]:
    return [table.render_line(y).text for y in range(1 + table.row_count)]


async def resize(pilot, table: KeyedTable, width: int) -> None:
    """The terminal made ``width`` wide, once the table has handled its new size."""
    await pilot.resize_terminal(width, 12)
    for _ in range(50):
        await pilot.pause()
        if table.size.width == width:
            break
    await pilot.pause()


async def test_a_narrow_table_leaves_out_whole_columns_those_of_drop_first() -> None:
    # Widths with padding: id 4, name 8, data mem 10, version 9, disk %util 12 = 43.
    app = FitApp()
    async with app.run_test(size=(43, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(FIT_ROWS)
        table.move_cursor(row=3)
        await pilot.pause()
        assert table.shown_columns == ["id", "name", "mem", "version", "util"]
        await resize(pilot, table, 40)
        # version goes first, though it is not the last column; the cursor keeps its row.
        assert table.shown_columns == ["id", "name", "mem", "util"]
        assert table.selected_key == "4"
        lines = header_and_rows(app, table)
        assert lines[0].split() == ["id", "name", "data", "mem", "disk", "%util"]
        assert lines[4].split() == ["4", "node-4", "4%", "40%"]
        await resize(pilot, table, 30)
        # Then from the right: no header or value is ever cut at the edge.
        assert table.shown_columns == ["id", "name", "mem"]
        assert header_and_rows(app, table)[0].split() == ["id", "name", "data", "mem"]
        await resize(pilot, table, 43)
        assert table.shown_columns == ["id", "name", "mem", "version", "util"]
        assert table.selected_key == "4"


async def test_a_value_growing_past_the_width_leaves_a_column_out_and_back_in() -> None:
    app = FitApp()
    async with app.run_test(size=(43, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync(FIT_ROWS)
        await pilot.pause()
        table.sync([*FIT_ROWS[:4], ("5", ("5", "node-5", "5%", "8.4.3", "100% sdb HOT"))])
        await pilot.pause()
        assert table.shown_columns == ["id", "name", "mem", "util"]
        assert header_and_rows(app, table)[5].split() == ["5", "node-5", "5%", "100%", "sdb", "HOT"]
        # A value of a column left out still changes: it shows once there is room.
        table.sync([*FIT_ROWS[:4], ("5", ("5", "node-5", "5%", "9.0.1", "100% sdb HOT"))])
        await resize(pilot, table, 60)
        assert table.shown_columns == ["id", "name", "mem", "version", "util"]
        assert header_and_rows(app, table)[5].split() == ["5", "node-5", "5%", "9.0.1",
                                                         "100%", "sdb", "HOT"]
