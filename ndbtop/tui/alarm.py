"""Alarms that survive without colour.

Colour says "act now" only to those who see it: under ``NO_COLOR`` (or ``--no-color``,
which sets it) every alarm state also carries a word or sign: ``!`` (past a limit),
``HOT`` (the busiest thread), ``LOW`` (a hit ratio below its threshold), ``FULL``
(DataMemory nearly used up). With colour the screen stays as it is.

Textual's own answer to ``NO_COLOR`` turns colours into greys by their brightness,
which can draw a red alarm in grey 237 on grey 235; :func:`plain_colours` makes it
drop the colours instead, so text is drawn in the terminal's own colours.
"""

from __future__ import annotations

import os

from textual.app import App
from textual.filter import Monochrome, NoColor

from ndbtop.tui.safe import Text

ALARM = "!"
HOT = "HOT"
LOW = "LOW"
FULL = "FULL"


def colourless() -> bool:
    """True when the screen has no colour (``NO_COLOR`` set, as Textual reads it)."""
    return os.environ.get("NO_COLOR") is not None


def marked(text: str, marker: str | None, style: str = "") -> Text:
    """``text`` in ``style``, with `` <marker>`` after it when there is no colour."""
    out = Text(text, style=style)
    if marker and colourless():
        out.append(f" {marker}", style="bold")
    return out


def mark(text: Text, marker: str | None) -> Text:
    """``text`` itself, with `` <marker>`` appended when there is no colour."""
    if marker and colourless():
        text.append(f" {marker}", style="bold")
    return text


def plain_colours(app: App[object]) -> None:
    """Under ``NO_COLOR``, have ``app`` draw without colours rather than in greys."""
    filters = getattr(app, "_filters", None)
    if isinstance(filters, list):
        app._filters = [NoColor() if isinstance(f, Monochrome) else f  # type: ignore[attr-defined]
                        for f in filters]
