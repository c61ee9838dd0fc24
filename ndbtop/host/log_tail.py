"""The end of a log file on a host: read here, or the answer of the remote loop's ``c``.

Read-only and bounded: a regular file only (a symbolic link at the name is refused, here by
``O_NOFOLLOW`` and ``lstat``, there by ``[ ! -h ]``), at most the bytes asked for, NUL
bytes dropped.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.textnum import int_or_none


@dataclass(frozen=True, **SLOTS)
class FileTail:
    """A file's size and modification time, and its last bytes (``text``).

    ``whole``: ``text`` is the whole file (else its first line may be cut). ``tz``: the
    host's UTC offset when the file was read (None: this host's local time).
    """

    size: int
    mtime: float
    text: str
    whole: bool
    tz: dt.tzinfo | None = None
    host_now: float | None = None


def read_local_tail(path: str, limit: int) -> FileTail | None:
    """The last ``limit`` bytes of a regular file on this host; None when there is none
    (or a link stands at the name, or it cannot be read)."""
    try:
        before = os.lstat(path)
        if not stat.S_ISREG(before.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_ino, st.st_dev) != (before.st_ino,
                                                                     before.st_dev):
            return None
        data = b""
        if limit > 0:
            start = max(st.st_size - limit, 0)
            os.lseek(fd, start, os.SEEK_SET)
            chunks, left = [], min(limit, st.st_size - start)
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
            data = b"".join(chunks)
        whole = len(data) >= st.st_size
        return FileTail(st.st_size, st.st_mtime, data.replace(b"\0", b"").decode(
            "utf-8", "replace"), whole)
    except OSError:
        return None
    finally:
        os.close(fd)


def parse_tail(lines: list[str], marker: str) -> FileTail | None:
    """The remote loop's answer to ``c`` (its lines, the token's ``marker`` with its
    space); None for ``nofile`` or an answer that does not read."""
    size = mtime = None
    body: list[str] = []
    tz: dt.tzinfo | None = None
    now: float | None = None
    inside = False
    for line in lines:
        if line.startswith(marker):
            word, _, rest = line[len(marker):].partition(" ")
            inside = word == "file"
            if word == "nofile":
                return None
            if word == "file":
                parts = rest.split()
                if len(parts) == 2:
                    size = int_or_none(parts[0], 0, 1 << 50)
                    mtime = int_or_none(parts[1], 0, 1 << 40)
            elif word == "now":
                parts = rest.split()
                if len(parts) == 2:
                    seconds = int_or_none(parts[0], 0, 1 << 40)
                    now = float(seconds) if seconds is not None else None
                    tz = utc_offset(parts[1])
            continue
        if inside:
            body.append(line)
    if size is None or mtime is None:
        return None
    if body and body[-1] == "":
        body.pop()
    text = "\n".join(body)
    return FileTail(size, float(mtime), text, False, tz, now)


def utc_offset(text: str) -> dt.tzinfo | None:
    """``+0100`` / ``-0530`` (``date +%z``) as a time zone; None when it does not read."""
    if len(text) != 5 or text[0] not in "+-" or not text[1:].isdigit():
        return None
    hours, minutes = int(text[1:3]), int(text[3:])
    if hours > 23 or minutes > 59:
        return None
    sign = -1 if text[0] == "-" else 1
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))
