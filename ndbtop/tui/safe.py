"""What the live view shows, made safe: never markup, never a control sequence.

Two things close it at the boundary, wherever a view puts text:

- :class:`Text` is the only Text the live view makes (``tests/hostile/test_text_boundary.py``
  checks that no other module imports Rich's): it escapes control and bidi characters before Rich
  sees them (Rich's own Text deletes BEL, BS, VT, FF and CR, so they could not be
  shown escaped after it), and cuts a line longer than a screen could use
  (:data:`~ndbtop.elide.MAX_LINE_CHARS`, marked ``…``).
- Every widget that shows text from a server or a file takes it through :func:`safe`:
  the tables (:class:`~ndbtop.tui.widgets.keyed_table.KeyedTable`), the text panels
  (:class:`Plain`), the event log (:class:`PlainLog`) and the notifications
  (``NdbtopApp.notify``). A string becomes a :class:`Text`, never Rich or Textual
  markup, every control or bidi character shown escaped
  (:func:`ndbtop.sanitise.sanitise`; panels keep their line feeds). A table is
  measured only once it is safe (:func:`safe`), so no string in it is read as markup
  even to know its width. Styles ndbtop gives its own text are kept.
"""

from __future__ import annotations

import re
from typing import Any

from rich import text as rich_text
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from textual.widgets import RichLog, Static

from ndbtop.elide import elide_lines
from ndbtop.sanitise import UNSAFE_IN_LINES, sanitise, sanitise_lines


class Text(rich_text.Text):
    """Rich's Text, with every string it is made of or given shown escaped
    (:func:`ndbtop.sanitise.sanitise_lines`) before Rich would delete or pass a control
    character; line feeds and tabs stay (ndbtop lays out its own text with them)."""

    __slots__ = ()

    def __init__(self, text: str = "", *args: Any, **kwargs: Any) -> None:
        super().__init__(elide_lines(sanitise_lines(text)), *args, **kwargs)

    def append(self, text: str | rich_text.Text, style: str | Style | None = None) -> Text:
        """Append ``text`` (a string escaped first, each of its lines at most
        :data:`~ndbtop.elide.MAX_LINE_CHARS` characters)."""
        if isinstance(text, str):
            text = elide_lines(sanitise_lines(text))
        super().append(text, style)
        return self


AnyText = rich_text.Text
"""Rich's Text, for ``isinstance``: a copy or a slice Rich makes of a :class:`Text` is one
of Rich's, and a Text from elsewhere is walked by :func:`safe` all the same."""


def safe_text(text: rich_text.Text, unsafe: re.Pattern[str] = UNSAFE_IN_LINES) -> rich_text.Text:
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
        return Text(renderable)
    if isinstance(renderable, rich_text.Text):
        return safe_text(renderable)
    if isinstance(renderable, Table):
        for column in renderable.columns:
            column.header = _in_table(column.header)
            column.footer = _in_table(column.footer)
            column._cells[:] = [_in_table(cell) for cell in column._cells]
        renderable.title = _in_table(renderable.title, renderable.title_style or "table.title")
        renderable.caption = _in_table(renderable.caption,
                                       renderable.caption_style or "table.caption")
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


def _in_table(renderable: Any, style: str | Style | None = None) -> Any:
    # A table styles a title or caption given as a string itself: as Text it takes
    # that style here.
    if isinstance(renderable, str):
        return Text(renderable, style=style or "")
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
