"""Turning snapshots and events into JSON-ready values and back, losslessly.

Frozen dataclasses (and the few named tuples registered here) become objects
tagged with their class name, enums are tagged with theirs; every other
sequence comes back as a tuple (snapshots hold only tuples), a frozenset as a
frozenset. Only the classes registered here can be decoded: a recording is
data, never a way to build arbitrary objects.

A recording is untrusted: every field must hold the type it declares, and numbers
the ranges of :mod:`ndbtop.textnum` (whole numbers within ``MAX_WHOLE``, floats
finite within ``MAX_FLOAT``, times, the fields in :data:`TIMES`, within 0 and
``MAX_TIME``).
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any

from ndbtop.compat import UNION_TYPES, type_hints, zip_strict
from ndbtop.host.rates import CpuPercent, DiskRates, ThreadRates
from ndbtop.host.samples import DiskCounters
from ndbtop.host.view import HostView
from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.catalogue import Category, Severity
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.status import NodeStatus
from ndbtop.model import ndbinfo as ni
from ndbtop.model.backups import Backup, NodeProgress
from ndbtop.model.config import ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.model.derive import ActivityRate, HitRatio, IoLagRate, LinkRate, RedoFillRate
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.findings import Evidence, Finding, FindingSeverity, Threshold
from ndbtop.model.history import PastStart
from ndbtop.model.hosts import (
    DiskFree,
    ErrorLogEntry,
    HostReport,
    NodeOnHost,
    NodeStart,
    RedoMeasure,
)
from ndbtop.model.locks import LockRow, Transaction
from ndbtop.model.membership_rows import MembershipRow
from ndbtop.model.phases import PhaseRecord, RedoProgress, StartTimeline
from ndbtop.model.replication import (
    BinlogIncident,
    Channel,
    Endpoint,
    Lag,
    ReplicaThreads,
    ReplicationState,
)
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.model.statistics import NodeStatistics
from ndbtop.model.table_memory import TableMemory, TableNodeMemory
from ndbtop.textnum import MAX_FLOAT, MAX_TIME, MAX_WHOLE

_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        ClusterSnapshot,
        SourceStatus,
        ReplicationState,
        Endpoint,
        Channel,
        Lag,
        ReplicaThreads,
        BinlogIncident,
        NodeStatus,
        Event,
        StartTimeline,
        PhaseRecord,
        RedoProgress,
        NodeStatistics,
        HitRatio,
        LinkRate,
        IoLagRate,
        RedoFillRate,
        HostView,
        DiskRates,
        DiskCounters,
        CpuPercent,
        ThreadRates,
        ni.NdbinfoSample,
        ni.NdbinfoNode,
        ni.DiskPageBuffer,
        ni.DiskWriteSpeed,
        ni.DiskStat,
        ni.LogSpace,
        ni.MemoryUse,
        ni.RestartInfo,
        ni.NodeLinks,
        ni.NodeActivity,
        ni.ApiProcess,
        MembershipRow,
        TableMemory,
        TableNodeMemory,
        Transaction,
        LockRow,
        ActivityRate,
        PastStart,
        HostReport,
        RedoMeasure,
        NodeStart,
        ErrorLogEntry,
        NodeOnHost,
        DiskFree,
        ClusterConfig,
        NodeConfig,
        DataNodeConfig,
        Backup,
        NodeProgress,
        Finding,
        Evidence,
        Threshold,
        Eta,
        EtaMissing,
        LogLine,
    )
}
_NAMED_TUPLES: frozenset[type] = frozenset({ni.ThreadCpu})
"""Values that are named tuples (built in bulk at every refresh), recorded as dataclasses are."""
_CLASSES.update({cls.__name__: cls for cls in _NAMED_TUPLES})
_ENUMS: dict[str, type[Enum]] = {e.__name__: e for e in (SourceState, Category, Severity,
                                                          FindingSeverity)}
TIMES = frozenset({"taken_at", "wall", "read_at", "last_ok", "retry_at", "received_at",
                   "began_at", "current_since", "finished_at", "at", "counters_at",
                   "started_at", "ended_at", "monotonic", "seen_at"})
"""The fields that hold a time (wall or monotonic): shown as dates and clocks."""


def is_number(value: Any, low: float = -MAX_FLOAT, high: float = MAX_FLOAT) -> bool:
    """Whether ``value`` is a number a recording may hold where a float belongs: an int
    or a finite float within ``low..high`` (NaN is within no range)."""
    kind = type(value)
    return (kind is float or kind is int) and low <= value <= high  # type: ignore[no-any-return]


def encode(value: Any) -> Any:
    """A JSON-ready form of ``value``."""
    if isinstance(value, Enum):
        return {"@e": type(value).__name__, "v": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if name not in _CLASSES:
            raise TypeError(f"cannot record a {name}")
        out: dict[str, Any] = {"@": name}
        for f in dataclasses.fields(value):
            out[f.name] = encode(getattr(value, f.name))
        return out
    if type(value) in _NAMED_TUPLES:
        record: dict[str, Any] = {"@": type(value).__name__}
        for name, item in zip_strict(field_names(type(value)), value):
            record[name] = encode(item)
        return record
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return {"@f": sorted(encode(v) for v in value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot record a {type(value).__name__}")


def decode(value: Any) -> Any:
    """The value :func:`encode` was given (sequences as tuples)."""
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if isinstance(value, dict):
        if "@f" in value:
            return frozenset(decode(v) for v in value["@f"])
        if "@e" in value:
            enum = _ENUMS.get(value["@e"])
            if enum is None:
                raise ValueError(f"unknown enum {value['@e']!r} in recording")
            return enum(value["v"])
        cls = _CLASSES.get(value.get("@", ""))
        if cls is None:
            raise ValueError(f"unknown record type {value.get('@')!r}")
        names = set(field_names(cls))
        fields = {k: decode(v) for k, v in value.items() if k in names}
        checks = _checks(cls)
        for name, item in fields.items():
            if not checks.get(name, _any)(item):
                shown = (repr(item) if type(item) in (int, float) and len(repr(item)) < 30
                         else type(item).__name__)
                raise ValueError(f"{cls.__name__}.{name} holds {shown}")
        return cls(**fields)
    return value


@functools.cache
def _checks(cls: type) -> dict[str, Callable[[Any], bool]]:
    """Per field of ``cls``, whether a decoded value is of the type the field declares:
    a recording is untrusted, and a number where text belongs (or the reverse) must not
    reach the views."""
    return {name: _check(hint, name in TIMES)
            for name, hint in type_hints(cls).items()}


def _any(value: Any) -> bool:
    return True


def _check(hint: Any, time: bool = False) -> Callable[[Any], bool]:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return _any
    if origin in UNION_TYPES:
        others = [a for a in args if a is not type(None)]
        if len(others) == 1 and len(args) == 2:
            one = _check(others[0], time)
            return lambda v: v is None or one(v)
        checks = [_check(a, time) for a in args]
        return lambda v: any(c(v) for c in checks)
    if hint is type(None):
        return lambda v: v is None
    if hint is float:
        if time:
            return lambda v: is_number(v, 0.0, MAX_TIME)
        return is_number
    if hint is int:
        return lambda v: type(v) is int and -MAX_WHOLE <= v <= MAX_WHOLE
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _check(args[0])
            return lambda v: type(v) is tuple and all(map(item, v))
        items = [_check(a) for a in args]
        return lambda v: (type(v) is tuple and len(v) == len(items)
                          and all(c(x) for c, x in zip_strict(items, v)))
    if origin is frozenset:
        item = _check(args[0])
        return lambda v: type(v) is frozenset and all(map(item, v))
    if isinstance(hint, type) and origin is None:
        return lambda v: isinstance(v, hint)
    return _any


def is_record(value: Any) -> bool:
    """Whether ``value`` is recorded field by field (a dataclass or a registered named
    tuple)."""
    return type(value) in _NAMED_TUPLES or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    )


def field_names(cls: type) -> tuple[str, ...]:
    """The fields a record of ``cls`` is written with, in order."""
    if cls in _NAMED_TUPLES:
        return cls._fields  # type: ignore[attr-defined, no-any-return]
    return tuple(f.name for f in dataclasses.fields(cls))
