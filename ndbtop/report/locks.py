"""Transactions and lock waits in the ``--once`` report, the bundle, the Locks view and the
header: what ``cluster_transactions`` and ``cluster_locks`` gave at their last read.

These tables are read only while something asks for them (the Locks view, ``--once
--section locks``, a bundle): everything here says when they were read, and nothing is
shown as current that was read long ago.
"""

from __future__ import annotations

from typing import Any

from ndbtop.model.locks import (
    MAX_LOCKS,
    MAX_TRANSACTIONS,
    Chain,
    LockWait,
    Transaction,
    chain_of,
    first_holders,
    transid_text,
)
from ndbtop.model.locks_read import LocksRead, locks_read
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.report.table_memory import NO_SQL_NODE, NOT_READ, READ, SQL_NODE_DOWN, UNAVAILABLE
from ndbtop.report.tables import format_table

TABLES = (("transactions", "cluster_transactions"), ("locks", "cluster_locks"))
"""(panel, ndbinfo table) of the two reads."""


def why_not_read(snap: ClusterSnapshot, read: LocksRead, panel: str) -> tuple[str, str] | None:
    """(state, reason) when ``panel`` (``transactions`` or ``locks``) was never read: it could
    not be, there is no SQL node, it does not answer, or nothing asked yet; None once read."""
    age = read.locks_age_s if panel == "locks" else read.transactions_age_s
    if age is not None:
        return None
    error = dict(read.unavailable).get(panel)
    if error:
        return UNAVAILABLE, f"unavailable: {error}"
    src = snap.source("ndbinfo")
    if src is None or src.state is SourceState.DISABLED:
        return NO_SQL_NODE, "no SQL node (--mysql-host)"
    if src.state is not SourceState.CONNECTED:
        why = f": {src.error}" if src.error else ""
        return SQL_NODE_DOWN, f"the SQL node at {src.target or '?'} is not answering{why}"
    return NOT_READ, ""


def locks_state(snap: ClusterSnapshot, read: LocksRead | None = None) -> tuple[str, str]:
    """(state, what to say) of the section: ``read`` once both tables were read, else the
    state of the first that was not (those of :mod:`ndbtop.report.table_memory`)."""
    read = locks_read(snap) if read is None else read
    for panel, table in TABLES:
        why = why_not_read(snap, read, panel)
        if why is not None:
            return why[0], f"ndbinfo.{table} {not_read_text(why[1])}"
    return READ, ""


def transaction_json(t: Transaction) -> dict[str, Any]:
    """One transaction: transid, node_id, api_node, state, age_s and operations, then what
    else the row gives."""
    return {
        "transid": t.transid,
        "node_id": t.node_id,
        "api_node": t.api_node,
        "state": t.state,
        "age_s": t.inactive_s,
        "operations": t.operations,
        "outstanding_operations": t.outstanding,
        "block_instance": t.block_instance,
        "mysql_connection_id": t.mysql_connection_id,
    }


def chain_end(chain: Chain, read: LocksRead) -> str:
    """How a chain ends (:data:`~ndbtop.model.locks.CHAIN_ENDS`), ``cut`` for one that ends
    at a lock not read when the read was cut by its limit: the rest of it was not read."""
    return "cut" if chain.end == "not read" and read.locks_more else chain.end


CHAIN_TAILS = {"holder": "", "deadlock": "", "not read": " -> ?",
               "cut": f" -> … (cut: lock rows past the first {MAX_LOCKS} not read)",
               "long": " -> …"}
"""What follows a chain's transactions in the text, by how it ends."""


def chain_text(chain: Chain, read: LocksRead) -> str:
    """``4 -> 3 -> 2 -> 1``, then how it ends when it does not end at a root holder or where
    a deadlock closes: ``-> ?`` (a lock not read), cut by the read's limit, or too long."""
    return (" -> ".join(transid_text(t) for t in chain.transids)
            + CHAIN_TAILS[chain_end(chain, read)])


def count_text(count: int, more: bool, limit: int) -> str:
    """``3``, ``none``, or ``the first 200 of at least 201`` when the read's limit cut it."""
    if more:
        return f"the first {limit} of at least {limit + 1}"
    return str(count or "none")


def wait_json(w: LockWait, first: dict[int, int | None], read: LocksRead) -> dict[str, Any]:
    """One lock wait: waiter_transid, holder_transid, table and wait_s, then where and how deep,
    its chain and how the chain ends."""
    chain = chain_of(w, first)
    lk = w.lock
    return {
        "waiter_transid": w.waiter,
        "holder_transid": w.holder,
        "table": lk.table_name,
        "wait_s": round(w.wait_s, 3),
        "fragment": lk.fragment_id,
        "node_id": lk.node_id,
        "table_id": lk.table_id,
        "mode": lk.mode,
        "op": lk.op,
        "depth": w.depth,
        "deadlock": w.cycle,
        "chain": list(chain.transids),
        "chain_end": chain_end(chain, read),
    }


