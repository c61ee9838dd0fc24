"""Text from a server or a file made safe to show on a terminal.

Everything ndbtop reads from the network (management server replies and events,
ndbinfo rows, remote hosts) or from files (recordings, option files, ``Ndb.cfg``,
``$NDB_CONNECTSTRING``) is untrusted. Before any of it reaches a terminal it passes
through :func:`sanitise`: C0 and C1 control characters, DEL, and the Unicode
characters that reorder or hide text (bidirectional controls, line and paragraph
separators, zero-width and byte-order marks) are shown escaped, ``\\x1b`` or
``\\u202e``, never passed through. The data itself keeps them: ``--json`` prints it
exactly, and JSON escaping makes it inert.

The live view applies this at its widgets (``ndbtop.tui.safe``); the command line
applies it to everything it prints (:class:`SafeStream`).

Output read line by line (the ``--once`` text, a bundle's text files, ``wait`` and
``rolling-restart`` lines, error and log lines, the ``check`` plugin line) follows one more
rule, here too: a line holds one line of what it quotes. Such a sink is made of lines
(:func:`laid_out`, :func:`write_line`), and each string in it is one line, the line feeds
and tabs it quotes shown escaped (``\\x0a``), so that a host name or an event's text cannot
add a line that reads as ndbtop's own. Only text ndbtop laid out itself (:class:`Laid`: a
table whose cells were escaped, a block made by :func:`laid_out`) keeps its line feeds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TextIO

from ndbtop.elide import elide_lines
from ndbtop.textnum import dumps

_OTHERS = (
    "\x7f-\x9f"  # DEL, C1
    "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"  # bidi, zero-width
    "\u2028\u2029\ufeff\ufff9-\ufffb"  # line/paragraph separators, BOM, annotations
)
UNSAFE = re.compile(f"[\x00-\x1f{_OTHERS}]")
"""One character that must not reach a terminal as it is."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitise(text: str) -> str:
    """``text`` with every control, DEL and bidi/invisible character shown escaped."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(_escape, text)


UNSAFE_IN_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")
"""One character that must not reach a terminal, in text laid out in lines and tabs."""


def sanitise_lines(text: str) -> str:
    """Like :func:`sanitise`, keeping line feeds and tabs (text ndbtop lays out itself)."""
    if UNSAFE_IN_LINES.search(text) is None:
        return text
    return UNSAFE_IN_LINES.sub(_escape, text)


class Laid(str):
    """Text ndbtop laid out in lines itself, everything from outside in it already escaped
    to one line (a table of :func:`ndbtop.report.tables.format_table`, a block of
    :func:`laid_out`): a line sink keeps its line feeds. Anything made from it by ``+`` or
    formatting is a plain string again, one line."""

    __slots__ = ()


def one_line(text: str) -> str:
    """``text`` as one line of a line-oriented sink: every control character (line feeds
    and tabs included), DEL and bidi/invisible character shown escaped; :class:`Laid` text
    as it is."""
    return text if isinstance(text, Laid) else sanitise(text)


def laid_out(lines: Iterable[str]) -> Laid:
    """``lines`` joined by line feeds, each one line (:func:`one_line`) of at most
    :data:`~ndbtop.elide.MAX_LINE_CHARS` characters: the text of a report or a bundle's
    text file."""
    return Laid(elide_lines("\n".join(map(one_line, lines))))


def write_line(stream: TextIO, text: str) -> None:
    """Write ``text`` to ``stream`` as one line (:func:`one_line`) and its line feed."""
    stream.write(one_line(text) + "\n")


PLUGIN_BAR = "\\x7c"
"""How a ``|`` in the human part of a plugin line is shown: a ``|`` there would start the
performance data."""


def plugin_text(text: str) -> str:
    """The human part of a monitoring-plugin line: one line (:func:`one_line`) without
    ``|``, which the Monitoring Plugins Development Guidelines reserve for the start of the
    performance data ("Output of a Monitoring Plugin", *Performance data*)."""
    return one_line(text).replace("|", PLUGIN_BAR)


def perf_label(label: str) -> str:
    """``label`` as a performance-data label, quoted as the Monitoring Plugins Development
    Guidelines say: at least one character that is not a space, printable, never ``=`` or
    ``'``; surrounded by single quotes when it holds a space. Only ndbtop's own labels
    are passed here: anything else raises ValueError."""
    if (not label.strip() or not label.isprintable() or not label.isascii()
            or "=" in label or "'" in label):
        raise ValueError(f"not a performance-data label: {label!r}")
    return f"'{label}'" if " " in label else label


def is_clean(text: str) -> bool:
    """Whether ``text`` holds nothing :func:`sanitise` would escape."""
    return UNSAFE.search(text) is None


class SafeStream:
    """A text stream that writes everything through :func:`sanitise_lines`.

    The command line wraps stdout and stderr in it, so that no report, progress line
    or error message can carry a control sequence, whatever it quotes.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` made safe; returns the length given (as a stream does)."""
        self.stream.write(sanitise_lines(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def json_text(value: object, **kwargs: object) -> str:
    """``value`` as JSON made only of printable ASCII: every string kept exactly, every
    control character (DEL included) and non-ASCII character written as an escape; a
    float that is not finite is null, with the reason under ``not_finite``
    (:func:`ndbtop.textnum.dumps`)."""
    return dumps(value, ensure_ascii=True, **kwargs).replace("\x7f", "\\u007f")
