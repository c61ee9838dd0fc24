"""Framing of the ndb_mgmd text protocol: pure functions and incremental parsers.

Nothing here touches a socket. Bytes go in, typed values come out, and every
malformed input raises a :class:`~ndbtop.errors.MgmProtocolError` subclass.

Requests are a command line, ``name: value`` argument lines and an empty line.
Replies are a header line, ``key: value`` lines and an empty line. The server
reads lines into a 512-byte buffer, so a line holds at most 510 characters
before its ``\\n``; the same bound applies to what the client accepts.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat, starmap
from typing import Union

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmLineTooLong, MgmProtocolError
from ndbtop.textnum import U64, NumberError
from ndbtop.textnum import parse_int as parse_number

MAX_LINE_CHARS = 510
"""Longest line (without its ``\\n``) the server's parser accepts."""

ENCODING = "utf-8"

PARSER_MESSAGES = (
    "Unknown command",
    "Unknown argument",
    "Type mismatch",
    "Invalid arg. format",
    "Unknown argument type",
    "Argument given twice",
    "Missing arg.",
)
"""The texts the server's request parser answers with (``result: <msg>, '<token>'``)."""

_PARSER_ERROR = re.compile(
    r"^result: (" + "|".join(re.escape(m) for m in PARSER_MESSAGES) + r"), '(.*)'$"
)
_MISSING_ARG_HEAD = "result: Missing arg., '"
_FIELD = re.compile(r"^([^:\n]+): ?(.*)$", re.MULTILINE)
"""``key: value`` as split_field() splits it (at the first colon; one space dropped)."""
_UNSPLIT = re.compile(r"^(?::|[^:\n]*$)", re.MULTILINE)
"""A line :data:`_FIELD` cannot split: no colon, or a colon first."""

MAX_REPLY_LINES = 16384
"""Most lines in one reply block (``get status`` of 255 nodes has about 2,800)."""


def encode_request(command: str, args: Iterable[tuple[str, str | int]] = ()) -> bytes:
    """Encode one request: the command line, one line per argument, an empty line.

    Raises ``ValueError`` for a value that would break the framing (a line
    break, a line longer than the server reads) or a repeated argument name
    (a repeated string argument can crash a real server).
    """
    _check_line(command, "command")
    lines = [command]
    seen: set[str] = set()
    for name, value in args:
        if not name or any(c in name for c in ":=\n\r"):
            raise ValueError(f"invalid argument name {name!r}")
        if name in seen:
            raise ValueError(f"argument {name!r} given twice")
        seen.add(name)
        line = f"{name}: {value}"
        _check_line(line, name)
        lines.append(line)
    return ("\n".join(lines) + "\n\n").encode(ENCODING)


def _check_line(line: str, what: str) -> None:
    if "\n" in line or "\r" in line:
        raise ValueError(f"line break in {what}")
    if len(line.encode(ENCODING)) > MAX_LINE_CHARS:
        raise ValueError(f"line length exceeded due to argument: {what}")


def format_block(header: str, fields: Sequence[tuple[str, object]] = ()) -> bytes:
    """Format a reply block as the server prints it: header, ``key: value`` lines, empty line."""
    out = [header]
    out.extend(f"{k}: {v}" for k, v in fields)
    return ("\n".join(out) + "\n\n").encode(ENCODING)


class LineBuffer:
    """Split a byte stream into lines, as the server's line reader does.

    ``\\r\\n`` becomes ``\\n``. A line longer than ``max_chars`` raises
    :class:`MgmLineTooLong` as soon as it is known to be too long.
    """

    __slots__ = ("_buf", "max_chars")

    def __init__(self, max_chars: int = MAX_LINE_CHARS) -> None:
        self._buf = bytearray()
        self.max_chars = max_chars

    def feed(self, data: bytes) -> list[str]:
        """Add bytes; return the complete lines they finish, without line ends."""
        buf = self._buf
        buf += data
        end = buf.rfind(b"\n")
        if end < 0:
            if len(buf) > self.max_chars + 1:
                raise MgmLineTooLong(f"line longer than {self.max_chars} bytes from the server")
            return []
        # Every complete line at once: a reply of thousands of lines arrives in a few
        # chunks, and slicing and decoding line by line would dominate reading it.
        complete = bytes(buf[:end])
        del buf[: end + 1]
        if len(complete) > self.max_chars:
            parts = complete.split(b"\n")
            if max(map(len, parts)) > self.max_chars:
                for line in parts:
                    size = len(line) - line.endswith(b"\r")
                    if size > self.max_chars:
                        raise MgmLineTooLong(
                            f"line of {size} bytes from the server (limit {self.max_chars})"
                        )
        if len(buf) > self.max_chars + 1:
            raise MgmLineTooLong(f"line longer than {self.max_chars} bytes from the server")
        text = complete.decode(ENCODING, errors="replace")
        if "\r" in text:
            return [line.removesuffix("\r") for line in text.split("\n")]
        return text.split("\n")

    @property
    def pending(self) -> int:
        """Bytes received that do not yet form a complete line."""
        return len(self._buf)


