"""Memory per table: ``ndbinfo.memory_per_fragment`` summed per table and data node on the
SQL node (the DataMemory each node has left is in :mod:`ndbtop.model.headroom`).

What is counted (the view's columns, ndbinfo.md §2.4):

* **allocated** bytes are what a table takes from DataMemory: ``fixed_elem_alloc_bytes``
  (the pages of its fixed-size row parts), ``var_elem_alloc_bytes`` (the pages of its
  variable-size parts) and ``hash_index_alloc_bytes`` (its primary key hash index). A
  fragment's free space inside those pages serves only that fragment, so it is still
  taken from every other table: :attr:`TableMemory.bytes` is the allocated sum.
* **in use** is allocated less the free bytes inside those pages
  (``fixed_elem_free_bytes``, ``var_elem_free_bytes``); the hash index has no free figure.
* A table's **parts** count towards it: its ordered and unique indexes and its BLOB part
  tables are objects of their own in NDB, whose ``parent_fq_name`` names the table
  (``sys/def/<id>/PRIMARY``, ``sys/def/<id>/ix$unique``, ``db/def/NDB$BLOB_<id>_<col>``:
  ndbinfo.md §2.8). An object without a parent is a table.
* **Fragments** are the table's own fragment replicas (one row per replica, so a fragment
  with two replicas is seen twice, on two nodes); its parts' fragments are not among them.
  The skew is the largest fragment replica against their mean: a table with a skew of 4
  has one fragment four times the average, and the nodes of that fragment fill first.
"""

from __future__ import annotations

from dataclasses import dataclass

TOP_TABLES = 50
"""The tables read (the largest by allocated bytes): the SQL node's LIMIT."""

READ_EVERY = 10.0
"""Seconds between two reads while something asks for the tables: they move slowly, and
each read scans a row per fragment replica of every table and index on every data node."""


@dataclass(frozen=True)
class TableNodeMemory:
    """One table (with its parts) on one data node: sums over its fragment replicas there."""

    node_id: int
    fixed_alloc: int
    fixed_free: int
    var_alloc: int
    var_free: int
    hash_alloc: int
    fragments: tuple[tuple[int, int], ...] = ()
    """(fragment_num, allocated bytes) of each of the table's own fragment replicas here."""

    @property
    def bytes(self) -> int:
        """Allocated: fixed + variable + hash index."""
        return self.fixed_alloc + self.var_alloc + self.hash_alloc

    @property
    def in_use(self) -> int:
        """Allocated less the free bytes inside the fixed and variable pages."""
        return (max(self.fixed_alloc - self.fixed_free, 0)
                + max(self.var_alloc - self.var_free, 0) + self.hash_alloc)

    @property
    def own_bytes(self) -> int:
        """Allocated in the table's own fragment replicas here (its parts left out)."""
        return sum(size for _, size in self.fragments)


@dataclass(frozen=True)
class TableMemory:
    """A table's memory on every data node that holds a fragment replica of it."""

    fq_name: str
    """``db/def/table`` as NDB names it (or a part's own name when it has no parent)."""
    nodes: tuple[TableNodeMemory, ...]

    @property
    def schema(self) -> str:
        """The database: the name before the first ``/``."""
        return self.fq_name.split("/", 1)[0] if "/" in self.fq_name else ""

    @property
    def table(self) -> str:
        """The table: the name after ``db/def/`` (the whole name if it has another form)."""
        parts = self.fq_name.split("/", 2)
        return parts[2] if len(parts) == 3 else self.fq_name

    @property
    def sql_name(self) -> str:
        """``db.table`` as SQL names it (``fq_name`` itself when it has another form)."""
        parts = self.fq_name.split("/")
        return f"{parts[0]}.{parts[2]}" if len(parts) == 3 and parts[1] == "def" \
            else self.fq_name

    @property
    def bytes(self) -> int:
        """Allocated bytes over every node."""
        return sum(n.bytes for n in self.nodes)

    @property
    def own_bytes(self) -> int:
        """Allocated in the table's own fragment replicas over every node: :attr:`bytes`
        less its indexes and BLOB part tables."""
        return sum(n.own_bytes for n in self.nodes)

    @property
    def in_use(self) -> int:
        """In-use bytes over every node."""
        return sum(n.in_use for n in self.nodes)

    @property
    def fixed_alloc(self) -> int:
        """Fixed-size parts' allocated bytes over every node."""
        return sum(n.fixed_alloc for n in self.nodes)

    @property
    def var_alloc(self) -> int:
        """Variable-size parts' allocated bytes over every node."""
        return sum(n.var_alloc for n in self.nodes)

    @property
    def hash_alloc(self) -> int:
        """Hash index bytes over every node."""
        return sum(n.hash_alloc for n in self.nodes)

    @property
    def per_node(self) -> dict[int, int]:
        """Allocated bytes by node id."""
        return {n.node_id: n.bytes for n in self.nodes}

    @property
    def fragment_count(self) -> int:
        """The table's own fragment replicas seen."""
        return sum(len(n.fragments) for n in self.nodes)

    @property
    def largest_fragment(self) -> tuple[int, int, int] | None:
        """(node id, fragment_num, bytes) of the largest fragment replica; None without any."""
        best: tuple[int, int, int] | None = None
        for n in self.nodes:
            for frag, size in n.fragments:
                if best is None or size > best[2]:
                    best = (n.node_id, frag, size)
        return best

    @property
    def mean_fragment(self) -> float | None:
        """The mean fragment replica's bytes; None without any."""
        count = self.fragment_count
        if not count:
            return None
        return sum(size for n in self.nodes for _, size in n.fragments) / count

    @property
    def skew(self) -> float | None:
        """Largest fragment replica / mean (1.0: even); None without fragments or bytes."""
        largest, mean = self.largest_fragment, self.mean_fragment
        if largest is None or not mean:
            return None
        return largest[2] / mean
