"""The whole configuration as the management server sent it, printed in config.ini form.

Every section holds every value the server keeps (a node's own entry, else its default
section's). Printed, a section names its node and the parameters whose value differs from
ConfigInfo's default (:mod:`ndbtop.model.config_params`); with ``every`` the defaults too. A
parameter id ndbtop cannot name is printed as a comment with its id, so that what is
printed stays a config.ini ndb_mgmd can read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.packed_config import API_NODE, DATA_NODE, MGM_NODE, SYSTEM, Value
from ndbtop.model.config_params import (
    BOOL,
    DERIVED,
    ENUM,
    INT,
    PARAMS,
    SECTION_NAMES,
    Param,
)

NODE_ID = 3
SECTION_ORDER = (MGM_NODE, DATA_NODE, API_NODE)
"""Sections are printed as a config.ini usually has them: management, data, then API nodes."""


@dataclass(frozen=True, **SLOTS)
class RawSection:
    """One node section: its type (:mod:`ndbtop.mgm.packed_config`), node id and values."""

    kind: int
    node_id: int
    values: dict[int, Value]


@dataclass(frozen=True, **SLOTS)
class RawConfig:
    """Every section of one generation, as decoded."""

    generation: int
    system: dict[int, Value]
    sections: tuple[RawSection, ...]

    def section(self, node_id: int) -> RawSection | None:
        """The section of one node, or None."""
        return next((s for s in self.sections if s.node_id == node_id), None)


def value_text(param: Param | None, value: Value) -> str:
    """A value as config.ini writes it: booleans as true/false, enums by name, sizes that
    are whole kilo-, mega- or gigabytes with their suffix (ndb_mgmd reads K, M and G)."""
    if isinstance(value, str):
        # A line break from the server must not start a line of its own in the file.
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    if param is None:
        return str(value)
    if param.kind == BOOL and value in (0, 1):
        return "true" if value else "false"
    if param.kind == ENUM and 0 <= value < len(param.values):
        return param.values[value]
    if param.kind == INT and value >= 1024:
        for suffix, unit in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
            if value % unit == 0:
                return f"{value // unit}{suffix}"
    return str(value)


def is_default(kind: int, key: int, values: dict[int, Value]) -> bool:
    """Whether a section's value of ``key`` is ConfigInfo's default (or, for a parameter
    whose default is another's value, that value)."""
    derived = DERIVED.get((kind, key))
    if derived is not None:
        return values.get(key) == values.get(derived)
    param = PARAMS.get(kind, {}).get(key)
    return param is not None and param.default is not None and values[key] == param.default


def section_lines(kind: int, node_id: int | None, values: dict[int, Value],
                  every: bool) -> list[str]:
    """One section in config.ini form."""
    params = PARAMS.get(kind, {})
    out = [f"[{SECTION_NAMES[kind]}]"]
    if node_id is not None:
        out.append(f"NodeId={node_id}")
    set_lines: list[str] = []
    default_lines: list[str] = []
    unknown: list[str] = []
    present = dict(values)
    if every:
        for key, param in params.items():
            if key not in present and param.default is not None:
                present[key] = param.default
    for key in sorted(present, key=lambda k: (k not in params, list(params).index(k)
                                              if k in params else k)):
        if key == NODE_ID and node_id is not None:
            continue
        param = params.get(key)
        if param is None:
            unknown.append(f"#{key}={value_text(None, present[key])}")
            continue
        line = f"{param.name}={value_text(param, present[key])}"
        (default_lines if is_default(kind, key, present) else set_lines).append(line)
    out += set_lines
    if every and default_lines:
        out.append("# at ConfigInfo's default:")
        out += default_lines
    if unknown:
        out.append("# parameter ids ndbtop cannot name (id=value):")
        out += unknown
    return out


def config_ini(raw: RawConfig, *, every: bool = False, header: Sequence[str] = ()) -> str:
    """The configuration in config.ini form, ``header`` lines as comments first."""
    lines = [f"# {h}" for h in header]
    if not every:
        lines.append("# parameters at ConfigInfo's default are left out (--all shows them)")
    lines += [*([""] if lines else []), *section_lines(SYSTEM, None, raw.system, every)]
    for kind in SECTION_ORDER:
        for section in raw.sections:
            if section.kind == kind:
                lines += ["", *section_lines(kind, section.node_id, section.values, every)]
    return "\n".join(lines) + "\n"
