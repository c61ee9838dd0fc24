"""The management server's cluster log file: where it is and what its lines say.

Where: each management node's ``LogDestination`` (``;``-separated ``TYPE:params``). With
none set the server logs to ``FILE:filename=ndb_<id>_cluster.log,maxsize=1000000,
maxfiles=6`` in its DataDir, and a relative ``filename`` is relative to the DataDir too
(MgmtSrvr.cpp ``setClusterLog``: ``NdbConfig_SetPath(datadir)`` and ``chdir`` to it before
``configure_eventlogger``). ``CONSOLE`` and ``SYSLOG`` write no file ndbtop can read.

Rotation (FileLogHandler.cpp ``createNewFile``): at ``maxsize`` bytes the file is renamed
to the first free ``<name>.N`` (N from 1 to ``maxfiles - 1``), or, once all exist, over the
one whose modification time breaks the order: the numbers go round, so the newest
predecessor is the one modified last, not ``.1``.

A line (LogHandler.cpp ``getDefaultHeader``, Logger.cpp ``LoggerLevelNames``)::

    2017-05-13 17:27:09 [MgmtSrvr] WARNING  -- Node 2: Node 1 missed heartbeat 2

the local time of the management server's host, its log name in brackets (``MgmtSrvr``;
``MgmSrvr`` in old releases; ``--log-name`` sets another), the severity padded to 8, then
``Node <reporting node>: `` and the event's text, or a text of the server's own. A line
repeated within 3 s is written once, then again with `` - Repeated N times``.

The file is read as untrusted text. The server writes at most 1,023 characters of text a
line (Logger.hpp ``MAX_LOG_MESSAGE_SIZE`` 1024, the buffer of Logger.cpp ``log``) after a
header of at most 128 (LogHandler.hpp ``MAX_HEADER_LENGTH``): a longer line is none of its
own and stays text, cut to :data:`MAX_LINE_CHARS`, never read as an event. A line is
stamped when it is written: a time before 1970, after ndbtop's latest
(:data:`~ndbtop.textnum.MAX_TIME`) or after the host's clock when the file was read (the
caller's ``latest``) is no time the server wrote, and the line stays text too.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import CATALOGUE
from ndbtop.mgm.events.decode import TEXT_LINE_TYPE, Event
from ndbtop.mgm.events.from_text import event_from_text
from ndbtop.mgm.nodeids import node_id_problem
from ndbtop.textnum import MAX_TIME, is_digits

DEFAULT_MAX_FILES = 6
DEFAULT_MAX_SIZE = 1_000_000
MAX_PREDECESSORS = 64
"""Rotated files looked at, whatever ``maxfiles`` says."""
MAX_LINE_CHARS = 2048
"""The longest line read as the server's (its header, 1,023 characters of text and the
repetition's count fit well within it)."""

SEVERITIES = ("ON", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", "ALERT", "ALL")
_LINE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) "
                   r"\[([^\]\n]{0,200})\] (ON|DEBUG|INFO|WARNING|ERROR|CRITICAL|ALERT|ALL) *"
                   r" -- (.*)", re.DOTALL)
_NODE = re.compile(r"Node ([0-9]{1,10}): (.*)", re.DOTALL)
_REPEATED = re.compile(r"(.*) - Repeated ([0-9]{1,9}) times", re.DOTALL)


@dataclass(frozen=True, **SLOTS)
class LogLine:
    """One line of a cluster log: its own time, the node that reported it, its severity,
    its text, and where it came from (``file``: a cluster log file; ``events``: the event
    stream ndbtop listened to).

    ``time`` is None for a line that does not read as the file's layout (``text`` then
    holds the whole line). ``event`` is the event the line stands for, when its text reads
    back as one (:mod:`ndbtop.mgm.events.from_text`).
    """

    time: float | None
    node: int | None
    severity: str | None
    text: str
    origin: str = "file"
    logger: str = ""
    repeated: int = 1
    """``N`` of `` - Repeated N times`` (the line stands for that many)."""
    mgm_node: int | None = None
    """The management node whose file held the line."""
    event: Event | None = None

    @property
    def category(self) -> str | None:
        """The event's category name (``ERROR``, ``STARTUP``...) where its type is known."""
        e = self.event
        if e is None or e.type == TEXT_LINE_TYPE:
            return None
        spec = CATALOGUE.get(e.type)
        return spec.category.name if spec is not None else None

    def key(self) -> tuple[float | None, int | None, str]:
        """What makes two lines the same report (two management servers log one event)."""
        return self.time, self.node, self.text


