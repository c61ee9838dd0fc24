"""What the last read of ``cluster_transactions`` and ``cluster_locks`` gave, and how old that
read is: these tables are read only while something asks for them (the Locks view, ``--once
--section locks``, a bundle), so every use says when they were read."""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.model.locks import (
    DEFAULT_TXN_AGE_S,
    LONG_TXN_S,
    LockWait,
    Transaction,
    oldest,
    waits_of,
)
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot


@dataclass(frozen=True)
class LocksRead:
    """What the last read of the two tables gave."""

    transactions: tuple[Transaction, ...]
    waits: tuple[LockWait, ...]
    min_age_s: int | None
    """The age from which transactions were read; None: never read."""

    @property
    def idle_text(self) -> str:
        """``idle 10 s or more``, or ``idle past --txn-age`` before the first read."""
        if self.min_age_s is None:
            return f"idle --txn-age seconds or more ({DEFAULT_TXN_AGE_S} by default)"
        return f"idle {self.min_age_s} s or more"
    transactions_age_s: float | None
    """Seconds since ``cluster_transactions`` was read; None: never read."""
    locks_age_s: float | None
    """Seconds since ``cluster_locks`` was read; None: never read."""
    unavailable: tuple[tuple[str, str], ...]
    """(table, why) for each of the two that could not be read, and ``server_transactions``
    when the transactions were read without it (no MySQL connection)."""
    transactions_more: bool = False
    """More transactions were there than the read keeps: those shown are the first."""
    locks_more: bool = False
    """More lock rows were there than the read keeps: a chain may be cut by the limit."""


def locks_read(snap: ClusterSnapshot) -> LocksRead:
    """The transactions and waits of the snapshot's ndbinfo sample, from the last read."""
    sample = snap.ndbinfo
    if sample is None:
        return LocksRead((), (), None, None, None, ())
    why = tuple((panel, reason) for panel, reason in sample.unavailable
                if panel in ("transactions", "server_transactions", "locks"))
    age = _age(sample, "transactions")
    return LocksRead(sample.transactions, waits_of(sample.locks),
                     None if age is None else sample.txn_age_s, age, _age(sample, "locks"), why,
                     sample.transactions_more, sample.locks_more)


def _age(sample: NdbinfoSample, panel: str) -> float | None:
    at = sample.panel_read_at(panel)
    return None if at is None else max(sample.taken_at - at, 0.0)


SHOWN_FOR_S = 300.0
"""How long after its read a long transaction is still named (in the header): the tables
are read only while asked for, and an old read says less and less of now."""


def long_transaction(snap: ClusterSnapshot) -> tuple[Transaction, float] | None:
    """The oldest transaction of the freshest read (the full ``transactions`` panel, or the
    background read of the oldest one) when it passed :data:`LONG_TXN_S`, with the seconds
    since that read; None otherwise, or once that read is older than :data:`SHOWN_FOR_S`."""
    sample = snap.ndbinfo
    if sample is None:
        return None
    reads = [(age, rows) for panel, rows in (("transactions", sample.transactions),
                                             ("oldest_transaction", sample.oldest_transaction))
             if (age := _age(sample, panel)) is not None]
    if not reads:
        return None
    age, rows = min(reads, key=lambda read: read[0])
    first = oldest(rows)
    if age > SHOWN_FOR_S or first is None or first.inactive_s <= LONG_TXN_S:
        return None
    return first, age


def transactions_read_age(snap: ClusterSnapshot) -> float | None:
    """Seconds since ``cluster_transactions`` was last read, in full or for its oldest
    transaction; None: never read."""
    sample = snap.ndbinfo
    if sample is None:
        return None
    ages = [a for panel in ("transactions", "oldest_transaction")
            if (a := _age(sample, panel)) is not None]
    return min(ages) if ages else None