@dataclass(frozen=True, **SLOTS)
class Reply:
    """One reply block: its header line and its ``key: value`` lines in order."""

    header: str
    fields: tuple[tuple[str, str], ...]

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of the first line named ``key``."""
        for k, v in self.fields:
            if k == key:
                return v
        return default

    def require(self, key: str) -> str:
        """The value of ``key``; a protocol error if the server left it out."""
        value = self.get(key)
        if value is None:
            raise MgmProtocolError(f"reply '{self.header}' has no '{key}' line")
        return value

    def require_int(self, key: str) -> int:
        """The value of ``key`` as an integer; a protocol error if it is not one."""
        return parse_int(self.require(key), f"{self.header}/{key}")

    def as_dict(self) -> dict[str, str]:
        """Fields as a dict (the first line of each name wins)."""
        out: dict[str, str] = {}
        for k, v in self.fields:
            out.setdefault(k, v)
        return out


@dataclass(frozen=True, **SLOTS)
class ParserErrorReply:
    """The server's request parser refused the request (``result: <message>, '<token>'``)."""

    message: str
    token: str


@dataclass(frozen=True, **SLOTS)
class AuthFailureReply:
    """``Authorization failed`` / ``Error: <reason>``: the command was not run."""

    reason: str


AnyReply = Union[Reply, ParserErrorReply, AuthFailureReply]


_INT = re.compile(r"-?[0-9]{1,20}")


def parse_int(text: str, what: str = "value") -> int:
    """Parse a ``%d``/``%u`` printed integer; a protocol error for anything else."""
    try:
        return parse_number(text, -(1 << 63), U64)
    except NumberError:
        raise MgmProtocolError(f"expected a number for {what}, got {text[:40]!r}") from None


def split_field(line: str, separators: str = ":") -> tuple[str, str]:
    """Split ``key: value`` at the first separator; one space after it is dropped."""
    if separators == ":":
        idx = line.find(":")
    else:
        idx = min((i for i in (line.find(s) for s in separators) if i >= 0), default=-1)
    if idx <= 0:
        raise MgmProtocolError(f"malformed line {line[:60]!r}")
    key = line[:idx]
    value = line[idx + 1 :]
    if value.startswith(" "):
        value = value[1:]
    return key, value


