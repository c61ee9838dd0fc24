"""The newest entry of a data node's ``ndb_<id>_error.log``.

Layout (storage/ndb/src/kernel/error/ErrorReporter.cpp, ``WriteMessage`` and
``formatMessage``): a 69-byte header ``Current byte-offset of file-pointer is: N`` (N is
where the next entry will be written), then entries of a fixed length (MESSAGE_LENGTH
999: 998 bytes, padded with blanks and ending in a newline), each::

    Time: <day> <date> <month> <year> - <hh>:<mm>:<ss>
    Status: <exit status>
    Message: <meaning> (<classification>)
    Error: <code>
    Error data: <problem data, which may run over several lines>
    Error object: <block (Line: n)>
    Program: <ndbd|ndbmtd>
    Pid: <pid>[ thr: <thread>]
    Version: <version>
    Trace file name: <file>[_t<thread>]
    Trace file path: <path>[ [t1..t<threads>]]
    ***EOM***

The file is circular: the newest entry is the one that ends right before N, or, when N
went back to the start (69), the last one in the file.
"""

from __future__ import annotations

import re

from ndbtop.model.hosts import ErrorLogEntry
from ndbtop.textnum import int_or_none

HEADER_LENGTH = 69
_OFFSET = re.compile(r"Current byte-offset of file-pointer is:\s*([0-9]{1,12})")
_EOM = "***EOM***"
FIELDS = ("Time", "Status", "Message", "Error", "Error data", "Error object", "Program",
          "Pid", "Version", "Trace file name", "Trace file path", "Trace file")
"""The fields in the order formatMessage writes them (``Trace file`` in older releases)."""
_NUMBER = re.compile(r"[0-9]{1,10}")
_PID = re.compile(r"([0-9]{1,10})(?:\s+thr:\s*([0-9]{1,4}))?")
_TRACE_PATH = re.compile(r"(.*?)(?:\s+\[t([0-9]{1,4})\.\.t([0-9]{1,4})\])?")


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


def _fields(entry: str) -> dict[str, str]:
    """The entry's fields; a line that does not open a later field continues the last one.

    Problem data (``Error data``) is free text and may run over several lines, some of
    them holding a colon: only a field name that comes later in the order opens a field.
    """
    # Each field's lines are gathered and joined once: work linear in the entry, however
    # many lines its problem data runs over.
    lines: dict[str, list[str]] = {}
    current: str | None = None
    after = 0
    for line in entry.splitlines():
        opened = next((name for name in FIELDS[after:] if line.startswith(name + ":")), None)
        if opened is not None:
            current = opened
            after = FIELDS.index(opened) + 1
            lines[current] = [line[len(opened) + 1:].strip()]
        elif current is not None and line.strip():
            lines[current].append(line.strip())
    return {name: "\n".join(parts) for name, parts in lines.items()}


def _message(text: str) -> tuple[str, str | None]:
    """``meaning (classification)``: the classification is the last parenthesised part."""
    if text.endswith(")"):
        at = text.rfind(" (")
        if at > 0:
            return text[:at], text[at + 2:-1]
    return text, None


RAW_SHOWN = 40
"""Characters of an unreadable field kept to show it (a file can hold anything)."""


def _bounded(text: str) -> str:
    return text if len(text) <= RAW_SHOWN else text[:RAW_SHOWN] + "…"


def parse_error_log(text: str, node_id: int, path: str) -> ErrorLogEntry:
    """The newest entry of the error log ``text`` (``problem`` set when there is none).

    A field that does not read as the layout says is named in ``unreadable`` and kept as
    text where it has one; the entry is never dropped for it.
    """
    entries = _entries(text)
    if not entries:
        return ErrorLogEntry(node_id, path, problem="no entry in the error log")
    m = _OFFSET.search(text[:200])
    newest = entries[-1]
    offset = int_or_none(m.group(1)) if m is not None else None
    if offset is not None:
        before = [e for e in entries if e[0] <= offset]
        if before and offset > HEADER_LENGTH:
            newest = before[-1]
    fields = _fields(newest[1])
    unreadable: list[str] = []

    code = None
    if "Error" in fields:
        if _NUMBER.fullmatch(fields["Error"]):
            code = int(fields["Error"])
        else:
            unreadable.append("Error")
    meaning, classification = _message(fields["Message"]) if "Message" in fields else (None, None)
    pid = thread = None
    if "Pid" in fields:
        pm = _PID.fullmatch(fields["Pid"])
        if pm is None:
            unreadable.append("Pid")
        else:
            pid = int(pm.group(1))
            thread = int(pm.group(2)) if pm.group(2) is not None else None
    trace_path = fields.get("Trace file path") or fields.get("Trace file")
    trace_threads = None
    if trace_path:
        tm = _TRACE_PATH.fullmatch(trace_path)
        if tm is not None and tm.group(3) is not None:
            trace_path, trace_threads = tm.group(1), int(tm.group(3))
    data = fields.get("Error data") or None
    caused = None
    if data is not None:
        at = data.find("Caused by error")
        if at >= 0:
            caused = data[at:].strip()
    return ErrorLogEntry(
        node_id=node_id,
        path=path,
        time=fields.get("Time"),
        status=fields.get("Status"),
        error_code=code,
        meaning=meaning,
        caused_by=caused,
        trace_file=fields.get("Trace file name") or (
            trace_path.rsplit("/", 1)[-1] if trace_path else None),
        classification=classification,
        error_data=data,
        error_object=fields.get("Error object") or None,
        program=fields.get("Program") or None,
        pid=pid,
        thread=thread,
        version=fields.get("Version") or None,
        trace_path=trace_path or None,
        trace_threads=trace_threads,
        unreadable=tuple(unreadable),
        raw_error=_bounded(fields["Error"]) if "Error" in unreadable else None,
    )

