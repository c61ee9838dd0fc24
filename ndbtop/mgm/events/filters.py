"""``listen event`` filters: parsed exactly as ``MgmApiSession::listen_event`` does.

The server trims the spec (spaces and tabs), splits it at every space and
comma, and splits each entry at every ``=`` and ``:``. Splitting keeps empty
pieces, so two separators in a row (``"STARTUP=1  BACKUP=2"``, ``"a=1, b=2"``)
make an empty entry that is rejected. An entry must have exactly two parts: a
category and a level. The category is a name (trimmed, upper-cased;
``WARNING`` has none) or, failing that, ``atoi`` of it within 250..262; the
level is ``atoi`` of the untrimmed second part within 0..15. A repeated
category keeps the last level. Categories not named stay at level 0.

Because an empty spec still splits into one (empty) entry, the server's
``Empty filter specification`` message is never produced; an empty spec gets
``Invalid filter specification: >< >< 1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import MAX_LOGLEVEL, MIN_LOGLEVEL, Category, EventSpec

_BY_NAME = {c.filter_name: c for c in Category if c.filter_name is not None}
_C_SPACE = " \t\n\v\f\r"
_LONG_MAX = (1 << 63) - 1
_LONG_MIN = -(1 << 63)


def c_atoi(text: str) -> int:
    """``atoi`` as glibc computes it (``(int)strtol``): leading space, sign, digits; else 0."""
    i = 0
    while i < len(text) and text[i] in _C_SPACE:
        i += 1
    sign = 1
    if i < len(text) and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    start = i
    while i < len(text) and "0" <= text[i] <= "9":
        i += 1
    # strtol saturates: more digits than a long holds give its bound.
    value = sign * (int(text[start:i]) if i - start <= 20 else _LONG_MAX + 1) if i > start else 0
    value = max(_LONG_MIN, min(_LONG_MAX, value))
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _c_split(text: str, separators: str) -> list[str]:
    """``BaseString::split``: cut at every separator, keeping empty pieces."""
    pieces = []
    start = 0
    for i, ch in enumerate(text):
        if ch in separators:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def _ascii_upper(text: str) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in text)


@dataclass(frozen=True, **SLOTS)
class ListenFilter:
    """An accepted filter: the level of every category (0 for those not named)."""

    levels: tuple[tuple[Category, int], ...]

    def level(self, category: int) -> int:
        """The level set for ``category`` (a :class:`Category` or its number)."""
        for cat, level in self.levels:
            if cat == category:
                return level
        return 0

    def as_dict(self) -> dict[Category, int]:
        """The levels as a dict over all categories."""
        return dict(self.levels)


@dataclass(frozen=True, **SLOTS)
class FilterRejected:
    """A refused filter: ``message`` is the server's ``msg:`` text, verbatim."""

    message: str


def parse_filter(spec: str) -> ListenFilter | FilterRejected:
    """Parse a ``filter:`` value as the server does; see the module docstring."""
    # The server works on C strings: anything after a NUL is not there.
    param = spec.split("\x00", 1)[0].strip(" \t")
    levels = dict.fromkeys(Category, 0)
    for piece in _c_split(param, " ,"):
        entry = piece.strip(" \t")
        parts = _c_split(entry, "=:")
        if len(parts) != 2:
            return FilterRejected(f"Invalid filter specification: >{param}< >{entry}< {len(parts)}")
        name = _ascii_upper(parts[0].strip(" \t"))
        category = _BY_NAME.get(name)
        if category is None:
            number = c_atoi(name)
            if not Category.STARTUP <= number <= Category.SCHEMA:
                return FilterRejected(f"Unknown category: >{name}<")
            category = Category(number)
        level = c_atoi(parts[1])
        if not MIN_LOGLEVEL <= level <= MAX_LOGLEVEL:
            return FilterRejected(f"Invalid level: >{parts[1]}<")
        levels[category] = level
    return ListenFilter(tuple(levels.items()))


def format_filter(levels: Mapping[int, int] | Iterable[tuple[int, int]]) -> str:
    """``250=7 252=15``: numeric ``<category>=<level>`` entries in the order given.

    mgmapi writes each entry as ``%d=%d `` (a trailing space the server's
    argument parser trims) and cannot send a level of 0, which ends its filter
    array; both are irrelevant to the server, so this keeps every entry.
    """
    pairs = levels.items() if isinstance(levels, Mapping) else levels
    return " ".join(f"{int(category)}={int(level)}" for category, level in pairs)


def event_passes(spec: EventSpec, levels: Mapping[int, int] | ListenFilter) -> bool:
    """Whether an event of ``spec`` reaches a listener with these levels.

    ``threshold <= level of its category``; a category without a level is 0,
    so threshold-0 events (LCPStoppedInCalcKeepGci) reach every listener.
    """
    if isinstance(levels, ListenFilter):
        level = levels.level(spec.category)
    else:
        level = levels.get(spec.category, 0)
    return spec.threshold <= level
