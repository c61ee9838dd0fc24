"""A DataTable updated by key: each row is drawn as one cached line; only what changed is sent.

A live view changes a few figures of a few rows at every refresh. DataTable forgets every
rendered cell and line whenever any cell changes, draws a line as one run of segments per
cell, each with its own mouse metadata (so that the terminal receives a colour escape
sequence per cell), and sizes itself only when idle, after the screen was drawn with the
old sizes. Here a row is drawn once per change of its values, neighbours that look alike
are joined into one segment, a changed row is repainted only up to its last changed
column (Textual sends a line from the widget's left edge to the end of the repainted
region) and only while in sight, and the table is sized as rows arrive. How a row becomes
its line is :mod:`~ndbtop.tui.widgets.row_paint`.

A table narrower than its columns shows fewer of them, each whole: columns with no value in
any row go first, then those named in ``drop``, then the others from the right (never the
first one), so that no value or header is ever shown cut at the table's edge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual._two_way_dict import TwoWayDict
from textual.coordinate import Coordinate
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from ndbtop.compat import zip_strict
from ndbtop.elide import MAX_CELL_CHARS, elide
from ndbtop.sanitise import UNSAFE, sanitise
from ndbtop.tui.safe import AnyText, Text, safe_text
from ndbtop.tui.widgets.row_paint import MARKUP, Paint, joined, text_cell, without_meta

LineKey = tuple[object, ...]
"""Everything besides its values that a drawn row depends on."""


class KeyedTable(DataTable):
    """A table whose rows are synchronised with a list of (key, cells) pairs."""

    def __init__(self, columns: Sequence[tuple[str, str]], *, shrink: bool = False,
                 drop: Sequence[str] = (), fit: bool = True, **kwargs: Any) -> None:
        """``shrink``: a column narrows when its widest value is gone (see ``_widths``);
        meant for tables of a few hundred rows, as it compares a changed cell's old width.
        ``drop``: the columns left out first when the table is too narrow for all;
        ``fit=False``: every column is shown, the table scrolls sideways instead."""
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self._shrink = shrink
        self._column_keys = [key for key, _ in columns]
        self._labels = [label for _, label in columns]
        self._cells: dict[str, tuple[object, ...]] = {}
        self._order: list[str] = []
        self._widths = [len(label) for label in self._labels]
        keys = self._column_keys
        self._drop = [keys.index(k) for k in drop] + [
            i for i in range(len(keys) - 1, 0, -1) if keys[i] not in drop]
        """Column indexes in the order they are left out on a narrow table."""
        self._fit_width = fit
        self._held: str | None = None
        self._visible = list(range(len(keys)))
        """The indexes of the columns shown (the DataTable's own columns)."""
        self._shown: dict[str, list[object]] = {}
        """Each row's cells as shown (sanitised), every column's, shown or not."""
        """The widest cell shown per column: a column grows at once; with ``shrink`` it
        narrows only when its widest value is gone (a node's long "not connected, accepting
        connect from HOST" once it connects), not as values of similar widths come and go."""
        self._lines: dict[str | None, tuple[LineKey, tuple[object, ...], Strip]] = {}
        """Each row's drawn line, with what it was drawn for and the values drawn."""
        self._drawn_cells: dict[tuple[str | None, int], tuple[Any, ...]] = {}
        """Each cell's last drawing: (value, width, styles..., segments)."""
        self._row_meta: dict[int, Style] = {}
        self._paint: Paint | None = None
        self._painting = False

    def on_mount(self) -> None:
        """Create the columns."""
        for index in self._visible:
            self.add_column(self._labels[index], key=self._column_keys[index])

    def on_resize(self) -> None:
        """Show the columns that fit the new width."""
        self._fit()

    @property
    def shown_columns(self) -> list[str]:
        """The keys of the columns shown, left to right."""
        return [self._column_keys[i] for i in self._visible]

    def _fit(self) -> bool:
        # The columns that fit whole, leaving out those of ``drop`` first; True when the
        # columns shown changed.
        room = self.size.width
        if room <= 0 or not self._fit_width:
            return False
        need = [width + 2 * self.cell_padding for width in self._widths]
        total = sum(need)
        visible = set(range(len(need)))
        dropped = []
        # A column with nothing in it (no node starting: no phase) goes before any other.
        empty = [i for i in range(1, len(need)) if self._shown
                 and not any(cell_width(row[i]) for row in self._shown.values())]
        for index in [*empty, *(i for i in self._drop if i not in empty)]:
            if total <= room:
                break
            visible.discard(index)
            dropped.append(index)
            total -= need[index]
        # A column left out early that fits beside those kept comes back.
        for index in reversed(dropped):
            if total + need[index] <= room:
                visible.add(index)
                total += need[index]
        if sorted(visible) == self._visible:
            return False
        self._visible = sorted(visible)
        self._rebuild()
        return True

    def _rebuild(self) -> None:
        # Another set of columns: the rows are added again in their order, under a cursor
        # and a scroll left where they were (DataTable.clear would move the cursor, and a
        # view that follows it would draw into a table without rows).
        order = self.row_keys_in_order()
        cursor, scroll_y = self.cursor_coordinate, self.scroll_y
        # Each row added moves the cursor within the rows added so far: what follows the
        # cursor sees the row it was on until every row is back.
        self._held = self.selected_key
        self._clear_caches()
        self._y_offsets.clear()
        self._data.clear()
        self.rows.clear()
        self._row_locations = TwoWayDict({})
        self.columns.clear()
        self._column_locations = TwoWayDict({})
        self._lines.clear()
        self._drawn_cells.clear()
        for index in self._visible:
            self.add_column(self._labels[index], key=self._column_keys[index])
        try:
            for key in order:
                shown = self._shown[key]
                self.add_row(*(shown[i] for i in self._visible), key=key)
        finally:
            self._held = None
        self._measure(grown=True)
        self.cursor_coordinate = Coordinate(cursor.row, 0)
        self.scroll_y = scroll_y

    def set_label(self, column: str, label: str) -> None:
        """Give ``column`` the header ``label`` (a sort order's arrow, say)."""
        index = self._column_keys.index(column)
        if self._labels[index] == label:
            return
        self._labels[index] = label
        self._widths[index] = max(self._widths[index], len(label))
        shown = self.columns.get(ColumnKey(column))
        if shown is not None:
            shown.label = Text(label)
            shown.content_width = max(shown.content_width, len(label))
            self._clear_caches()
            self._measure(grown=True)

    def sync(
        self,
        rows: Iterable[tuple[str, Sequence[object]]],
        order: Callable[[str], Any] | None = None,
        *,
        reset: bool = False,
    ) -> None:
        """Make the table show exactly ``rows``, in their order (or sorted by ``order``).

        A row given as the very tuple of cells it was given last time is not compared
        again: callers that keep the tuples of unchanged rows spare the comparison.
        ``reset`` drops every row first (the cursor and the scroll go back to the top):
        the rows are another set of things that happens to use the same keys.
        """
        narrowed = False
        if reset and self._cells:
            narrowed = self._shrink
            self._clear_rows()
        wanted: dict[str, tuple[object, ...]] = {}
        sequence: list[str] = []
        for key, cells in rows:
            wanted[key] = cells if isinstance(cells, tuple) else tuple(cells)
            sequence.append(key)
        removed = [k for k in self._cells if k not in wanted]
        if removed and len(removed) == len(self._cells):
            narrowed = narrowed or self._shrink
            self._clear_rows()
        for key in removed if self._cells else ():
            narrowed = narrowed or (self._shrink and any(
                cell_width(cell) >= width
                for cell, width in zip_strict(self._shown_row(key), self._widths)))
            self.remove_row(key)
            del self._cells[key]
            del self._shown[key]
            self._lines.pop(key, None)
            for col in range(len(self._column_keys)):
                self._drawn_cells.pop((key, col), None)
        appended = False
        grown = widened = False
        visible = {col: place for place, col in enumerate(self._visible)}
        changed: dict[str, int] = {}  # changed rows, with the last column that changed
        for key in sequence:
            cells = wanted[key]
            old = self._cells.get(key)
            if old is cells:
                continue
            if old is None:
                shown = [shown_cell(cell) for cell in cells]
                self._shown[key] = shown
                self.add_row(*(shown[i] for i in self._visible), key=key)
                for col, cell in enumerate(shown):
                    width = cell_width(cell)
                    if width > self._widths[col]:
                        self._widths[col] = width
                        widened = True
                appended = True
            else:
                data = self._data[RowKey(key)]
                shown = self._shown[key]
                for col, (before, after) in enumerate(zip_strict(old, cells)):
                    if before is after or _same(before, after):
                        continue
                    shown_before = shown[col]
                    shown[col] = after = shown_cell(after)
                    if col in visible:
                        changed[key] = visible[col]
                        data[ColumnKey(self._column_keys[col])] = after
                    width = cell_width(after)
                    if width > self._widths[col]:
                        self._widths[col] = width
                        grown = True
                    elif self._shrink and width < self._widths[col] and \
                            cell_width(shown_before) >= self._widths[col]:
                        narrowed = True
            self._cells[key] = cells
        if narrowed:
            grown = self._narrow() or grown
        if changed:
            self._update_count += 1
        if appended or grown or removed:
            self._measure(grown=grown)
        if (grown or widened or narrowed) and self._fits_otherwise() and self._fit():
            changed.clear()  # every row was drawn again
        wanted_order = sorted(sequence, key=order) if order is not None else sequence
        if (wanted_order != self._order or appended) and wanted_order != self.row_keys_in_order():
            moved = self._place(wanted_order)
            if not appended:
                last = len(self._visible) - 1
                changed.update((key, last) for key in moved)
        self._order = wanted_order
        if appended:
            self.refresh()
        elif changed:
            self._refresh_starts_of_rows(changed)

    def _narrow(self) -> bool:
        """Give each column the width of its widest value still shown; True if one shrank."""
        widths = [len(label) for label in self._labels]
        for key in self._cells:
            for col, cell in enumerate(self._shown_row(key)):
                widths[col] = max(widths[col], cell_width(cell))
        if widths == self._widths:
            return False
        self._widths = widths
        for column, index in zip_strict(self.ordered_columns, self._visible):
            column.content_width = widths[index]
        return True

    def _shown_row(self, key: str) -> list[object]:
        # A row's cells as shown (sanitised): not made again.
        return self._shown[key]

    def _fits_otherwise(self) -> bool:
        # Whether another set of columns may fit now: a column grew past the width, or
        # narrowed while some are left out.
        need = sum(self._widths[i] + 2 * self.cell_padding for i in self._visible)
        return self.size.width > 0 and (
            need > self.size.width or len(self._visible) < len(self._widths))

    def _clear_rows(self) -> None:
        # Every row goes (another node's threads, a filter that matches nothing): DataTable
        # removes a row by renumbering every other one and laying the screen out again, so
        # that removing them one by one costs the square of their number.
        self.clear()
        self._cells.clear()
        self._shown.clear()
        self._lines.clear()
        self._drawn_cells.clear()
        self._order = []

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        # DataTable measures every cell of the new rows by rendering it; the widths of
        # every value shown are tracked here as cells arrive, and every row is one line.
        for column, index in zip(self.ordered_columns, self._visible):
            column.content_width = max(column.content_width, self._widths[index])
        header = self.header_height if self.show_header else 0
        width = sum(column.get_render_width(self) for column in self.columns.values())
        self.virtual_size = Size(width + self._row_label_column_width,
                                 self._total_row_height + header)

    def _measure(self, *, grown: bool) -> None:
        # DataTable sizes itself when idle, after the screen has been drawn once with the
        # old sizes (and again with the new): a view shown for the first time, or a column
        # that widened, would reach the terminal twice. The table is sized at once instead.
        if grown:
            self.refresh()
        new_rows = list(self._new_rows)
        self._new_rows.clear()
        self._require_update_dimensions = False
        self._update_dimensions(new_rows)

    def _refresh_starts_of_rows(self, last_columns: dict[str, int]) -> None:
        # The compositor sends a repainted line from the widget's left edge to the end of
        # the repainted region: the columns after the last changed one are not sent again.
        # Rows out of sight are not repainted at all.
        ends = list(accumulate(column.get_render_width(self) for column in self.ordered_columns))
        label = self._row_label_column_width
        header = self.header_height if self.show_header else 0
        single = all(row.height == 1 for row in self.rows.values())
        window = self.window_region
        scroll = -self.scroll_offset
        regions = []
        for key, last_column in last_columns.items():
            index = self.get_row_index(key)
            if single:
                y, height = header + index, 1
            else:
                cell = self._get_cell_region(Coordinate(index, last_column))
                y, height = cell.y, cell.height
            region = Region(0, y, ends[last_column] + label, height)
            if window.overlaps(region):
                regions.append(region.translate(scroll))
        if regions:
            self.refresh(*regions)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in ``crop``, with what every line shares looked up once."""
        self._paint = None
        self._painting = True
        try:
            return super().render_lines(crop)
        finally:
            self._painting = False
            self._paint = None

    def render_line(self, y: int) -> Strip:
        """One line of the table: a body row comes from its cached drawing."""
        paint = self._paint
        if paint is None:
            paint = Paint(self)
            if self._painting:
                self._paint = paint
        if not paint.rows_alike or y < paint.header:
            return super().render_line(y)
        try:
            row_key, _ = self._get_offsets(y + paint.scroll_y)
        except LookupError:
            return Strip.blank(paint.width, paint.base_style)
        row = self.rows.get(row_key)
        row_index = self._row_locations.get(row_key)
        if row is None or row.height != 1 or row_index is None:
            return super().render_line(y)
        cursor = paint.show_cursor and paint.cursor_row == row_index
        hover = paint.show_cursor and paint.hover_row == row_index
        line_key: LineKey = (row_index, cursor, hover, paint.key)
        data = self._data.get(row_key, {})
        if len(data) == len(paint.column_keys):
            values = tuple(data.values())  # added in column order, by add_row()
        else:
            values = tuple([data.get(key) for key in paint.column_keys])
        key = row_key.value
        drawn = self._lines.get(key)
        if drawn is not None and drawn[0] == line_key:
            for a, b in zip_strict(drawn[1], values):
                if a is not b:
                    break
            else:
                return drawn[2]
        strip = self._draw_row(paint, key, row_index, values, cursor, hover)
        self._lines[key] = (line_key, values, strip)
        return strip

    def _draw_row(
        self,
        paint: Paint,
        row_key: str | None,
        row_index: int,
        values: tuple[object, ...],
        cursor: bool,
        hover: bool,
    ) -> Strip:
        # The cells and styles DataTable's own path draws (the tests compare them), in
        # as few segments as their looks allow.
        row_style, pre_style, post_style, extend_style = paint.styles(row_index, cursor, hover)
        segments: list[Segment] = []
        cells = self._drawn_cells
        for column_index, (value, width) in enumerate(zip_strict(values, paint.widths)):
            slot = (row_key, column_index)
            drawn = cells.get(slot)
            if (
                drawn is not None
                and drawn[0] is value
                and drawn[1] == width
                and drawn[2] is pre_style
                and drawn[3] is post_style
            ):
                segments.extend(drawn[4])
                continue
            cell = text_cell(
                value, width, pre_style, post_style, self.cell_padding, self.app.console
            )
            if cell is None:
                cell = [
                    Segment(s.text, without_meta(s.style), s.control)
                    for s in DataTable._render_cell(
                        self, row_index, column_index, row_style, width, cursor, hover
                    )[0]
                ]
            cell = joined(cell)
            cells[slot] = (value, width, pre_style, post_style, cell)
            segments.extend(cell)
        remaining = paint.width - paint.table_width
        if remaining > 0:
            segments.append(Segment(" " * remaining, extend_style))
        meta = self._row_meta.get(row_index)
        if meta is None:
            # Mouse clicks and hovers find the row from the metadata; in a row cursor the
            # column does not matter, and one metadata for the whole line lets its
            # segments join.
            meta = self._row_meta[row_index] = Style.from_meta({"row": row_index, "column": 0})
        if remaining >= 0 and not paint.scroll_x:
            # Every cell is drawn to its column's width: the line is the widget's width.
            return Strip(joined(segments, meta), paint.width)
        strip = Strip(joined(segments, meta)).crop(paint.scroll_x, paint.scroll_x + paint.width)
        return strip.adjust_cell_length(paint.width, paint.base_style)

    def row_keys_in_order(self) -> list[str]:
        """The row keys from top to bottom."""
        return [str(row.key.value) for row in self.ordered_rows]

    def _place(self, order: list[str]) -> list[str]:
        # DataTable.sort only hands cell values to its key function; an order given by row
        # keys is applied the way sort() applies its result. Returns the rows that moved.
        before = self.row_keys_in_order()
        position = {k: i for i, k in enumerate(order)}
        ranked = sorted(self.rows, key=lambda rk: position.get(str(rk.value), len(position)))
        self._row_locations = TwoWayDict({rk: i for i, rk in enumerate(ranked)})
        self._update_count += 1
        after = self.row_keys_in_order()
        if len(before) != len(after):
            self.refresh()
            return after
        return [now for was, now in zip_strict(before, after) if was != now]

    @property
    def widths(self) -> list[int]:
        """The widest value shown so far in each column (labels included)."""
        return list(self._widths)

    @property
    def selected_key(self) -> str | None:
        """The key of the row under the cursor."""
        if self._held is not None:
            return self._held
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except Exception:
            return None
        return None if row_key.value is None else str(row_key.value)


def shown_cell(cell: object) -> object:
    """A cell as the table draws it: text is plain (never markup), sanitised, and at most
    :data:`~ndbtop.elide.MAX_CELL_CHARS` characters (cut with ``…``), so that a column is
    never as wide as a value from outside can make it."""
    if isinstance(cell, str):
        cell = elide(sanitise(cell))
        return cell if MARKUP.isdisjoint(cell) else Text(cell)
    if isinstance(cell, AnyText):
        cell = safe_text(cell, UNSAFE)
        if len(cell.plain) > MAX_CELL_CHARS:
            cell = cell.copy()
            cell.truncate(MAX_CELL_CHARS, overflow="ellipsis")
        return cell
    return cell


def cell_width(cell: object) -> int:
    """Columns a cell's value takes on screen; ``cell`` is as :func:`shown_cell` made it
    (a string then holds no markup character: it is never parsed as markup)."""
    if isinstance(cell, AnyText):
        return cell.cell_len
    return cell_len(str(cell)) if cell is not None else 0


def _same(a: object, b: object) -> bool:
    if isinstance(a, AnyText) and isinstance(b, AnyText):
        return a.plain == b.plain and a.style == b.style and a.spans == b.spans
    return a == b
