"""A DataTable updated by key: only changed cells are redrawn; cursor and scroll survive."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.widgets import DataTable


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
        for key in sequence:
            cells = wanted[key]
            old = self._cells.get(key)
            if old is None:
                self.add_row(*cells, key=key)
                for col, cell in enumerate(cells):
                    self._widths[col] = max(self._widths[col], _width(cell))
                appended = True
            else:
                for col, (before, after) in enumerate(zip(old, cells, strict=True)):
                    if not _same(before, after):
                        # Measuring a whole column again is costly in Textual: ask for it only
                        # when the new value is wider than anything the column has shown.
                        width = _width(after)
                        grow = width > self._widths[col]
                        if grow:
                            self._widths[col] = width
                        self.update_cell(key, self._column_keys[col], after, update_width=grow)
            self._cells[key] = cells
        wanted_order = sorted(sequence, key=order) if order is not None else sequence
        if (wanted_order != self._order or appended) and wanted_order != self._current_order():
            self._place(wanted_order)
        self._order = wanted_order

    def _current_order(self) -> list[str]:
        return [str(row.key.value) for row in self.ordered_rows]

    def _place(self, order: list[str]) -> None:
        # DataTable.sort only hands cell values to its key function; an order given by row
        # keys is applied the way sort() applies its result.
        position = {k: i for i, k in enumerate(order)}
        ranked = sorted(self.rows, key=lambda rk: position.get(str(rk.value), len(position)))
        self._row_locations = TwoWayDict({rk: i for i, rk in enumerate(ranked)})
        self._update_count += 1
        self.refresh()

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


def _width(cell: object) -> int:
    if isinstance(cell, Text):
        return cell.cell_len
    return cell_len(str(cell)) if cell is not None else 0


def _same(a: object, b: object) -> bool:
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.style == b.style and a.spans == b.spans
    return a == b
