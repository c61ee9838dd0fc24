"""Typed events from what a ``listen event`` socket delivers.

:func:`decode_event` turns a parsable block (:class:`~ndbtop.mgm.wire.RawEvent`)
into an :class:`Event` and never raises: an unknown type is kept with its raw
body, and a missing key or a value that is not a number marks the event
``malformed`` while it still gets a text. Values are 32-bit words
(``& 0xFFFFFFFF``) whatever sign the server's ``%d`` gave them.

The signal words are rebuilt from the body: word ``i`` comes from the key that
prints word ``i``; a word no key prints (FIND_NEIGHBOURS word 2, for example)
is 0, so texts that need such words differ from the server's own cluster log.

Every event passes one check here, wherever it is then used
(:func:`ndbtop.mgm.events.admit.refusal`): an event that fails is ``refused`` (and
``malformed``: its figures are not data) and consumers leave it out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.admit import refusal
from ndbtop.mgm.events.catalogue import (
    CATALOGUE,
    START_TYPE_NAMES,
    EventSpec,
    EventType,
    StartType,
)
from ndbtop.mgm.events.event import Event
from ndbtop.mgm.events.text import MASK32, event_text, ref_to_node, to_int32, unknown_text
from ndbtop.mgm.nodeids import node_id_problem
from ndbtop.mgm.wire import RawEvent

UNKNOWN_NAME = "Unknown"
"""``Event.name`` of a type the catalogue does not know."""

TEXT_LINE_NAME = "Text"
"""``Event.name`` of an event read from a text-mode listener line."""

TEXT_LINE_TYPE = -1
"""``Event.type`` of a text-mode line (``NDB_LE_ILLEGAL_TYPE``): the line carries no type."""

_NUMBER = re.compile(r"[+-]?[0-9]{1,20}")
_TEXT_LINE = re.compile(r"Node ([0-9]{1,10}): (.*)", re.DOTALL)




def _parse_value(text: str) -> int | None:
    """A ``%d``/``%u`` printed 32-bit value, masked to a word; None if it is not one."""
    t = text.strip()
    if not _NUMBER.fullmatch(t):
        return None
    value = int(t)
    if not -(1 << 31) <= value <= MASK32:
        return None
    return value & MASK32


def _parse_data(text: str) -> tuple[tuple[int, ...], bool]:
    """The words of a ``data=`` line and whether every token was a word."""
    words: list[int] = []
    ok = True
    for token in text.split():
        value = _parse_value(token)
        if value is None:
            ok = False
            value = 0
        words.append(value)
    return tuple(words), ok


def _first(body: tuple[tuple[str, str], ...], key: str) -> str | None:
    for k, v in body:
        if k == key:
            return v
    return None


def _fields_from_words(spec: EventSpec, words: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    out = []
    for key, index in spec.body:
        value = words[index - 1] if index <= len(words) else 0
        if key in spec.node_ref_keys:
            value = ref_to_node(value)
        out.append((key, value))
    return tuple(out)


def _decode_keyed(
    spec: EventSpec, body: tuple[tuple[str, str], ...]
) -> tuple[tuple[tuple[str, int], ...], tuple[int, ...], bool]:
    """Fields, rebuilt words and the malformed flag of a keyed body."""
    present = {k for k, _ in body}
    data = _first(body, "data")
    if data is not None and not present.intersection(spec.keys):
        # A server whose body table lacks this type sends the raw words instead.
        words, ok = _parse_data(data)
        return _fields_from_words(spec, words), words, not ok
    malformed = False
    fields: list[tuple[str, int]] = []
    slots: dict[int, int] = {}
    for key, index in spec.body:
        raw = _first(body, key)
        value = None if raw is None else _parse_value(raw)
        if value is None:
            malformed = True
            continue
        fields.append((key, value))
        slots.setdefault(index, value)
    width = max(index for _, index in spec.body)
    words = tuple(slots.get(i, 0) for i in range(1, width + 1))
    return tuple(fields), words, malformed


def decode_event(
    raw: RawEvent, received_at: float, data_nodes: Collection[int] | None = None
) -> Event:
    """Decode one parsable event block; never raises.

    ``data_nodes``: the configured data nodes, when the configuration is known (an event
    only a data node raises must come from one of them).
    """
    try:
        event = _decode(raw, received_at)
    except Exception:  # a last guard: a feed of events must survive any input
        event = Event(
            type=raw.type,
            name=UNKNOWN_NAME,
            category=None,
            severity=None,
            source_node=raw.source_nodeid,
            fields=(),
            body=tuple(raw.body),
            words=(),
            text=unknown_text(raw.type),
            known=False,
            malformed=True,
            received_at=received_at,
        )
    why = refusal(event, data_nodes)
    return event if why is None else replace(event, malformed=True, refused=why)


def _decode(raw: RawEvent, received_at: float) -> Event:
    body = tuple(raw.body)
    spec = CATALOGUE.get(raw.type)
    if spec is None:
        data = _first(body, "data")
        words, ok = _parse_data(data) if data is not None else ((), True)
        if data is not None:
            text = unknown_text(raw.type, words)
        else:
            pairs = " ".join(f"{k}={v}" for k, v in body)
            text = f"Unknown event type {raw.type}" + (f" [{pairs}]" if pairs else "")
        return Event(
            type=raw.type,
            name=UNKNOWN_NAME,
            category=None,
            severity=None,
            source_node=raw.source_nodeid,
            fields=(),
            body=body,
            words=words,
            text=text,
            known=False,
            malformed=not ok,
            received_at=received_at,
        )
    if spec.data_form:
        data = _first(body, "data")
        words, ok = _parse_data(data) if data is not None else ((), False)
        fields: tuple[tuple[str, int], ...] = ()
        malformed = not ok
    else:
        fields, words, malformed = _decode_keyed(spec, body)
    return Event(
        type=raw.type,
        name=spec.name,
        category=spec.category,
        severity=spec.severity,
        source_node=raw.source_nodeid,
        fields=fields,
        body=body,
        words=words,
        text=event_text(raw.type, words),
        known=True,
        malformed=malformed,
        received_at=received_at,
    )


def decode_text_line(line: str, received_at: float) -> Event:
    """An event from a text-mode listener line ``Node <id>: <text>``.

    The line carries no type, so the event is unknown (type
    :data:`TEXT_LINE_TYPE`) and keeps the text; a line of another form keeps the
    whole line as text, source node 0, and is marked malformed. A line from a node
    id beyond 1-255 is refused.
    """
    m = _TEXT_LINE.fullmatch(line)
    source, text, malformed = (int(m.group(1)), m.group(2), False) if m else (0, line, True)
    problem = node_id_problem(source) if m else None
    return Event(
        type=TEXT_LINE_TYPE,
        name=TEXT_LINE_NAME,
        category=None,
        severity=None,
        source_node=source,
        fields=(),
        body=(),
        words=(),
        text=text,
        known=False,
        malformed=malformed or problem is not None,
        received_at=received_at,
        refused=None if problem is None else f"a text line from {problem}",
    )


# Typed views of the events ndbtop relies on.


@dataclass(frozen=True, **SLOTS)
class StartPhase:
    """StartPhaseCompleted: the phase a node finished and the kind of start."""

    phase: int
    start_type: int

    @property
    def start_type_name(self) -> str:
        """``initial start``, ``node restart``, ...; ``unknown (<n>)`` otherwise."""
        return START_TYPE_NAMES.get(self.start_type, f"unknown ({self.start_type})")

    @property
    def known_start_type(self) -> StartType | None:
        """The start type as an enum, if it is one."""
        try:
            return StartType(self.start_type)
        except ValueError:
            return None


def start_phase(event: Event) -> StartPhase | None:
    """Phase and start type of a StartPhaseCompleted event (None for other types)."""
    if event.type != EventType.START_PHASE_COMPLETED:
        return None
    return StartPhase(event.word(1), event.word(2))


@dataclass(frozen=True, **SLOTS)
class LogFileInit:
    """Redo-log initialisation progress (LogFileInitStatus / LogFileInitCompStatus).

    ``node_id`` is the node of the block reference the event carries and ``instance``
    the rest of it (the LDM instance: each instance reports its own share).
    ``completed`` is true for LogFileInitCompStatus and for the
    ``Log file initializtion completed`` form (total files 0).
    """

    node_id: int
    total_files: int
    files_done: int
    total_mbytes: int
    mbytes_done: int
    completed: bool
    instance: int = 0

    @property
    def fraction(self) -> float | None:
        """Progress in 0..1 by megabytes (by files if no megabytes); None if unknown."""
        if self.total_mbytes:
            return min(1.0, self.mbytes_done / self.total_mbytes)
        if self.total_files:
            return min(1.0, self.files_done / self.total_files)
        return 1.0 if self.completed else None


def log_file_init(event: Event) -> LogFileInit | None:
    """Progress of a LogFileInitStatus (71) or LogFileInitCompStatus (72) event."""
    if event.type not in (EventType.LOG_FILE_INIT_STATUS, EventType.LOG_FILE_INIT_COMP_STATUS):
        return None
    w = event.word
    completed = event.type == EventType.LOG_FILE_INIT_COMP_STATUS or w(2) == 0
    return LogFileInit(ref_to_node(w(1)), w(2), w(3), w(4), w(5), completed, w(1) >> 16)


_STAT_WORDS: Mapping[int, tuple[str, ...]] = MappingProxyType(
    {
        EventType.TRANS_REPORT_COUNTERS: (
            "trans_count",
            "commit_count",
            "read_count",
            "simple_read_count",
            "write_count",
            "attrinfo_count",
            "conc_op_count",
            "abort_count",
            "scan_count",
            "range_scan_count",
            "local_read_count",
            "local_write_count",
        ),
        EventType.OPERATION_REPORT_COUNTERS: ("ops",),
        EventType.JOB_STATISTIC: ("mean_loop_count",),
        EventType.SEND_BYTES_STATISTIC: ("to_node", "mean_sent_bytes"),
        EventType.RECEIVE_BYTES_STATISTIC: ("from_node", "mean_received_bytes"),
        EventType.THREAD_CONFIG_LOOP: (
            "total_usec",
            "const",
            "exec",
            "extra_loops",
            "extra_time",
        ),
        EventType.MT_SIGNAL_STATISTICS: (
            "thread",
            "prioa_count",
            "prioa_bytes",
            "priob_count",
            "priob_bytes",
        ),
        EventType.MEMORY_USAGE: ("gth", "page_size_bytes", "pages_used", "pages_total", "block"),
    }
)
"""Names of the signal words of the statistics events, word 1 first."""

_TRANS_BASE_WORDS = 10
"""TransReportCounters words every form carries; the local read/write counts follow only
in the cluster log (signal length > 11), never in the parsable body."""


def statistics(event: Event) -> Mapping[str, int] | None:
    """Named values of a statistics event (35, 36, 39, 40, 41, 50, 68, 70); None otherwise.

    TransReportCounters includes ``local_read_count``/``local_write_count`` only
    when the words carry them. MemoryUsage ``gth`` is signed (-1: decreased).
    """
    names = _STAT_WORDS.get(event.type)
    if names is None:
        return None
    if event.type == EventType.TRANS_REPORT_COUNTERS and len(event.words) <= _TRANS_BASE_WORDS:
        names = names[:_TRANS_BASE_WORDS]
    values = {name: event.word(i) for i, name in enumerate(names, start=1)}
    if event.type == EventType.MEMORY_USAGE:
        values["gth"] = to_int32(values["gth"])
    return MappingProxyType(values)