class ReplyParser:
    """Assemble reply blocks from lines.

    Feed lines one at a time; a finished block comes back from :meth:`feed`.
    Parser errors and authorization failures are recognised from their first
    line, including the split ``Missing arg.`` form whose token is a newline.

    ``memo`` (one per session, kept between replies) holds the last body split for each
    header: a reply whose body is the very text of the last one (a cluster at rest
    answers ``get status`` with the same thousands of lines at every refresh) is not
    split again.
    """

    __slots__ = ("_body", "_fields", "_header", "_memo", "_missing_arg")

    def __init__(self, memo: dict[str, tuple[str, list[tuple[str, str]]]] | None = None) -> None:
        self._header: str | None = None
        self._fields: list[tuple[str, str]] = []
        self._body: list[str] = []
        self._missing_arg = False
        self._memo = memo

    @property
    def idle(self) -> bool:
        """True between blocks."""
        return self._header is None and not self._missing_arg

    def feed_from(self, lines: deque[str]) -> AnyReply | None:
        """Consume lines from the left of ``lines`` until a reply is complete (returned,
        the lines after it left in ``lines``) or ``lines`` is empty (None)."""
        while lines:
            if self._header is None or self._missing_arg or (not lines[0] and not self._body):
                reply = self.feed(lines.popleft())
                if reply is not None:
                    return reply
                continue
            # The body of a block: thousands of ``key: value`` lines for a large cluster.
            # Its lines wait until the block is complete and are split at once, by one
            # regular expression; a line that cannot be split is named as soon as it
            # arrives, as when lines are fed one by one.
            end = _index(lines, "")
            body = list(starmap(lines.popleft, repeat((), len(lines) if end < 0 else end)))
            if len(body) + len(self._body) + len(self._fields) > MAX_REPLY_LINES:
                raise MgmProtocolError(f"reply of more than {MAX_REPLY_LINES} lines")
            if end < 0 and _UNSPLIT.search("\n".join(body)) is None:
                self._body.extend(body)
                continue
            if self._body:
                body[:0] = self._body
                self._body = []
            if end < 0:
                self._split_each(body)
            else:
                self._split_body(body)
        return None

    def _split_body(self, body: list[str]) -> None:
        """Split a complete block's body into its fields (or raise for the first line that
        does not split)."""
        text = "\n".join(body)
        memo = self._memo
        known = memo.get(self._header or "") if memo is not None else None
        if known is not None and known[0] == text:
            self._fields.extend(known[1])
            return
        found = _FIELD.findall(text)
        if len(found) != len(body):
            self._split_each(body)
            return
        if memo is not None and self._header is not None:
            memo[self._header] = (text, found)
        self._fields.extend(found)

    def _split_each(self, body: list[str]) -> None:
        """Split line by line (what split_field does, without a call per line)."""
        fields = self._fields
        for line in body:
            idx = line.find(":")
            if idx <= 0:
                raise MgmProtocolError(f"malformed line {line[:60]!r}")
            value = line[idx + 1 :]
            fields.append((line[:idx], value[1:] if value.startswith(" ") else value))

    def feed(self, line: str) -> AnyReply | None:
        """Consume one line; return a reply when it completes one."""
        if self._missing_arg:
            if line == "'":
                self._header = "\x00missing"
                self._missing_arg = False
                return None
            raise MgmProtocolError(f"unexpected line after Missing arg.: {line[:60]!r}")
        if self._header is None:
            if line == "":
                return None
            if line == _MISSING_ARG_HEAD:
                self._missing_arg = True
                return None
            self._header = line
            self._fields = []
            return None
        if line != "":
            if len(self._fields) >= MAX_REPLY_LINES:
                raise MgmProtocolError(f"reply of more than {MAX_REPLY_LINES} lines")
            self._fields.append(split_field(line))
            return None
        header, fields = self._header, tuple(self._fields)
        self._header = None
        self._fields = []
        return _classify(header, fields)


def _index(lines: deque[str], item: str) -> int:
    try:
        return lines.index(item)
    except ValueError:
        return -1


def _classify(header: str, fields: tuple[tuple[str, str], ...]) -> AnyReply:
    if header == "\x00missing":
        if fields:
            raise MgmProtocolError("Missing arg. reply with extra lines")
        return ParserErrorReply("Missing arg.", "\n")
    m = _PARSER_ERROR.match(header)
    if m and not fields:
        return ParserErrorReply(m.group(1), m.group(2))
    if header == "Authorization failed":
        reason = dict(fields).get("Error", "")
        return AuthFailureReply(reason)
    if header.startswith("result: "):
        raise MgmProtocolError(f"unrecognised reply {header[:80]!r}")
    return Reply(header, fields)


def parse_replies(data: bytes) -> list[AnyReply]:
    """Parse every complete reply block in ``data`` (for tests and tools)."""
    lines = LineBuffer().feed(data)
    parser = ReplyParser()
    out: list[AnyReply] = []
    for line in lines:
        reply = parser.feed(line)
        if reply is not None:
            out.append(reply)
    return out


@dataclass(frozen=True, **SLOTS)
class RawEvent:
    """A parsable event block before decoding: ``type``, ``time``, source and body lines."""

    type: int
    time: int
    source_nodeid: int
    body: tuple[tuple[str, str], ...]
