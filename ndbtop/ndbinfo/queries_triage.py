"""The queries read only while something asks for them: the tables a support engineer reads
by hand when triaging (processes, membership, table memory, transactions, locks) and the
running configuration ``ndbtop config --diff-running`` reads once.

Each is a scan of every data node, so none is part of the refresh's fast tier or slow
rotation (:mod:`ndbtop.ndbinfo.queries`).
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.model.locks import DEFAULT_TXN_AGE_S, LONG_TXN_S, MAX_LOCKS, MAX_TRANSACTIONS
from ndbtop.model.table_memory import TOP_TABLES
from ndbtop.ndbinfo.queries import Query, or_empty, tagged, text_query
from ndbtop.ndbinfo.rows_membership import COLUMNS

PROCESSES = tagged(
    "processes",
    "processes",
    """SELECT node_id, node_version, process_id, angel_process_id, process_name, service_URI
    FROM ndbinfo.processes WHERE node_type = 'API' ORDER BY node_id LIMIT 255""",
)
"""The API and SQL nodes' processes (one row a connected API node, at most 255 node ids);
read only while a view, ``--once`` or a bundle asks for them."""

_FRAGMENT_BYTES = ("(COALESCE(fixed_elem_alloc_bytes, 0) + COALESCE(var_elem_alloc_bytes, 0)"
                   " + COALESCE(hash_index_alloc_bytes, 0))")
TABLE_MEMORY = tagged(
    "tables",
    "memory_per_fragment",
    f"""SELECT tbl, SUM(fixed_alloc + var_alloc + hash_alloc) AS bytes,
    GROUP_CONCAT(CONCAT(node_id, ' ', fixed_alloc, ' ', fixed_free, ' ', var_alloc, ' ',
    var_free, ' ', hash_alloc, ' ', frags) SEPARATOR ';') AS per_node
    FROM (SELECT COALESCE(parent_fq_name, fq_name) AS tbl, node_id,
    COALESCE(SUM(fixed_elem_alloc_bytes), 0) AS fixed_alloc,
    COALESCE(SUM(fixed_elem_free_bytes), 0) AS fixed_free,
    COALESCE(SUM(var_elem_alloc_bytes), 0) AS var_alloc,
    COALESCE(SUM(var_elem_free_bytes), 0) AS var_free,
    COALESCE(SUM(hash_index_alloc_bytes), 0) AS hash_alloc,
    COALESCE(GROUP_CONCAT(IF(parent_fq_name IS NULL,
    CONCAT(fragment_num, ':', {_FRAGMENT_BYTES}), NULL) SEPARATOR ','), '-') AS frags
    FROM ndbinfo.memory_per_fragment GROUP BY tbl, node_id) AS t
    GROUP BY tbl ORDER BY bytes DESC, tbl LIMIT {TOP_TABLES}""",
)
"""The largest tables by allocated DataMemory, each table with its indexes and BLOB part
tables (``parent_fq_name``), summed per table and node on the SQL node: a row per table (at
most :data:`~ndbtop.model.table_memory.TOP_TABLES`), its nodes as text
(``node fixed_alloc fixed_free var_alloc var_free hash_alloc frags`` joined by ``;``) and, of
each node, the table's own fragment replicas as ``fragment_num:bytes`` joined by ``,`` (``-``
for none). The view already names each fragment's table and parent (it joins
``dict_obj_info`` itself), so no join is sent; one scan of every data node, where a row per
fragment replica of every table and index would be 32,000 rows for 2,000 tables of 8
fragments. Read only while a view, ``--once`` or a bundle asks for it."""

ALL_CONFIG_VALUES = tagged(
    "config_values",
    "config_values",
    "SELECT node_id, config_param, config_value FROM ndbinfo.config_values",
)
"""Every parameter each data node runs with: read once by ``ndbtop config --diff-running``,
never by a refresh."""

MEMBERSHIP = text_query(
    "membership",
    "membership",
    or_empty(COLUMNS),
    # The candidates are joined by ", ": without the spaces, every column is one field.
    derived=f"""SELECT {", ".join(COLUMNS[:-2])},
    REPLACE(connected_rank1_arbs, ' ', '') AS connected_rank1_arbs,
    REPLACE(connected_rank2_arbs, ' ', '') AS connected_rank2_arbs
    FROM ndbinfo.membership ORDER BY node_id LIMIT 255""",
)
"""How each started data node sees the membership: a row a data node, as text (one result
row while packing is allowed, :attr:`~ndbtop.ndbinfo.queries.Query.packed`). The agreement on the
arbitrator (``arbitrator_validity_summary``: these rows grouped by arbitrator, ticket and
arb_connected, ndbinfo.md §2.1) is counted from the same rows, not read by a second scan."""

def transactions_query(age_s: int, limit: int = MAX_TRANSACTIONS + 1,
                       panel: str = "transactions") -> Query:
    """The transactions idle at least ``age_s`` seconds, the oldest first (at most ``limit``:
    by default one more than are kept, so that a read the limit cut says so), with the MySQL
    connection of those the SQL node read runs (``server_transactions``, the same columns
    and ``mysql_connection_id``).

    Its ``table`` is ``server_transactions``, the view the join adds: where the join cannot
    run (the view is missing or not granted), its failure names that view, and the
    ``fallback`` reads ``cluster_transactions`` alone, with no MySQL connection."""
    age = max(0, min(int(age_s), 10**9))
    columns = ("t.node_id, t.block_instance, t.transid, t.state, t.count_operations, "
               "t.outstanding_operations, t.inactive_seconds, t.client_node_id")
    order = f"ORDER BY t.inactive_seconds DESC, t.transid LIMIT {int(limit)}"
    alone = tagged(
        panel,
        "cluster_transactions",
        f"""SELECT {columns}, NULL AS mysql_connection_id FROM ndbinfo.cluster_transactions
        AS t WHERE t.inactive_seconds >= {age} {order}""",
    )
    joined = tagged(
        panel,
        "server_transactions",
        f"""SELECT {columns}, s.mysql_connection_id
        FROM ndbinfo.cluster_transactions AS t LEFT JOIN
        (SELECT node_id, transid, mysql_connection_id FROM ndbinfo.server_transactions
        WHERE inactive_seconds >= {age}) AS s ON s.node_id = t.node_id AND s.transid = t.transid
        WHERE t.inactive_seconds >= {age} {order}""",
    )
    return replace(joined, fallback=alone)


TRANSACTIONS = transactions_query(DEFAULT_TXN_AGE_S)
"""Transactions idle 10 s or more (:func:`transactions_query` for another age): read only
while a view, ``--once`` or a bundle asks for them."""

OLDEST_TRANSACTION = transactions_query(LONG_TXN_S, 1, "oldest_transaction")
"""The one transaction idle longest, when it passed ndbtop's 60 s: read in the background
every :data:`OLDEST_TRANSACTION_EVERY` seconds while the full ``transactions`` panel is not
asked for, so a long lock holder is a finding without the Locks view open."""
OLDEST_TRANSACTION_EVERY = 20.0
"""Seconds between background reads of :data:`OLDEST_TRANSACTION` (a scan of every data
node's transactions, one row back)."""

LOCKS = tagged(
    "locks",
    "cluster_locks",
    f"""SELECT l.node_id, l.block_instance, l.tableid, l.fragmentid, l.rowid, l.transid,
    l.mode, l.state, l.op, l.duration_millis, l.lock_num, l.waiting_for, o.fq_name
    FROM ndbinfo.cluster_locks AS l
    LEFT JOIN (SELECT node_id, block_instance, waiting_for FROM ndbinfo.cluster_locks
    WHERE state = 'W' GROUP BY node_id, block_instance, waiting_for) AS w
    ON w.node_id = l.node_id AND w.block_instance = l.block_instance
    AND w.waiting_for = l.lock_num
    LEFT JOIN ndbinfo.dict_obj_info AS o ON o.id = l.tableid AND o.type IN (1, 2, 3)
    WHERE l.state = 'W' OR w.waiting_for IS NOT NULL
    ORDER BY l.duration_millis DESC, l.node_id, l.lock_num LIMIT {MAX_LOCKS + 1}""",
)
"""The lock waits and the locks they wait for (one more row than are kept, so that a read
the limit cut says so), with the table's name (``dict_obj_info``
types 1, 2, 3: tables and unique hash indexes, which ACC locks): never the locks no one
waits for. ``lock_num`` is unique per LDM instance only, so a waiter's ``waiting_for`` is
matched on the node and instance too, in a derived table read once (a correlated subquery
would scan every data node again for each row)."""

ON_DEMAND: dict[str, Query] = {
    query.panel: query for query in (PROCESSES, MEMBERSHIP, TABLE_MEMORY, TRANSACTIONS, LOCKS)}
"""Panels read only while something asks for them (a view that shows them, ``--once
--section``, a bundle), at every refresh then, never in the background: the tables a support
engineer reads by hand when triaging, each a scan of every data node."""
