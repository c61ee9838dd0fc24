"""Text from outside shortened to what a screen or a text report can show, marked ``…``.

A server or a file can send a host name of 10 MB: a table padded to its widest cell
would then print 10 MB for every row. Every cell of a text table holds at most
:data:`MAX_CELL_CHARS` characters and every line of a text report at most
:data:`MAX_LINE_CHARS`; what is cut ends with ``…``. ``--json`` keeps the exact data.
"""

from __future__ import annotations

MAX_CELL_CHARS = 120
"""Most characters of one table cell (a long DataDir path fits)."""
MAX_LINE_CHARS = 1000
"""Most characters of one line of a text report."""
ELLIPSIS = "…"


def elide(text: str, limit: int = MAX_CELL_CHARS) -> str:
    """``text``, or its first ``limit`` - 1 characters and ``…`` when it is longer."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + ELLIPSIS


def elide_lines(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """Every line of ``text`` elided to ``limit`` characters."""
    if len(text) <= limit:
        return text
    return "\n".join(elide(line, limit) for line in text.split("\n"))
