"""The panels of an ``ndbinfo`` sample: their order, the parser of each panel's rows and
the :class:`~ndbtop.model.ndbinfo.NdbinfoSample` made of the values last read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndbtop.mgm.nodeids import MAX_NODE_ID, MIN_NODE_ID
from ndbtop.model.locks import MAX_LOCKS, MAX_TRANSACTIONS, waits_of
from ndbtop.model.ndbinfo import DiskPageBuffer, DiskStat, NdbinfoSample
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import rows as r
from ndbtop.ndbinfo.rows_locks import parse_locks, parse_transactions
from ndbtop.ndbinfo.rows_membership import parse_membership
from ndbtop.ndbinfo.rows_tables import parse_table_memory
from ndbtop.ndbinfo.statements import Tally
from ndbtop.ndbinfo.text_rows import parse_numbers, split_fields

PANELS = (
    "nodes",
    "threads",
    "disk_page_buffer",
    "disk_write_speed",
    "disk_stat",
    "log_spaces",
    "log_buffers",
    "memory",
    "restart_info",
    "links",
    "activity",
    "config_values",
    "processes",
    "membership",
    "tables",
    "transactions",
    "locks",
    "oldest_transaction",
)
"""The panels of :class:`NdbinfoSample`, in the order ``unavailable`` lists them."""

PARSERS: dict[str, Callable[[Sequence[r.Row], Sequence[str]], tuple[Any, ...]]] = {
    "nodes": lambda rows, _: r.parse_nodes(rows),
    "disk_page_buffer": lambda rows, _: r.parse_disk_page_buffer(rows),
    "disk_write_speed": lambda rows, _: r.parse_disk_write_speed(rows),
    "disk_stat": lambda rows, _: r.parse_disk_stat(rows),
    "log_spaces": lambda rows, _: r.parse_logs(rows),
    "log_buffers": lambda rows, _: r.parse_logs(rows),
    "memory": lambda rows, _: r.parse_memory(rows),
    "restart_info": r.parse_restart_info,
    "links": lambda rows, _: r.parse_links(rows),
    "activity": lambda rows, _: r.parse_activity(rows),
    "config_values": lambda rows, _: r.parse_config_values(rows),
    "processes": lambda rows, _: r.parse_processes(rows),
    "membership": lambda rows, _: parse_membership(rows),
    "tables": lambda rows, _: parse_table_memory(rows),
    "transactions": lambda rows, _: parse_transactions(rows),
    "locks": lambda rows, _: parse_locks(rows),
    "oldest_transaction": lambda rows, _: parse_transactions(rows),
}
"""Each panel's parser of its query's rows and column names."""

NUMBER_ROWS: dict[str, type] = {"disk_page_buffer": DiskPageBuffer, "disk_stat": DiskStat}
"""Text panels of whole numbers only, read by :func:`parse_numbers`."""


def parse_texts(query: q.Query, texts: list[str]) -> tuple[Any, ...]:
    """The values of a text query's rows (:attr:`~ndbtop.ndbinfo.queries.Query.fields`)."""
    numbers = NUMBER_ROWS.get(query.panel)
    if numbers is not None:
        return parse_numbers(texts, numbers)
    return PARSERS[query.panel](split_fields(texts, query.fields, query.text_field), ())


def build_sample(
    taken_at: float,
    version: int | None,
    panels: Mapping[str, tuple[Any, ...]],
    unavailable: Mapping[str, str],
    dropped: set[int],
    txn_age_s: int,
    read_at: tuple[tuple[str, float], ...],
    tally: Tally,
) -> NdbinfoSample:
    """The sample of the panels' values, the unavailable panels in :data:`PANELS` order and
    the node ids ``dropped`` from the rows as out of range."""
    order = {name: i for i, name in enumerate(PANELS)}
    listed = sorted(
        unavailable.items(), key=lambda item: (order.get(item[0], len(order)), item[0])
    )
    if dropped:
        ids = ", ".join(map(str, sorted(dropped)[:5]))
        listed.append(("rows out of range", f"node ids {ids} are not node ids "
                            f"({MIN_NODE_ID}-{MAX_NODE_ID}): left out"))
    transactions = panels.get("transactions", ())
    locks = panels.get("locks", ())
    # The waits are worked out here, in the collector's thread, not by the view that shows them.
    waits_of(locks[:MAX_LOCKS])
    return NdbinfoSample(
        taken_at=taken_at,
        ndb_version=version,
        nodes=panels.get("nodes", ()),
        threads=panels.get("threads", ()),
        disk_page_buffer=panels.get("disk_page_buffer", ()),
        disk_write_speed=panels.get("disk_write_speed", ()),
        disk_stat=panels.get("disk_stat", ()),
        log_spaces=panels.get("log_spaces", ()),
        log_buffers=panels.get("log_buffers", ()),
        memory=panels.get("memory", ()),
        restart_info=panels.get("restart_info", ()),
        links=panels.get("links", ()),
        activity=panels.get("activity", ()),
        config_values=panels.get("config_values", ()),
        processes=panels.get("processes", ()),
        membership=panels.get("membership", ()),
        tables=panels.get("tables", ()),
        transactions=transactions[:MAX_TRANSACTIONS],
        transactions_more=len(transactions) > MAX_TRANSACTIONS,
        txn_age_s=txn_age_s,
        locks=locks[:MAX_LOCKS],
        locks_more=len(locks) > MAX_LOCKS,
        oldest_transaction=panels.get("oldest_transaction", ()),
        unavailable=tuple(listed),
        read_at=read_at,
        queries=tally.queries,
        rows=tally.rows,
    )

