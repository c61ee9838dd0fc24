"""Counters of the load clients put on the simulated SQL node and its cluster.

Every reference to an ``ndbinfo`` table in a SELECT is one scan of that table
(a real SQL node scans each data node for it), so ``TableLoad.queries`` counts
references and ``TableLoad.rows`` the rows those scans returned.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ndbtop.compat import SLOTS


@dataclass(frozen=True, **SLOTS)
class TableLoad:
    """Scans of one table and the rows they returned."""

    queries: int = 0
    rows: int = 0


@dataclass(frozen=True, **SLOTS)
class SqlNodeStats:
    """A snapshot of the SQL node's counters since it started."""

    connections: int = 0
    statements: int = 0
    errors: int = 0
    rows_sent: int = 0
    tables: Mapping[str, TableLoad] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def table_queries(self) -> int:
        """Table scans of every table together."""
        return sum(t.queries for t in self.tables.values())

    @property
    def rows_scanned(self) -> int:
        """Rows read from every table together."""
        return sum(t.rows for t in self.tables.values())

    def since(self, earlier: SqlNodeStats) -> SqlNodeStats:
        """The counts between ``earlier`` and this snapshot."""
        tables = {}
        for name, load in self.tables.items():
            before = earlier.tables.get(name, TableLoad())
            delta = TableLoad(load.queries - before.queries, load.rows - before.rows)
            if delta != TableLoad():
                tables[name] = delta
        return SqlNodeStats(
            connections=self.connections - earlier.connections,
            statements=self.statements - earlier.statements,
            errors=self.errors - earlier.errors,
            rows_sent=self.rows_sent - earlier.rows_sent,
            tables=MappingProxyType(tables),
        )


class StatsRecorder:
    """The live counters; :meth:`snapshot` hands out immutable copies."""

    def __init__(self) -> None:
        self.connections = 0
        self.statements = 0
        self.errors = 0
        self.rows_sent = 0
        self._tables: dict[str, list[int]] = {}

    def scanned(self, table: str, rows: int) -> None:
        """Count one scan of ``table`` returning ``rows`` rows."""
        counts = self._tables.setdefault(table, [0, 0])
        counts[0] += 1
        counts[1] += rows

    def snapshot(self) -> SqlNodeStats:
        """The counters as they are now."""
        return SqlNodeStats(
            connections=self.connections,
            statements=self.statements,
            errors=self.errors,
            rows_sent=self.rows_sent,
            tables=MappingProxyType(
                {name: TableLoad(q, r) for name, (q, r) in sorted(self._tables.items())}
            ),
        )
