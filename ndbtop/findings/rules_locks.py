"""``long_transaction``: a transaction idle over a minute, from the last read of
``cluster_transactions``.

That table is read in full only while the Locks view shows, ``--once --section locks`` asks
or a bundle is made; otherwise its oldest transaction past 60 s is read in the background
every 20 s (one row back). The rule speaks only from a read no older than :data:`FRESH_S`,
and says the read's age. The 60 s are ndbtop's own: NDB's TransactionInactiveTimeout is unlimited by
default, so such a transaction holds its locks until its client ends it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.locks import LONG_TXN_S
from ndbtop.model.locks_read import long_transaction
from ndbtop.model.snapshot import ClusterSnapshot

FRESH_S = 30.0
"""A read older than this says nothing about now: no finding from it."""


def long_transactions(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``long_transaction`` (warning): the oldest transaction read is idle over 60 s."""
    found = long_transaction(snap)
    if found is None:
        return
    txn, age = found
    if age > max(FRESH_S, 3 * snap.interval):
        return
    conn = ("" if txn.mysql_connection_id is None
            else f", MySQL connection {txn.mysql_connection_id}")
    yield Finding(
        "long_transaction", Severity.WARNING,
        f"transaction {txn.transid} of API node {txn.api_node}{conn} idle {txn.inactive_s} s "
        f"({txn.operations} operations, {txn.state} at node {txn.node_id})",
        (Evidence("inactive_seconds", f"{txn.inactive_s} s", "ndbinfo.cluster_transactions",
                  age),),
        Threshold(f"{LONG_TXN_S} s idle", "ndbtop"),
        "its client holds the transaction open with its locks: commit or roll it back there "
        "(KILL the MySQL connection named), or set TransactionInactiveTimeout",
        nodes=(txn.node_id,), key=str(txn.transid))
