"""Events read back from their cluster-log text: a line of the management server's cluster
log file becomes the event a listener would have decoded.

The file keeps only the text (``Node 2: Node 1 missed heartbeat 2``), the severity and the
time. For the event types the findings judge, the signal words are read back from the
server's format strings (``EventLogger.cpp`` ``getText*``, as :mod:`ndbtop.mgm.events.text`
prints them), and the event is rebuilt through its parsable wire form and ndbtop's own
decoder. It is kept typed only when its text printed again is the line's text (but for
:data:`LOOSE`): a text read back wrongly never becomes a figure. Any other line stays a text line
(:data:`~ndbtop.mgm.events.decode.TEXT_LINE_TYPE`), which the arbitration reports read
as the text-mode listener's lines are read.

WarningEvent (46) and InfoEvent (49) are free text: a WARNING line that reads as no other
warning type (TransporterWarning, MissedHeartbeat, SubscriptionStatus) is a WarningEvent,
and an INFO line is an InfoEvent only when it is one of the GCP monitor's texts or SUMA's
``Disconnecting lagging nodes``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.catalogue import START_TYPE_TEXTS
from ndbtop.mgm.events.decode import Event, decode_event, decode_text_line
from ndbtop.mgm.events.encode import encode_parsable
from ndbtop.mgm.events.text import (
    DBACC,
    DBLQH,
    DBTUP,
    MASK32,
    NODE_BITMASK_WORDS,
    pack_string,
)
from ndbtop.mgm.version import make_version
from ndbtop.mgm.wire import ENCODING, RawEvent
from ndbtop.textnum import is_digits

WARNING_EVENT, INFO_EVENT, STOP_FORCED = 46, 49, 59
LOOSE = frozenset({10, 11, STOP_FORCED})
"""Types kept when their text printed again differs: a forced shutdown's exit message is
the release's own, and the parsable body of NDBStartStarted/Completed carries the NDB
version only (not the MySQL version the text names)."""

_N = r"(-?[0-9]{1,10})"
_VERSION = re.compile(r"(?:mysql-([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3}) )?"
                      r"ndb-([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})")
_INFO_TEXTS = re.compile(r"GCP Monitor:|Detected GCP stop|Disconnecting lagging nodes ")
_START_TYPES = {text: kind for kind, text in START_TYPE_TEXTS.items() if text}


def _int(text: str | None) -> int:
    return int(text) & MASK32 if text else 0


def _version(text: str) -> tuple[int, ...] | None:
    m = _VERSION.fullmatch(text)
    if m is None:
        return None
    g = [int(x) if x is not None else None for x in m.groups()]
    mysql = make_version(g[0], g[1], g[2]) if g[0] is not None else 0  # type: ignore[arg-type]
    return make_version(g[3], g[4], g[5]), mysql  # type: ignore[arg-type]


def _nodes(pretty: str) -> tuple[int, ...] | None:
    """The words of a node bitmask from ``getPrettyText``'s ``1, 2 and 3``."""
    words = [0] * NODE_BITMASK_WORDS
    text = pretty.strip()
    if text:
        for part in re.split(r", | and ", text):
            if not is_digits(part, 3) or not 1 <= int(part) < 32 * NODE_BITMASK_WORDS:
                return None
            node = int(part)
            words[node // 32] |= 1 << (node % 32)
    return tuple(words)


_MASKS = r"([0-9, and]*?)"
_START_REPORTS: tuple[tuple[int, re.Pattern[str], tuple[str, ...]], ...] = (
    (1, re.compile(rf"Initial start, waiting for {_MASKS} to connect,  nodes \[ all: {_MASKS} "
                   rf"connected: {_MASKS} no-wait: {_MASKS} \]"),
     ("missing", "all", "connected", "no_wait")),
    (2, re.compile(rf"Waiting until nodes: {_MASKS} connects, nodes \[ all: {_MASKS} "
                   rf"connected: {_MASKS} no-wait: {_MASKS} \]"),
     ("missing", "all", "connected", "no_wait")),
    (3, re.compile(rf"Waiting {_N} sec for nodes {_MASKS} to connect, nodes \[ all: {_MASKS} "
                   rf"connected: {_MASKS} no-wait: {_MASKS} \]"),
     ("time", "missing", "all", "connected", "no_wait")),
    (4, re.compile(rf"Waiting for non partitioned start, nodes \[ all: {_MASKS} connected: "
                   rf"{_MASKS} missing: {_MASKS} no-wait: {_MASKS} \]"),
     ("all", "connected", "missing", "no_wait")),
    (5, re.compile(rf"Waiting {_N} sec for non partitioned start, nodes \[ all: {_MASKS} "
                   rf"connected: {_MASKS} missing: {_MASKS} no-wait: {_MASKS} \]"),
     ("time", "all", "connected", "missing", "no_wait")),
    (0x8000, re.compile(rf"Initial start with nodes {_MASKS} \[ missing: {_MASKS} no-wait: "
                        rf"{_MASKS} \]"), ("connected", "missing", "no_wait")),
    (0x8001, re.compile(rf"Start with all nodes {_MASKS}"), ("connected",)),
    (0x8002, re.compile(rf"Start with nodes {_MASKS} \[ missing: {_MASKS} no-wait: {_MASKS} \]"),
     ("connected", "missing", "no_wait")),
)
_MASK_ORDER = ("all", "connected", "no_wait", "missing", "no_nodegroup")
"""The five bitmasks of a StartReport, in the order of its words."""


def _start_report(text: str) -> tuple[int, ...] | None:
    for kind, pattern, names in _START_REPORTS:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        got = dict(zip(names, m.groups()))
        time = _int(got.pop("time", None)) if "time" in names else MASK32
        masks = []
        for name in _MASK_ORDER:
            words = _nodes(got.get(name, ""))
            if words is None:
                return None
            masks.extend(words)
        return (kind, time, NODE_BITMASK_WORDS, *masks)
    return None


def _stop_forced(m: re.Match[str]) -> tuple[int, ...]:
    action = 0
    if m.group(1):
        action = 1 | (2 if "no start" in m.group(1) else 0) | (4 if "initial" in m.group(1)
                                                                else 0)
    sphase = _int(m.group(2)) if m.group(2) else 255
    return (action, _int(m.group(3)), _int(m.group(4)), sphase, _int(m.group(5)))


def _memory(m: re.Match[str]) -> tuple[int, ...]:
    gth = {"is": 0, "increased to": 1, "decreased to": MASK32}[m.group(2)]
    block = DBTUP if m.group(1) == "Data" else DBACC
    return (gth, _int(m.group(5)) * 1024, _int(m.group(4)), _int(m.group(6)), block)


def _redo(m: re.Match[str]) -> tuple[int, ...]:
    return tuple(_int(m.group(i)) for i in range(1, 5))


REFERENCED = frozenset({71, 72})
"""Types whose first word is the reporting DBLQH's block reference, which their text leaves
out (EventLogger.cpp ``getTextLogFileInitStatus``): the line's node, and no LDM instance,
stand for it (every line of a node reads as one instance's)."""


Reader = Callable[[re.Match[str]], "tuple[int, ...] | None"]
_TYPED: tuple[tuple[int, re.Pattern[str], Reader], ...] = (
    (44, re.compile(rf"Node {_N} missed heartbeat {_N}"),
     lambda m: (_int(m.group(1)), _int(m.group(2)))),
    (45, re.compile(rf"Node {_N} declared dead due to missed heartbeat"),
     lambda m: (_int(m.group(1)),)),
    (6, re.compile(rf"Local checkpoint {_N} started\. Keep GCI = {_N} oldest restorable "
                   rf"GCI = {_N}"),
     lambda m: (_int(m.group(1)), _int(m.group(2)), _int(m.group(3)))),
    (7, re.compile(rf"Local checkpoint {_N} completed"), lambda m: (_int(m.group(1)),)),
    (13, re.compile(rf"Start phase {_N} completed (\(.*\))"),
     lambda m: (_int(m.group(1)), _START_TYPES[m.group(2)])
     if m.group(2) in _START_TYPES else None),
    (10, re.compile(r"Start initiated \((.*)\)"), lambda m: _version(m.group(1))),
    (11, re.compile(r"Started \((.*)\)"), lambda m: _version(m.group(1))),
    (STOP_FORCED, re.compile(rf"Forced node shutdown completed((?:, restarting)?(?:, no start)?"
                             rf"(?:, initial)?)\.(?: Occurred during startphase {_N}\.)?"
                             rf"(?: Initiated by signal {_N}\.)?(?: Caused by error {_N}: "
                             rf"'.*'\.)?(?: \(extra info {_N}\))?", re.DOTALL),
     _stop_forced),
    (71, re.compile(rf"Local redo log file initialization status: #Total files: {_N}, "
                    rf"Completed: {_N} #Total MBytes: {_N}, Completed: {_N}"), _redo),
    (71, re.compile(rf"Node {_N}: Log file initializtion completed"),
     lambda m: (0, 0, 0, 0)),
    (72, re.compile(rf"Local redo log file initialization completed: #Total files: {_N}, "
                    rf"Completed: {_N} #Total MBytes: {_N}, Completed: {_N}"), _redo),
    (50, re.compile(rf"(Data|Index) usage (is|increased to|decreased to) {_N}%\({_N} "
                    rf"{_N}K pages of total {_N}\)"), _memory),
    (69, re.compile(rf"Disconnecting node {_N} because it has exceeded MaxBufferedEpochs "
                    rf"\({_N} >= {_N}\), epoch {_N}/{_N}"),
     lambda m: (1, _int(m.group(1)), _int(m.group(5)), _int(m.group(4)), _int(m.group(2)),
                _int(m.group(3)))),
    (60, re.compile(r"(.*)", re.DOTALL), lambda m: _start_report(m.group(1))),
)
"""The event types read back from their text, with the reader of their words."""

_OTHER_WARNINGS = re.compile(r"Transporter to node |Disconnecting node |Forcing disconnect "
                             r"|Nodefailure while out of event buffer")
"""Texts of the WARNING types that are not WarningEvent (43, 69)."""


def as_listened(event_type: int, source: int, words: tuple[int, ...], at: float) -> Event:
    """The event a listener decodes from these signal words, received at ``at``: through
    its parsable wire form and the decoder."""
    parser = EventStreamParser()
    raw: RawEvent | None = None
    block = encode_parsable(event_type, source, words).decode(ENCODING)
    for line in block.split("\n"):
        item = parser.feed(line)
        if isinstance(item, RawEvent):
            raw = item
    assert raw is not None
    return decode_event(raw, at)


def event_from_text(source: int | None, text: str, severity: str | None, at: float) -> Event:
    """The event of one cluster-log line (``Node <source>: <text>``, logged at ``at``);
    a text line (type :data:`~ndbtop.mgm.events.decode.TEXT_LINE_TYPE`) when its type
    cannot be read back. A line of the management server's own (no source) is a text line
    of source 0."""
    if source is None:
        return decode_text_line(text, at)
    for event_type, pattern, read in _TYPED:
        m = pattern.fullmatch(text)
        words = read(m) if m is not None else None
        if words is None:
            continue
        if event_type in REFERENCED:
            words = ((DBLQH << 16) | (source & 0xFFFF), *words)
        event = as_listened(event_type, source, words, at)
        if event.text == text:
            return event
        if event_type in LOOSE and not event.malformed:
            return replace(event, text=text)
    if severity == "WARNING" and not _OTHER_WARNINGS.match(text):
        return replace(as_listened(WARNING_EVENT, source, pack_string(text), at), text=text)
    if severity == "INFO" and _INFO_TEXTS.match(text):
        return replace(as_listened(INFO_EVENT, source, pack_string(text), at), text=text)
    return decode_text_line(f"Node {source}: {text}", at)
