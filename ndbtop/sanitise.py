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
"""

from __future__ import annotations

import re
from typing import TextIO

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
