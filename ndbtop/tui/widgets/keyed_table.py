"""A DataTable updated by key: only changed cells are redrawn; cursor and scroll survive."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

_CACHE_SLACK = 2048
_NULL = Style.null()


class KeyedTable(DataTable):
    """A table whose rows are synchronised with a list of (key, cells) pairs."""

    def __init__(self, columns: Sequence[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self._column_keys = [key for key, _ in columns]
        self._labels = [label for _, label in columns]
        self._cells: dict[str, tuple[object, ...]] = {}
        self._order: list[str] = []
        self._widths = [len(label) for label in self._labels]
        """The widest cell seen per column: columns grow, never shrink (no jitter)."""
        self._drawn: dict[tuple[object, ...], tuple[object, list[list[Segment]]]] = {}
        """Rendered cells by position and look, with the value they were drawn from."""

    def on_mount(self) -> None:
        """Create the columns."""
        for key, label in zip(self._column_keys, self._labels, strict=True):
            self.add_column(label, key=key)

    def sync(
        self,
        rows: Iterable[tuple[str, Sequence[object]]],
        order: Callable[[str], Any] | None = None,
    ) -> None:
        """Make the table show exactly ``rows``, in their order (or sorted by ``order``)."""
        wanted: dict[str, tuple[object, ...]] = {}
        sequence: list[str] = []
        for key, cells in rows:
            wanted[key] = tuple(cells)
            sequence.append(key)
        for key in [k for k in self._cells if k not in wanted]:
            self.remove_row(key)
            del self._cells[key]
        appended = False
        changed: list[tuple[str, int]] = []
        for key in sequence:
            cells = wanted[key]
            old = self._cells.get(key)
            if old is None:
                self.add_row(*cells, key=key)
                for col, cell in enumerate(cells):
                    self._widths[col] = max(self._widths[col], cell_width(cell))
                appended = True
            else:
                for col, (before, after) in enumerate(zip(old, cells, strict=True)):
                    if _same(before, after):
                        continue
                    # Measuring a whole column again is costly in Textual: ask for it only
                    # when the new value is wider than anything the column has shown.
                    width = cell_width(after)
                    if width > self._widths[col]:
                        self._widths[col] = width
                        self.update_cell(key, self._column_keys[col], after, update_width=True)
                    else:
                        # update_cell() repaints the whole table; repainting only the cells
                        # that changed keeps what is sent to the terminal small.
                        self._data[RowKey(key)][ColumnKey(self._column_keys[col])] = after
                        self._update_count += 1
                        changed.append((key, col))
            self._cells[key] = cells
        wanted_order = sorted(sequence, key=order) if order is not None else sequence
        if (wanted_order != self._order or appended) and wanted_order != self.row_keys_in_order():
            self._place(wanted_order, repaint_all=appended)
        for key, col in changed:
            self.refresh_coordinate(Coordinate(self.get_row_index(key), col))
        self._order = wanted_order

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        # DataTable forgets every rendered cell whenever any cell changes; a live view
        # changes a few cells each refresh, so cells are kept while their value is the same
        # object (sync() only replaces values that changed).
        if row_index < 0 or column_index < 0:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        value = self._data.get(row_key, {}).get(column_key)
        key = (row_key, column_key, row_index, base_style, width, cursor, hover,
               self._show_hover_cursor, self._pseudo_class_state)
        drawn = self._drawn.get(key)
        if drawn is not None and drawn[0] is value:
            return drawn[1]
        lines = self._render_text_cell(row_index, column_index, row_key, base_style, width,
                                       cursor, hover)
        if lines is None:
            lines = super()._render_cell(
                row_index, column_index, base_style, width, cursor, hover
            )
        if len(self._drawn) > _CACHE_SLACK + 4 * len(self._data) * len(self._column_keys):
            self._drawn.clear()
        self._drawn[key] = (value, lines)
        return lines

    def _render_text_cell(
        self,
        row_index: int,
        column_index: int,
        row_key: Any,
        base_style: Style,
        width: int,
        cursor: bool,
        hover: bool,
    ) -> list[list[Segment]] | None:
        # A one-line Text cell drawn straight to segments: the same cells and styles
        # DataTable's Padding/Styled/render_lines path produces, at a fraction of its cost.
        # Anything else (several lines, justified text, fixed cells) takes DataTable's path.
        row = self.rows.get(row_key)
        if row is None or row.height != 1:
            return None
        if row_index < self.fixed_rows or column_index < self.fixed_columns:
            return None
        cell = self._get_row_renderables(row_index).cells[column_index]
        if (
            not isinstance(cell, Text)
            or cell.justify not in (None, "default", "left")
            or cell.overflow == "ellipsis"
            or "\n" in cell.plain
            or "\t" in cell.plain
        ):
            return None
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            False,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        pre_style = (
            base_style + Style.from_meta({"row": row_index, "column": column_index})
            + component_style
        )
        pad = self.cell_padding
        inner = max(width - 2 * pad, 0)
        if cell.cell_len > inner:
            cell = cell.copy()
            cell.truncate(inner)
        segments = [Segment(" " * pad)] if pad else []
        console = self.app.console
        if cell.spans:
            segments.extend(cell.render(console))
        elif cell.plain:
            segments.append(Segment(cell.plain, console.get_style(cell.style, default=_NULL)))
        fill = inner - cell.cell_len + pad
        if fill > 0:
            segments.append(Segment(" " * fill))
        return [list(Segment.apply_style(segments, style=pre_style, post_style=post_style))]

    def row_keys_in_order(self) -> list[str]:
        """The row keys from top to bottom."""
        return [str(row.key.value) for row in self.ordered_rows]

    def _place(self, order: list[str], *, repaint_all: bool) -> None:
        # DataTable.sort only hands cell values to its key function; an order given by row
        # keys is applied the way sort() applies its result.
        before = self.row_keys_in_order()
        position = {k: i for i, k in enumerate(order)}
        ranked = sorted(self.rows, key=lambda rk: position.get(str(rk.value), len(position)))
        self._row_locations = TwoWayDict({rk: i for i, rk in enumerate(ranked)})
        self._update_count += 1
        if repaint_all or len(before) != len(ranked):
            self.refresh()
            return
        for index, (was, now) in enumerate(zip(before, self.row_keys_in_order(), strict=True)):
            if was != now:
                self.refresh_row(index)

    @property
    def widths(self) -> list[int]:
        """The widest value shown so far in each column (labels included)."""
        return list(self._widths)

    @property
    def selected_key(self) -> str | None:
        """The key of the row under the cursor."""
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except Exception:
            return None
        return None if row_key.value is None else str(row_key.value)


def cell_width(cell: object) -> int:
    """Columns a cell's value takes on screen."""
    if isinstance(cell, Text):
        return cell.cell_len
    return cell_len(str(cell)) if cell is not None else 0


def _same(a: object, b: object) -> bool:
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.style == b.style and a.spans == b.spans
    return a == b
