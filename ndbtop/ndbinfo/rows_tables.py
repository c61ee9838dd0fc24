"""The rows of :data:`~ndbtop.ndbinfo.queries_triage.TABLE_MEMORY` turned into
:class:`~ndbtop.model.table_memory.TableMemory` values.

Each row is ``tbl, bytes, per_node``: the table's ``fq_name``, its allocated bytes (a
``SUM()``, so a ``DECIMAL`` or its text) and its nodes as text, ``node fixed_alloc
fixed_free var_alloc var_free hash_alloc frags`` joined by ``;``, where ``frags`` is
``fragment_num:bytes`` joined by ``,`` or ``-``. Every number is read by
:mod:`ndbtop.textnum` (ASCII digits, bounded); a node whose text does not read so is left
out, and a table without any readable node too. ``bytes`` is recomputed from the nodes
kept, so a table is never larger than what it shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndbtop.mgm.nodeids import is_node_id
from ndbtop.model.table_memory import TOP_TABLES, TableMemory, TableNodeMemory
from ndbtop.ndbinfo.rows import INT_HIGH, Row, to_text
from ndbtop.textnum import int_or_none

MAX_NAME = 512
"""``fq_name`` is a ``varchar(512)``."""
MAX_FRAGMENTS = 4096
"""Fragment replicas of one table on one node taken from a row (the text is cut beyond)."""


def _number(text: str) -> int | None:
    return int_or_none(text, 0, INT_HIGH)


def _fragments(text: str) -> tuple[tuple[int, int], ...] | None:
    if text == "-":
        return ()
    out = []
    for item in text.split(",")[:MAX_FRAGMENTS]:
        frag, sep, size = item.partition(":")
        num, value = _number(frag), _number(size)
        if not sep or num is None or value is None:
            return None
        out.append((num, value))
    return tuple(sorted(out))


def parse_node_text(text: str) -> TableNodeMemory | None:
    """One node's part of ``per_node``; None when it does not read as the query writes it."""
    fields = text.split(" ")
    if len(fields) != 7:
        return None
    numbers = [_number(f) for f in fields[:6]]
    frags = _fragments(fields[6])
    if any(n is None for n in numbers) or frags is None:
        return None
    node_id, fixed_alloc, fixed_free, var_alloc, var_free, hash_alloc = (
        n for n in numbers if n is not None)
    if not is_node_id(node_id):
        return None
    return TableNodeMemory(node_id, fixed_alloc, fixed_free, var_alloc, var_free, hash_alloc,
                           frags)


def parse_table_memory(rows: Sequence[Row]) -> tuple[TableMemory, ...]:
    """The tables of the rows, largest first (at most :data:`TOP_TABLES`)."""
    out = []
    for row in rows:
        if len(row) < 3 or row[0] is None or row[2] is None:
            continue
        name = to_text(row[0])[:MAX_NAME]
        nodes: dict[int, TableNodeMemory] = {}
        for part in to_text(row[2]).split(";"):
            node = parse_node_text(part)
            if node is not None and node.node_id not in nodes:
                nodes[node.node_id] = node
        if nodes:
            out.append(TableMemory(name, tuple(nodes[k] for k in sorted(nodes))))
    out.sort(key=lambda t: (-t.bytes, t.fq_name))
    return tuple(out[:TOP_TABLES])
