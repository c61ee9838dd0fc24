"""A data node's ``ndb_<id>_error.log`` as ErrorReporter writes it, for simulated hosts.

``formatMessage`` and ``WriteMessage`` (storage/ndb/src/kernel/error/ErrorReporter.cpp):
a 69-byte header naming the offset of the next entry, then entries of MESSAGE_LENGTH
999: the text, ``***EOM***``, blanks up to 997 bytes and a newline (998 bytes written).
After ``MaxNoOfSavedMessages`` entries the offset goes back to 69 and the oldest entry is
written over.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS

HEADER = 69
MESSAGE_LENGTH = 999
ENTRY_BYTES = MESSAGE_LENGTH - 1


@dataclass(frozen=True, **SLOTS)
class Crash:
    """What one entry records."""

    time: str
    status: str
    message: str
    classification: str
    code: int
    data: str
    obj: str
    pid: int
    thread: int | None
    version: str
    trace_path: str | None
    threads: int


def format_entry(node_id: int, c: Crash) -> str:
    """One entry, padded as formatMessage pads it."""
    name = "<no tracefile>"
    path = "<no tracefile>"
    if c.trace_path is not None:
        name = c.trace_path.rsplit("/", 1)[-1]
        if c.thread:
            name += f"_t{c.thread}"
        path = f"{c.trace_path} [t1..t{c.threads}]"
    thr = f" thr: {c.thread}" if c.thread is not None else ""
    text = (
        f"Time: {c.time}\nStatus: {c.status}\nMessage: {c.message} ({c.classification})\n"
        f"Error: {c.code}\nError data: {c.data}\nError object: {c.obj}\nProgram: ndbmtd\n"
        f"Pid: {c.pid}{thr}\nVersion: {c.version}\nTrace file name: {name}\n"
        f"Trace file path: {path}"
    )[:MESSAGE_LENGTH - 1]
    text += "\n***EOM***\n"
    text = text.ljust(ENTRY_BYTES - 1)[:ENTRY_BYTES - 1]
    return text + "\n"


def error_log_file(node_id: int, crashes: list[Crash], saved: int = 25) -> str:
    """The file after writing ``crashes`` in order, ``saved`` entries kept (circular)."""
    slots: list[str] = []
    offset = HEADER
    for crash in crashes:
        index = (offset - HEADER) // ENTRY_BYTES
        entry = format_entry(node_id, crash)
        if index < len(slots):
            slots[index] = entry
        else:
            slots.append(entry)
        offset += ENTRY_BYTES
        if offset > HEADER + saved * MESSAGE_LENGTH - MESSAGE_LENGTH:
            offset = HEADER
    header = f"Current byte-offset of file-pointer is: {offset}"
    header = header.ljust(HEADER - 3) + "\n\n\n"
    return header + "".join(slots)
