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

_OFFSET = re.compile(r"Current byte-offset of file-pointer is:\s*(\d+)")
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
    if m is not None:
        offset = int(m.group(1))
        before = [e for e in entries if e[0] <= offset]
        if before and offset > 69:
            newest = before[-1]
    fields: dict[str, str] = {}
    for line in newest[1].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    code = fields.get("Error", "")
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
        error_code=int(code) if code.isdigit() else None,
        meaning=_field(fields["Message"]) if "Message" in fields else None,
        caused_by=caused,
        trace_file=_field(fields["Trace file name"]) if "Trace file name" in fields else None,
    )
