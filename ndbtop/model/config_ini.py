"""A config.ini read as ndb_mgmd reads it, and its differences from the configuration read.

Reading follows InitConfigFileParser and ConfigInfo (storage/ndb/src/mgmsrv): section and
parameter names are case-insensitive, ``[ndbd]``, ``[ndb_mgmd]`` and ``[mysqld]`` are aliases
of ``[DB]``, ``[MGM]`` and ``[API]``, a ``[<section> DEFAULT]`` section gives every later
section of its type the values it does not set, ``name=value`` or ``name: value``, numbers
are read by ``strtoll`` and take a k, K, M or G suffix, booleans are Y/N/true/false/1/0 (a
value a parameter cannot take is refused, as ndb_mgmd refuses the file). A node section
without NodeId gets the next free id after the last one given (``transformNode``).
Connection and computer sections are read but not compared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ndbtop.compat import SLOTS
from ndbtop.errors import UsageError
from ndbtop.mgm.nodeids import MAX_NODE_ID
from ndbtop.mgm.packed_config import API_NODE, DATA_NODE, MGM_NODE, SYSTEM, Value
from ndbtop.model.config_params import (
    BOOL,
    DERIVED,
    ENUM,
    INT,
    PARAMS,
    SECTION_ALIASES,
    SECTION_NAMES,
    Param,
    by_name,
)
from ndbtop.model.config_raw import NODE_ID, RawConfig, value_text

OTHER_SECTIONS = frozenset({"tcp", "shm", "sci", "computer"})
"""Sections ndb_mgmd knows that hold no node's parameters."""
NODE_KINDS = (MGM_NODE, DATA_NODE, API_NODE)
_NUMBER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(.*)", re.DOTALL)
_SHIFTS = {"k": 10, "K": 10, "M": 20, "G": 30}
_INT64_MAX = (1 << 63) - 1
_MOST_DIGITS = {10: len(str(_INT64_MAX)), 16: 16, 8: 21}
"""Digits (without leading zeros) of the largest value ``strtoll`` reads, per base."""
_BOOLS = {"y": 1, "yes": 1, "true": 1, "1": 1, "n": 0, "no": 0, "false": 0, "0": 0}


class ConfigIniError(UsageError):
    """A config.ini that cannot be read; the message names the file and line."""


@dataclass
class IniSection:
    """One section of a config.ini: its type, first line and values by lower-case name."""

    kind: int
    line: int
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Lower-case name: (value text, line)."""
    node_id: int = 0


def parse_ini(text: str, source: str) -> list[IniSection]:
    """The system and node sections of a config.ini, defaults applied and node ids given."""
    sections: list[IniSection] = []
    defaults: dict[int, dict[str, tuple[str, int]]] = {}
    current: dict[str, tuple[str, int]] | None = None
    for number, raw_line in enumerate(text.splitlines(), 1):
        line = raw_line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise ConfigIniError(f"{source}:{number}: a section header must end with ]")
            current = _open_section(line[1:-1].strip(), number, source, sections, defaults)
            continue
        name, sep, value = _split(line)
        if not sep or not name:
            raise ConfigIniError(f"{source}:{number}: not a name=value line or a section")
        if current is None:
            raise ConfigIniError(f"{source}:{number}: {name} before any section")
        current[name.lower()] = (value, number)
    for section in sections:
        for name, value in defaults.get(section.kind, {}).items():
            section.values.setdefault(name, value)
    _node_ids(sections, source)
    _check_values(sections, source)
    return sections


_KIND_WORDS = {INT: "a whole number, with k, K, M or G", BOOL: "Y, N, true, false, 1 or 0"}


def _check_values(sections: list[IniSection], source: str) -> None:
    """Refuse a value the parameter cannot take, as ndb_mgmd refuses the file
    (InitConfigFileParser::storeNameValuePair: an illegal integer or boolean value)."""
    for section in sections:
        names = by_name(section.kind)
        for name, (text, number) in section.values.items():
            found = names.get(name)
            if found is None or normalised(found[1], text) is not None:
                continue
            param = found[1]
            wanted = _KIND_WORDS.get(param.kind) or "one of " + ", ".join(param.values)
            raise ConfigIniError(f"{source}:{number}: {param.name}={text}: not a value "
                                 f"{param.name} takes ({wanted})")


def _split(line: str) -> tuple[str, str, str]:
    cut = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
    if cut < 0:
        return line, "", ""
    return line[:cut].strip(), line[cut], line[cut + 1:].strip()


def _open_section(header: str, number: int, source: str, sections: list[IniSection],
                  defaults: dict[int, dict[str, tuple[str, int]]]
                  ) -> dict[str, tuple[str, int]]:
    words = header.lower().split()
    is_default = len(words) == 2 and words[1] == "default"
    if not words or len(words) > 2 or (len(words) == 2 and not is_default):
        raise ConfigIniError(f"{source}:{number}: [{header}] is not a section")
    name = words[0]
    if name in OTHER_SECTIONS:
        return {}
    kind = SECTION_ALIASES.get(name)
    if kind is None:
        raise ConfigIniError(f"{source}:{number}: [{header}] is not a section ndb_mgmd knows")
    if is_default:
        return defaults.setdefault(kind, {})
    section = IniSection(kind, number)
    sections.append(section)
    return section.values


def _node_ids(sections: list[IniSection], source: str) -> None:
    taken: set[int] = set()
    next_id = 1
    for s in sections:
        if s.kind == SYSTEM:
            continue
        given = s.values.get("nodeid") or s.values.get("id")
        if given is not None:
            node_id = _number(given[0])
            if node_id is None or not 1 <= node_id <= 255:
                raise ConfigIniError(f"{source}:{given[1]}: NodeId {given[0]!r} is not a "
                                     f"node id (1-255)")
            if node_id in taken:
                raise ConfigIniError(f"{source}:{given[1]}: NodeId {node_id} is used twice")
        else:
            node_id = next_id
            while node_id in taken:
                node_id += 1
            if node_id > MAX_NODE_ID:
                # ConfigInfo.cpp transformNode: "too many nodes configured".
                raise ConfigIniError(f"{source}:{s.line}: too many nodes configured: no node "
                                     f"id left for this section (1-{MAX_NODE_ID})")
        taken.add(node_id)
        next_id = node_id + 1
        s.node_id = node_id


def _number(text: str) -> int | None:
    """``InitConfigFileParser::convertStringToUint64``: ``strtoll`` with base 0 (``0x``
    hex, a leading 0 octal), then nothing, or a rest whose first character is k, K, M or
    G (the rest after it is not looked at)."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    sign, digits, rest = match.groups()
    base = 16 if digits[:2].lower() == "0x" else 8 if digits[0] == "0" else 10
    # strtoll stops at its range (ERANGE), and so does reading here: a value of thousands
    # of digits is out of range, never converted.
    if len(digits.lstrip("0xX")) > _MOST_DIGITS[base]:
        return None
    value = int(digits, base)
    if value > _INT64_MAX:
        return None
    shift = 0
    if rest:
        first = rest.strip()[:1]
        if first not in _SHIFTS:
            return None
        shift = _SHIFTS[first]
    return (-value if sign == "-" else value) << shift


