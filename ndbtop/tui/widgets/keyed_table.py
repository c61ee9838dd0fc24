"""A DataTable updated by key: only changed cells are redrawn; cursor and scroll survive."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

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
                appended = True
            else:
                for col, (before, after) in enumerate(zip(old, cells, strict=True)):
                    if not _same(before, after):
                        self.update_cell(key, self._column_keys[col], after, update_width=True)
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


def _same(a: object, b: object) -> bool:
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.style == b.style and a.spans == b.spans
    return a == b
