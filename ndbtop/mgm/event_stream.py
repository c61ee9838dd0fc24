"""The event stream of a ``listen event`` socket: keep-alives, parsable event blocks and
the lines of a text-mode listener, and the blocks as the server formats them.

Nothing here touches a socket; a malformed block raises
:class:`~ndbtop.errors.MgmProtocolError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmProtocolError
from ndbtop.mgm.wire import ENCODING, RawEvent, parse_int

PING = "<PING>"
EVENT_HEADER = "log event reply"

MAX_EVENT_LINES = 64
"""Most lines in one event block (the widest event has a dozen body lines besides its
three head lines)."""


@dataclass(frozen=True, **SLOTS)
class TextEventLine:
    """One event of a text-mode listener: ``Node <id>: <text>``."""

    line: str


class EventStreamParser:
    """Assemble what a ``listen event`` socket carries after its reply.

    Returns ``PING`` for keep-alives, :class:`RawEvent` for each parsable block,
    and :class:`TextEventLine` for any other line outside a block (text mode).
    Inside a block, lines are ``key=value`` (or ``key:value``).
    """

    __slots__ = ("_body", "_in_block")

    def __init__(self) -> None:
        self._in_block = False
        self._body: list[tuple[str, str]] = []

    def feed(self, line: str) -> str | RawEvent | TextEventLine | None:
        """Consume one line; return what it completes."""
        if not self._in_block:
            if line == PING:
                return PING
            if line == EVENT_HEADER:
                self._in_block = True
                self._body = []
                return None
            if line == "":
                return None
            return TextEventLine(line)
        if line != "":
            if len(self._body) >= MAX_EVENT_LINES:
                raise MgmProtocolError(f"event block of more than {MAX_EVENT_LINES} lines")
            key, value = _split_event_field(line)
            self._body.append((key, value))
            return None
        self._in_block = False
        return _raw_event(tuple(self._body))


def _split_event_field(line: str) -> tuple[str, str]:
    eq = line.find("=")
    colon = line.find(":")
    idx = min(i for i in (eq, colon, len(line)) if i >= 0)
    if idx <= 0 or idx == len(line):
        raise MgmProtocolError(f"malformed event line {line[:60]!r}")
    return line[:idx], line[idx + 1 :]


def _raw_event(lines: tuple[tuple[str, str], ...]) -> RawEvent:
    head: dict[str, int] = {}
    body: list[tuple[str, str]] = []
    for key, value in lines:
        if key in ("type", "time", "source_nodeid") and key not in head:
            head[key] = parse_int(value, f"event {key}")
        else:
            body.append((key, value))
    for key in ("type", "time", "source_nodeid"):
        if key not in head:
            raise MgmProtocolError(f"event block without '{key}'")
    return RawEvent(head["type"], head["time"], head["source_nodeid"], tuple(body))


def format_event_block(
    event_type: int, source_nodeid: int, body: Sequence[tuple[str, object]], time: int = 0
) -> bytes:
    """Format a parsable event block exactly as the server's ``logevent2str`` does."""
    lines = [EVENT_HEADER, f"type={event_type}", f"time={time}", f"source_nodeid={source_nodeid}"]
    lines.extend(f"{k}={v}" for k, v in body)
    return ("\n".join(lines) + "\n\n").encode(ENCODING)