def normalised(param: Param, text: str) -> Value | None:
    """A config.ini value as the server would hold it, or None if it is not one."""
    if param.kind == INT:
        return _number(text)
    if param.kind == BOOL:
        return _BOOLS.get(text.strip().lower())
    if param.kind == ENUM:
        names = [v.lower() for v in param.values]
        return names.index(text.strip().lower()) if text.strip().lower() in names else None
    return text


@dataclass(frozen=True, **SLOTS)
class Difference:
    """One parameter of one section whose two values differ (None: not there)."""

    kind: int
    node_id: int
    name: str
    left: str | None
    right: str | None


def diff_ini(sections: list[IniSection], raw: RawConfig) -> tuple[list[Difference], list[str]]:
    """The differences from a config.ini (left) to the configuration read (right), and the
    names of the file's parameters ndbtop cannot compare."""
    out: list[Difference] = []
    unknown: list[str] = []
    ini = {(s.kind, s.node_id): s for s in sections if s.kind != SYSTEM}
    read = {(s.kind, s.node_id): s for s in raw.sections}
    for kind, node_id in sorted(set(ini) | set(read), key=lambda k: (k[1], k[0])):
        left, right = ini.get((kind, node_id)), read.get((kind, node_id))
        names = by_name(kind)
        if left is not None:
            unknown += [f"[{SECTION_NAMES[kind]}] NodeId={node_id} {name}"
                        for name in left.values if name not in names and name != "id"]
        if left is None or right is None:
            out.append(Difference(kind, node_id, "", None if left is None else "section",
                                  None if right is None else "section"))
            continue
        for key, param in PARAMS[kind].items():
            if key == NODE_ID or (kind, key) in DERIVED:
                continue
            given = left.values.get(param.name.lower())
            if given is None and param.default is None:
                continue
            expected = param.default if given is None else normalised(param, given[0])
            actual = right.values.get(key, param.default)
            if actual is None or expected == actual:
                continue
            out.append(Difference(kind, node_id, param.name,
                                  given[0] if given is not None else None,
                                  value_text(param, actual)))
    return out, unknown


def diff_lines(diffs: Iterable[Difference], left_name: str, right_name: str) -> list[str]:
    """Differences as a unified diff of config.ini lines, one hunk per section."""
    lines = [f"--- {left_name}", f"+++ {right_name}"]
    last: tuple[int, int] | None = None
    for d in diffs:
        head = f"[{SECTION_NAMES[d.kind]}] NodeId={d.node_id}"
        if not d.name:
            sign = "-" if d.right is None else "+"
            lines.append(f"{sign}{head}")
            continue
        if (d.kind, d.node_id) != last:
            lines.append(f"@@ {head} @@")
            last = (d.kind, d.node_id)
        lines.append(f"-{d.name}={d.left}" if d.left is not None
                     else f"-# {d.name} not set: ConfigInfo's default")
        lines.append(f"+{d.name}={d.right}" if d.right is not None else f"+# {d.name} not set")
    return lines


def diff_running(raw: RawConfig, running: Iterable[tuple[int, int, str]]
                 ) -> list[Difference]:
    """The data nodes' parameters whose value in ``ndbinfo.config_values`` (node, parameter
    id, value as text) differs from the configuration read: left the configuration read,
    right what the node runs with."""
    out: list[Difference] = []
    for node_id, key, text in sorted(running):
        section = raw.section(node_id)
        if section is None or section.kind != DATA_NODE or key not in section.values:
            continue
        param = PARAMS[DATA_NODE].get(key)
        value = section.values[key]
        runs = normalised(param, text) if param is not None else text.strip()
        if runs == value or (param is None and text.strip() == str(value)):
            continue
        name = param.name if param is not None else f"#{key}"
        shown = value_text(param, runs) if runs is not None else text
        out.append(Difference(DATA_NODE, node_id, name, value_text(param, value), shown))
    return out