def parse_line(line: str, tz: dt.tzinfo | None = None, mgm_node: int | None = None,
               latest: float = MAX_TIME) -> LogLine:
    """One line of the file, its time read in ``tz`` (None: this host's local time).

    A line of another layout, longer than :data:`MAX_LINE_CHARS` or stamped outside 1970
    to ``latest`` is kept as text (cut to the limit), with no time.
    """
    m = _LINE.fullmatch(line) if len(line) <= MAX_LINE_CHARS else None
    if m is None:
        return LogLine(None, None, None, line[:MAX_LINE_CHARS], mgm_node=mgm_node)
    try:
        when = dt.datetime(*(int(g) for g in m.groups()[:6]), tzinfo=tz).timestamp()
    except (ValueError, OverflowError, OSError):
        return LogLine(None, None, None, line, mgm_node=mgm_node)
    if not 0.0 <= when <= min(latest, MAX_TIME):
        return LogLine(None, None, None, line, mgm_node=mgm_node)
    logger, severity, rest = m.group(7), m.group(8), m.group(9)
    repeated = 1
    if r := _REPEATED.fullmatch(rest):
        rest, repeated = r.group(1), max(int(r.group(2)), 1)
    node: int | None = None
    text = rest
    if n := _NODE.fullmatch(rest):
        number = int(n.group(1))
        if node_id_problem(number) is None:
            node, text = number, n.group(2)
    event = event_from_text(node, text, severity, when)
    return LogLine(when, node, severity, text, "file", logger, repeated, mgm_node, event)


def parse_lines(text: str, tz: dt.tzinfo | None = None, mgm_node: int | None = None,
                whole: bool = True, latest: float = MAX_TIME) -> list[LogLine]:
    """Every line of a file's text (:func:`parse_line`). ``whole``: the text begins at a
    line's start (else its first, cut, line is left out)."""
    lines = text.split("\n")
    if not whole and lines:
        lines = lines[1:]
    return [parse_line(raw, tz, mgm_node, latest)
            for raw in (x.rstrip("\r") for x in lines) if raw]


@dataclass(frozen=True, **SLOTS)
class LogPlace:
    """Where one management node writes its cluster log: ``path`` (None when it writes no
    file, ``why`` then says so) and ``max_files`` (the file and its predecessors)."""

    mgm_node: int
    host: str
    path: str | None
    max_files: int = DEFAULT_MAX_FILES
    why: str | None = None


def log_place(mgm_node: int, host: str, data_dir: str, destination: str) -> LogPlace:
    """Where management node ``mgm_node`` writes its cluster log, from its DataDir and its
    LogDestination (empty: the server's default)."""
    default = f"ndb_{mgm_node}_cluster.log"
    dest = destination.strip() or (f"FILE:filename={default},maxsize={DEFAULT_MAX_SIZE},"
                                   f"maxfiles={DEFAULT_MAX_FILES}")
    kinds = []
    for part in dest.split(";"):
        kind, _, params = part.partition(":")
        kind = kind.strip()
        kinds.append(kind)
        if kind != "FILE":
            continue
        values = dict(p.partition("=")[::2] for p in params.split(",") if "=" in p)
        name = values.get("filename", "").strip() or default
        files = values.get("maxfiles", "").strip()
        max_files = int(files) if is_digits(files) and int(files) >= 1 else DEFAULT_MAX_FILES
        if not name.startswith("/"):
            if not data_dir.startswith("/"):
                return LogPlace(mgm_node, host, None, why=f"DataDir {data_dir!r} is relative: "
                                "its place on the host is not known")
            name = f"{data_dir.rstrip('/')}/{name}"
        return LogPlace(mgm_node, host, name, min(max_files, MAX_PREDECESSORS + 1))
    named = " and ".join(k or "(empty)" for k in kinds)
    return LogPlace(mgm_node, host, None,
                    why=f"LogDestination is {named}: no file to read")
