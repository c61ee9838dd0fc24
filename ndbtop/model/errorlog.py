"""The newest entry of a data node's ``ndb_<id>_error.log``.

Layout (storage/ndb/src/kernel/error/ErrorReporter.cpp): a 69-byte header
``Current byte-offset of file-pointer is: N`` (N is where the next entry will be
written), then fixed-length entries, each ``Time: ... / Status: / Message: <meaning>
(<classification>) / Error: <code> / Error data: / Error object: / Program: / Pid: /
Version: / Trace file name: / Trace file path:`` ending with ``***EOM***`` and padded
with blanks. The file is circular: the newest entry is the one that ends right before
N, or, when N went back to the start, the last one in the file.
"""

from __future__ import annotations

import re

from ndbtop.model.hosts import ErrorLogEntry
from ndbtop.textnum import int_or_none

_OFFSET = re.compile(r"Current byte-offset of file-pointer is:[ \t]*([^\s]+)")
_EOM = "***EOM***"


def _field(text: str) -> str:
    # Kept as the file has it: what shows it escapes it (ndbtop.sanitise).
    return text.strip()


def _entries(text: str) -> list[tuple[int, str]]:
    """Each entry's end position and text, in file order."""
    out = []
    start = 0
    while True:
        at = text.find(_EOM, start)
        if at < 0:
            return out
        end = at + len(_EOM)
        begin = text.rfind("Time:", start, at)
        if begin >= 0:
            out.append((end, text[begin:at]))
        start = end


def parse_error_log(text: str, node_id: int, path: str) -> ErrorLogEntry:
    """The newest entry of the error log ``text`` (``problem`` set when there is none)."""
    entries = _entries(text)
    if not entries:
        return ErrorLogEntry(node_id, path, problem="no entry in the error log")
    m = _OFFSET.search(text[:200])
    newest = entries[-1]
    offset = int_or_none(m.group(1)) if m is not None else None
    if offset is not None:
        before = [e for e in entries if e[0] <= offset]
        if before and offset > 69:
            newest = before[-1]
    fields: dict[str, str] = {}
    for line in newest[1].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    code = fields.get("Error", "")
    error_code = int_or_none(code, 0, 1 << 32)
    data = fields.get("Error data", "")
    caused = None
    at = data.find("Caused by error")
    if at >= 0:
        caused = _field(data[at:])
    return ErrorLogEntry(
        node_id=node_id,
        path=path,
        time=_field(fields["Time"]) if "Time" in fields else None,
        status=_field(fields["Status"]) if "Status" in fields else None,
        error_code=error_code,
        error_text=code if code and error_code is None else None,
        meaning=_field(fields["Message"]) if "Message" in fields else None,
        caused_by=caused,
        trace_file=_field(fields["Trace file name"]) if "Trace file name" in fields else None,
    )


def error_shown(entry: ErrorLogEntry) -> str:
    """The entry's error code as shown: the number, ``?`` when there is none, or the
    field as written, marked, when it is not a number."""
    if entry.error_code is not None:
        return str(entry.error_code)
    if entry.error_text is not None:
        return f"{entry.error_text} (not a number)"
    return "?"
