"""The ``ndbinfo`` schema the simulated SQL node serves.

It is read from ``ndbinfo-schema.json`` (shipped in this package), in the format
``{name: {"columns": [[column, sql_type], ...], "since": "x.y", "kind": ...}}``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType

from ndbtop.compat import SLOTS
from ndbtop.sim.sqlnode.sqltypes import SqlType, parse_column_type

DATABASE = "ndbinfo"
"""``@@ndbinfo_database``."""

TABLE_PREFIX = "ndb$"
"""``@@ndbinfo_table_prefix``: base tables carry it and are hidden from ``SHOW TABLES``."""

LOOKUP_TABLES = frozenset(
    {
        "blocks",
        "config_params",
        "dict_obj_types",
        "error_messages",
        "ndb$dbtc_apiconnect_state",
        "ndb$dblqh_tcconnect_state",
    }
)
"""Tables the SQL node fills itself: they answer even when no data node is up."""

UNPREFIXED_BASE_TABLES = frozenset(
    {"blobs", "dictionary_columns", "dictionary_tables", "events", "foreign_keys", "index_columns"}
)
"""Virtual base tables without the ``ndb$`` prefix (ndbinfo.md §1.1); every other
unprefixed name is a view."""


@dataclass(frozen=True, **SLOTS)
class Column:
    """One column: its name, its type as declared in the schema, and that type parsed."""

    name: str
    declared: str
    type: SqlType


@dataclass(frozen=True, **SLOTS)
class Table:
    """One ``ndbinfo`` table or view."""

    name: str
    columns: tuple[Column, ...]
    since: tuple[int, int]
    kind: str
    _index: Mapping[str, Column] = field(
        default_factory=lambda: MappingProxyType({}), repr=False, compare=False
    )

    @property
    def is_view(self) -> bool:
        """True for a view; privilege errors differ between views and base tables."""
        return not (self.name.startswith(TABLE_PREFIX) or self.name in UNPREFIXED_BASE_TABLES)

    @property
    def is_hidden(self) -> bool:
        """True for the ``ndb$`` tables ``SHOW TABLES`` leaves out by default."""
        return self.name.startswith(TABLE_PREFIX)

    @property
    def reads_data_nodes(self) -> bool:
        """False for the lookup tables the SQL node answers on its own."""
        return self.name not in LOOKUP_TABLES

    def exists_in(self, ndb_version: int) -> bool:
        """Whether the table exists in a server of this encoded version."""
        return ((ndb_version >> 16) & 0xFF, (ndb_version >> 8) & 0xFF) >= self.since

    def column(self, name: str) -> Column | None:
        """The column called ``name``; column names are not case sensitive."""
        return self._index.get(name.lower())


def _since(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def _table(name: str, entry: Mapping[str, object]) -> Table:
    raw_columns = entry["columns"]
    assert isinstance(raw_columns, list)
    columns = tuple(Column(c, t, parse_column_type(t)) for c, t in raw_columns)
    return Table(
        name=name,
        columns=columns,
        since=_since(str(entry["since"])),
        kind=str(entry.get("kind", "")),
        _index=MappingProxyType({c.name.lower(): c for c in columns}),
    )


@functools.cache
def all_tables() -> Mapping[str, Table]:
    """Every table of the schema file, whatever its version."""
    text = resources.files(__package__).joinpath("ndbinfo-schema.json").read_text("utf-8")
    data = json.loads(text)
    return MappingProxyType({name: _table(name, entry) for name, entry in sorted(data.items())})


@functools.cache
def tables_for_version(ndb_version: int) -> Mapping[str, Table]:
    """The tables that exist in a server of this encoded NDB version."""
    return MappingProxyType(
        {name: t for name, t in all_tables().items() if t.exists_in(ndb_version)}
    )