def locks_json(snap: ClusterSnapshot) -> dict[str, Any]:
    """The ``transactions`` and ``lock_waits`` keys, and when and how they were read."""
    read = locks_read(snap)
    state, note = locks_state(snap, read)
    first = first_holders(read.waits)
    out: dict[str, Any] = {
        "transactions": None if read.transactions_age_s is None else
        [transaction_json(t) for t in read.transactions],
        "lock_waits": None if read.locks_age_s is None else
        [wait_json(w, first, read) for w in read.waits],
        "locks_state": state,
        "locks_read": {
            "transactions_min_age_s": read.min_age_s,
            "transactions_read_s_ago": _rounded(read.transactions_age_s),
            "locks_read_s_ago": _rounded(read.locks_age_s),
            "unavailable": {panel: why for panel, why in read.unavailable},
            "transactions_at_least": MAX_TRANSACTIONS + 1 if read.transactions_more else None,
            "lock_rows_at_least": MAX_LOCKS + 1 if read.locks_more else None,
        },
    }
    if note:
        out["locks_note"] = note
    return out


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def read_note(age: float | None, table: str) -> str:
    """``ndbinfo.cluster_locks, read 3 s ago`` or ``not read``."""
    if age is None:
        return f"ndbinfo.{table} not read"
    return f"ndbinfo.{table}, read {age:.0f} s ago"


def not_read_text(reason: str) -> str:
    """``not read: no SQL node (--mysql-host)``, or ``not read yet`` without a reason."""
    return f"not read: {reason}" if reason else "not read yet"


def heading(snap: ClusterSnapshot, read: LocksRead, panel: str, count: int) -> str:
    """What follows a list's title: ``(ndbinfo.cluster_locks, read 3 s ago): 3`` (``none``,
    or for transactions ``the first 200 of at least 201``) once read,
    ``(ndbinfo.cluster_locks): not read: no SQL node (--mysql-host)`` before."""
    table = dict(TABLES)[panel]
    why = why_not_read(snap, read, panel)
    if why is not None:
        return f"(ndbinfo.{table}): {not_read_text(why[1])}"
    if panel == "transactions":
        shown = count_text(count, read.transactions_more, MAX_TRANSACTIONS)
        return f"({read_note(read.transactions_age_s, table)}): {shown}"
    return f"({read_note(read.locks_age_s, table)}): {count or 'none'}"


def waits_heading(read: LocksRead) -> str:
    """``(ndbinfo.cluster_locks, read 3 s ago): 3, deepest chain 2``, saying when the read's
    limit cut the rows: what follows "Lock waits" once there are some."""
    deepest = max((w.depth for w in read.waits), default=0)
    cut = (f" (in the first {MAX_LOCKS} of at least {MAX_LOCKS + 1} lock rows: chains may be "
           "cut)" if read.locks_more else "")
    return (f"({read_note(read.locks_age_s, 'cluster_locks')}): {len(read.waits)}{cut}, "
            f"deepest chain {deepest}")


def locks_text(snap: ClusterSnapshot) -> list[str]:
    """The section of the text report."""
    read = locks_read(snap)
    lines = ["", f"Transactions {read.idle_text} "
             + heading(snap, read, "transactions", len(read.transactions))]
    for panel, why in read.unavailable:
        if why_not_read(snap, read, panel) is None:
            lines.append(f"  {panel} unavailable: {why}")
    if read.transactions:
        rows = [(transid_text(t.transid), t.node_id, t.api_node, t.state or "-", t.inactive_s,
                 t.operations, t.mysql_connection_id) for t in read.transactions]
        lines.append(format_table(("transid", "tc node", "api node", "state", "idle s",
                                   "ops", "mysql conn"), rows, right=(1, 2, 4, 5, 6)))
    lines += ["", "Lock waits " + (waits_heading(read) if read.waits
                                   else heading(snap, read, "locks", 0))]
    if read.waits:
        first = first_holders(read.waits)
        rows = [(transid_text(w.waiter), transid_text(w.holder), w.lock.table_name,
                 w.lock.fragment_id, w.lock.node_id, f"{w.wait_s:.1f}",
                 f"{w.depth}{' deadlock' if w.cycle else ''}",
                 chain_text(chain_of(w, first), read))
                for w in read.waits]
        lines.append(format_table(("waiter", "waits for", "table", "fragment", "node", "wait s",
                                   "depth", "chain (-> waits for)"), rows, right=(3, 4, 5)))
    return lines
