"""What the live view shows, made safe: never markup, never a control sequence.

Every widget that shows text from a server or a file takes it through :func:`safe`:
the tables (:class:`~ndbtop.tui.widgets.keyed_table.KeyedTable`), the text panels
(:class:`Plain`), the event log (:class:`PlainLog`) and the notifications
(``NdbtopApp.notify``). A string is taken as plain text, never as Rich or Textual
markup, and every control or bidi character is shown escaped
(:func:`ndbtop.sanitise.sanitise`; panels keep their line feeds). Styles ndbtop
gives its own text are kept.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from textual.widgets import RichLog, Static

from ndbtop.sanitise import UNSAFE_IN_LINES, sanitise, sanitise_lines


def safe_text(text: Text, unsafe: re.Pattern[str] = UNSAFE_IN_LINES) -> Text:
    """``text`` with its control characters escaped, its styles kept.

    Line feeds and tabs are kept unless ``unsafe`` is :data:`ndbtop.sanitise.UNSAFE`
    (a table cell is one line).
    """
    plain = text.plain
    if unsafe.search(plain) is None:
        return text
    out = text.blank_copy()
    start = 0
    for match in unsafe.finditer(plain):
        out.append_text(text[start : match.start()])
        escaped = Text(sanitise(match.group()))
        for span in text[match.start() : match.end()].spans:
            escaped.stylize(span.style, 0, len(escaped))
        out.append_text(escaped)
        start = match.end()
    out.append_text(text[start:])
    return out


def safe(renderable: Any) -> Any:
    """``renderable`` with every string in it plain (not markup) and sanitised.

    Text, strings, tables, groups, panels and paddings are walked; anything else is
    drawn by ndbtop itself (bars, sparklines) and passed as it is.
    """
    if isinstance(renderable, str):
        return Text(sanitise_lines(renderable))
    if isinstance(renderable, Text):
        return safe_text(renderable)
    if isinstance(renderable, Table):
        for column in renderable.columns:
            column.header = _in_table(column.header)
            column.footer = _in_table(column.footer)
            column._cells[:] = [_in_table(cell) for cell in column._cells]
        renderable.title = _in_table(renderable.title)
        renderable.caption = _in_table(renderable.caption)
        return renderable
    if isinstance(renderable, Group):
        renderable._renderables = tuple(safe(r) for r in renderable._renderables)
        renderable._render = None
        return renderable
    if isinstance(renderable, Panel):
        renderable.renderable = safe(renderable.renderable)
        if renderable.title is not None:
            renderable.title = safe(renderable.title)
        return renderable
    if isinstance(renderable, Padding):
        renderable.renderable = safe(renderable.renderable)
        return renderable
    return renderable


def _in_table(renderable: Any) -> Any:
    # A table styles its strings itself (titles, headers): they stay strings, with any
    # markup in them escaped.
    if isinstance(renderable, str):
        return escape(sanitise_lines(renderable))
    return safe(renderable)


class Plain(Static):
    """A Static whose content is never markup and never carries a control sequence."""

    def __init__(self, content: RenderableType = "", **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        super().__init__(safe(content), **kwargs)

    def update(self, content: RenderableType = "", *, layout: bool = True) -> None:
        """Show ``content`` (made safe)."""
        super().update(safe(content), layout=layout)


class PlainLog(RichLog):
    """A RichLog that writes only safe, plain content."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["markup"] = False
        super().__init__(**kwargs)

    def write(self, content: RenderableType | object, *args: Any, **kwargs: Any) -> Any:
        """Write one entry (made safe)."""
        return super().write(safe(content), *args, **kwargs)
