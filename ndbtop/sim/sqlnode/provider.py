"""Where the simulated SQL node gets its ``ndbinfo`` rows from.

The SQL node knows the ``ndbinfo`` schema, the SQL language and the MySQL wire
protocol; it knows nothing about the cluster. Everything it serves comes from a
:class:`NdbinfoProvider`, asked afresh for every statement, so a provider whose
state moves on between two queries is seen to move on, as a real cluster is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

Row = Sequence[object]
"""One row: values in the column order of ``ndbinfo-schema.json``."""


@runtime_checkable
class NdbinfoProvider(Protocol):
    """The cluster as the simulated SQL node sees it.

    Row contract for :meth:`rows`:

    * ``table`` is a key of ``ndbinfo-schema.json``: a view name (``nodes``,
      ``cpustat``, ``memoryusage``) or a hidden base table (``ndb$pools``).
      Names are lower case and compared exactly.
    * Rows are returned already shaped as the view presents them: ``nodes.status``
      is ``"STARTED"``, not ``3``; ``memoryusage`` is already summed per node and
      memory type. The SQL node does not derive views from base tables.
    * Values follow the column types: ``int`` for ``int``/``bigint`` columns
      (a signed 64-bit value at most), ``str`` for ``varchar``/``text``/``enum``
      columns, ``int``, ``float`` or :class:`decimal.Decimal` for ``decimal``
      columns, ``None`` for SQL NULL.
    * Rows of data nodes that are down are simply left out, as a real scan does.
    * A table the provider does not simulate yields ``[]``. For the static
      lookup tables (``blocks``, ``dict_obj_types``, ``config_params``,
      ``error_messages`` and the two ``ndb$...state`` tables) ``[]`` means "use
      the SQL node's built-in rows"; any other answer replaces them.
    """

    @property
    def ndb_version(self) -> int:
        """NDB version of the SQL node, ``(major << 16) | (minor << 8) | build``.

        It is ``@@ndbinfo_version``, gives ``@@version`` its number and decides
        which tables exist: a table whose ``since`` is newer does not.
        """
        ...

    def alive_data_nodes(self) -> int:
        """How many data nodes are up; 0 makes data-node tables fail with error 157."""
        ...

    def rows(self, table: str) -> Sequence[Row]:
        """The current rows of ``table``; see the class documentation."""
        ...


class StaticProvider:
    """A provider with fixed contents, for tests and small demonstrations.

    ``tables`` maps schema table names to rows. ``alive`` may be changed at any
    time to simulate the loss of every data node.
    """

    def __init__(
        self,
        tables: Mapping[str, Sequence[Row]] | None = None,
        *,
        ndb_version: int = (8 << 16) | (4 << 8) | 3,
        alive: int = 2,
    ) -> None:
        self.tables: dict[str, Sequence[Row]] = dict(tables or {})
        self.alive = alive
        self._ndb_version = ndb_version

    @property
    def ndb_version(self) -> int:
        """The version given to the constructor (8.4.3 by default)."""
        return self._ndb_version

    def alive_data_nodes(self) -> int:
        """The current value of :attr:`alive`."""
        return self.alive

    def rows(self, table: str) -> Sequence[Row]:
        """The rows stored for ``table``, or ``[]``."""
        return self.tables.get(table, ())
