"""How a :class:`~ndbtop.tui.widgets.keyed_table.KeyedTable` row becomes one line.

DataTable draws a line as one run of segments per cell, each with its own mouse
metadata, so that the terminal receives a colour escape sequence per cell. Here
the cells and styles DataTable would draw are produced directly, and neighbours
that look alike are joined into one segment.
"""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.widgets import DataTable
from textual.widgets._data_table import default_cell_formatter

from ndbtop.tui.safe import AnyText, Text

_NULL = Style.null()
MARKUP = frozenset("[:\n\t")
"""Characters that make a string cell more than plain text for DataTable (markup, emoji
codes, several lines)."""
_EMPTY = Text()


class Paint:
    """What every line of one repaint shares, looked up once."""

    def __init__(self, table: DataTable) -> None:
        self.table = table
        self.base_style = table.rich_style
        self.width = table.size.width
        self.scroll_x, self.scroll_y = table.scroll_offset
        columns = table.ordered_columns
        self.column_keys = [column.key for column in columns]
        self.widths = tuple(column.get_render_width(table) for column in columns)
        self.table_width = sum(self.widths) + table._row_label_column_width
        self.rows_alike = not (
            table.fixed_columns
            or table.fixed_rows
            or table.cursor_type != "row"
            or table._should_render_row_labels
        )
        """Whether body rows take this class's own path (else DataTable's)."""
        self.header = table.header_height if table.show_header else 0
        self.show_cursor = table.show_cursor
        self.cursor_row = table.cursor_coordinate.row
        self.hover_row = table.hover_coordinate.row
        self.key = (
            self.base_style, self.width, self.scroll_x, self.widths,
            table._show_hover_cursor, table._pseudo_class_state, table.zebra_stripes,
            table.cursor_foreground_priority, table.cursor_background_priority,
        )
        """What a drawn line depends on besides its values, cursor and hover."""
        self._styles: dict[tuple[bool, bool], tuple[Style, Style, Style, Style]] = {}

    def styles(
        self, row_index: int, cursor: bool, hover: bool
    ) -> tuple[Style, Style, Style, Style]:
        """The row, cell (before and after) and filler styles of a row."""
        table = self.table
        if table.zebra_stripes:
            row_style = table._get_row_style(row_index, self.base_style)
            return self._row_styles(row_style, cursor, hover)
        styles = self._styles.get((cursor, hover))
        if styles is None:
            styles = self._styles[cursor, hover] = self._row_styles(self.base_style, cursor, hover)
        return styles

    def _row_styles(
        self, row_style: Style, cursor: bool, hover: bool
    ) -> tuple[Style, Style, Style, Style]:
        table = self.table
        component_style, post_style = table._get_styles_to_render_cell(
            False, False, False, hover, cursor, table.show_cursor, table._show_hover_cursor,
            table.cursor_foreground_priority == "css",
            table.cursor_background_priority == "css",
        )
        extend_style, _ = table._get_styles_to_render_cell(
            False, False, False, hover, cursor, table.show_cursor, table._show_hover_cursor,
            False, False,
        )
        return row_style, row_style + component_style, post_style, row_style + extend_style


def text_cell(
    value: object,
    width: int,
    pre_style: Style,
    post_style: Style,
    pad: int,
    console: Console,
) -> list[Segment] | None:
    """A one-line text cell drawn straight to segments, padded by ``pad`` on each side.

    What DataTable's Padding/Styled/render_lines path produces, at a fraction of its
    cost. Anything else (several lines, justified text, other renderables) is None.
    """
    inner = max(width - 2 * pad, 0)
    if isinstance(value, str) and MARKUP.isdisjoint(value):
        # Plain text, no markup or emoji code: the whole cell is one run of one style.
        text = value
        if cell_len(value) > inner:
            cut = Text(value)
            cut.truncate(inner)
            text = cut.plain
        fill = inner - cell_len(text) + pad
        return [Segment(" " * pad + text + " " * max(fill, 0), pre_style + post_style)]
    cell = _EMPTY if value is None else default_cell_formatter(value, False, 1) or _EMPTY
    if (
        not isinstance(cell, AnyText)
        or cell.justify not in (None, "default", "left")
        or cell.overflow == "ellipsis"
        or "\n" in cell.plain
        or "\t" in cell.plain
    ):
        return None
    if cell.cell_len > inner:
        cell = cell.copy()
        cell.truncate(inner)
    segments = [Segment(" " * pad)] if pad else []
    if cell.spans:
        segments.extend(cell.render(console))
    elif cell.plain:
        segments.append(Segment(cell.plain, console.get_style(cell.style, default=_NULL)))
    fill = inner - cell.cell_len + pad
    if fill > 0:
        segments.append(Segment(" " * fill))
    return list(Segment.apply_style(segments, style=pre_style, post_style=post_style))


def without_meta(style: Style | None) -> Style | None:
    """``style`` without mouse metadata and links."""
    if style is None or not style._meta:
        return style
    return style.clear_meta_and_links()


def joined(segments: list[Segment], meta: Style | None = None) -> list[Segment]:
    """Neighbours that look alike joined into one segment: one colour escape sequence each.

    Spaces look alike in any foreground colour, so they join a neighbour of the same
    background. ``meta`` (mouse metadata) is added to every segment.
    """
    out: list[Segment] = []
    text = ""
    style: Style | None = None
    for piece, piece_style, control in segments:
        if control or not piece:
            continue
        if text:
            if piece_style is style or piece_style == style or (
                not piece.strip(" ") and _spaces_alike(style, piece_style)
            ):
                text += piece
                continue
            if not text.strip(" ") and _spaces_alike(style, piece_style):
                text += piece
                style = piece_style
                continue
            out.append(_with_meta(text, style, meta))
        text, style = piece, piece_style
    if text:
        out.append(_with_meta(text, style, meta))
    return out


def _with_meta(text: str, style: Style | None, meta: Style | None) -> Segment:
    if meta is None:
        return Segment(text, style)
    return Segment(text, meta if style is None else style + meta)


_SPACE_MARKS = ("reverse", "underline", "underline2", "strike", "overline", "frame", "encircle")


@lru_cache(maxsize=1024)
def _spaces_alike(a: Style | None, b: Style | None) -> bool:
    """Whether spaces drawn in style ``a`` and in style ``b`` look the same."""

    def marks(style: Style | None) -> tuple[object, ...]:
        if style is None:
            return (None, *(False for _ in _SPACE_MARKS), None)
        return (style.bgcolor, *(bool(getattr(style, m)) for m in _SPACE_MARKS), style.link)

    return marks(a) == marks(b)
