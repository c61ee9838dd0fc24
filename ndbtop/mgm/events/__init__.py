"""The NDB cluster event catalogue: types, texts, decoding, encoding and listen filters.

Signal-word convention used throughout: ``words[0]`` is the event's signal
word 1 (``theData[1]``); the header word 0, ``(node << 16) | type``, is never
part of ``words``.
"""

from ndbtop.mgm.events.catalogue import (
    BY_NAME,
    CATALOGUE,
    CLUSTER_LOG_DEFAULT_LEVELS,
    START_TYPE_NAMES,
    START_TYPE_TEXTS,
    Category,
    EventSpec,
    EventType,
    Severity,
    StartType,
)
from ndbtop.mgm.events.decode import (
    Event,
    LogFileInit,
    StartPhase,
    decode_event,
    decode_text_line,
    log_file_init,
    start_phase,
    statistics,
)
from ndbtop.mgm.events.encode import encode_parsable, encode_text, parsable_body
from ndbtop.mgm.events.filters import (
    FilterRejected,
    ListenFilter,
    event_passes,
    format_filter,
    parse_filter,
)
from ndbtop.mgm.events.text import cluster_log_line, event_text

__all__ = [
    "BY_NAME",
    "CATALOGUE",
    "CLUSTER_LOG_DEFAULT_LEVELS",
    "START_TYPE_NAMES",
    "START_TYPE_TEXTS",
    "Category",
    "Event",
    "EventSpec",
    "EventType",
    "FilterRejected",
    "ListenFilter",
    "LogFileInit",
    "Severity",
    "StartPhase",
    "StartType",
    "cluster_log_line",
    "decode_event",
    "decode_text_line",
    "encode_parsable",
    "encode_text",
    "event_passes",
    "event_text",
    "format_filter",
    "log_file_init",
    "parsable_body",
    "parse_filter",
    "start_phase",
    "statistics",
]
