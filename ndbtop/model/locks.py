"""Open transactions and lock waits: ``cluster_transactions`` and ``cluster_locks``.

A transaction's age here is what ``cluster_transactions`` gives, ``inactive_seconds``: the
seconds since the transaction last did anything at its coordinator (the TC's timer,
ndbinfo.md §2.7). A client that opened a transaction and never committed it shows there
with its whole idle time.

A lock wait is a ``cluster_locks`` row in state ``W``; its ``waiting_for`` is the
``lock_num`` of the operation before it in the row's queue, on the same data node and LDM
instance (``lock_num`` is ACC's operation id, unique per block instance; ndbinfo.md §2.7).
That operation belongs to the transaction the waiter waits for: the holder, or another
waiter queued before it. The waits between transactions make chains; a deadlock makes a
cycle, which ends a chain where it closes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DEFAULT_TXN_AGE_S = 10
"""Transactions younger than this are not read (``--txn-age``)."""

LONG_TXN_S = 60
"""ndbtop's own threshold for a long transaction (the header and the finding): NDB has none;
its TransactionInactiveTimeout is unlimited by default."""

DEADLOCK_TIMEOUT_MS = 1200
"""TransactionDeadlockDetectionTimeout's default: a lock wait longer than this is aborted by
the coordinator (error 266) unless the configuration raised it."""

MAX_TRANSACTIONS = 200
"""Transactions read at most (the oldest): more than a screen or a ticket can use."""

MAX_LOCKS = 1000
"""Lock rows read at most (waits and the locks they wait for, the longest first)."""


@dataclass(frozen=True)
class Transaction:
    """A row of ``cluster_transactions``, with the MySQL connection when the SQL node read
    runs it (``server_transactions``)."""

    node_id: int
    """The data node whose transaction coordinator (TC) runs it."""
    block_instance: int
    transid: int
    """64 bits: ``transid0 + (transid1 << 32)``."""
    state: str
    """The TC's friendly state name (Started, Committing, ...)."""
    operations: int
    outstanding: int
    inactive_s: int
    api_node: int
    """``client_node_id``: the API or SQL node that runs it."""
    mysql_connection_id: int | None = None


@dataclass(frozen=True)
class LockRow:
    """A row of ``cluster_locks``: a lock held (``H``) or waited for (``W``)."""

    node_id: int
    block_instance: int
    table_id: int
    fragment_id: int
    row_id: int
    transid: int
    mode: str
    """``S`` shared or ``X`` exclusive."""
    state: str
    """``H`` held, ``W`` waiting."""
    op: str
    duration_ms: int
    lock_num: int
    waiting_for: int | None
    table: str = ""
    """``db/def/table`` from ``dict_obj_info``, or empty when it has no row for the id."""

    @property
    def waiting(self) -> bool:
        """Whether this lock is waited for rather than held."""
        return self.state == "W"

    @property
    def table_name(self) -> str:
        """``db.table`` (``db/def/table`` shortened), or ``table <id>`` without a name."""
        if not self.table:
            return f"table {self.table_id}"
        parts = self.table.split("/")
        if len(parts) >= 3 and parts[1] == "def":
            return f"{parts[0]}.{'/'.join(parts[2:])}"
        return self.table


@dataclass(frozen=True)
class LockWait:
    """One transaction waiting for another's lock."""

    waiter: int
    """The waiting transaction's transid."""
    holder: int | None
    """The transaction whose lock it queues behind; None when that lock was not read."""
    lock: LockRow
    """The waiting lock."""
    depth: int
    """Waits between the waiter and the root of its chain: 1 when the holder waits for
    nothing."""
    cycle: bool
    """Whether following the holders comes back to the waiter: a deadlock."""

    @property
    def wait_s(self) -> float:
        """Seconds the lock has been waited for."""
        return self.lock.duration_ms / 1000.0


def lock_waits(locks: Sequence[LockRow]) -> tuple[LockWait, ...]:
    """Every waiting lock as a wait of one transaction for another, the deepest chains and
    the longest waits first."""
    by_num = {(lk.node_id, lk.block_instance, lk.lock_num): lk for lk in locks}
    edges: list[tuple[LockRow, int | None]] = []
    for lk in locks:
        if not lk.waiting:
            continue
        target = None if lk.waiting_for is None else by_num.get(
            (lk.node_id, lk.block_instance, lk.waiting_for))
        holder = None if target is None or target.transid == lk.transid else target.transid
        edges.append((lk, holder))
    waits_for: dict[int, set[int]] = {}
    for lk, holder in edges:
        if holder is not None:
            waits_for.setdefault(lk.transid, set()).add(holder)
    out = []
    for lk, holder in edges:
        depth, cycle = _depth(lk.transid, waits_for)
        out.append(LockWait(lk.transid, holder, lk, depth, cycle))
    out.sort(key=lambda w: (-w.depth, -w.lock.duration_ms, w.waiter))
    return tuple(out)


def _depth(start: int, waits_for: dict[int, set[int]]) -> tuple[int, bool]:
    """The longest path of waits from ``start`` without visiting a transaction twice, and
    whether a path comes back to ``start``."""
    best, cycle = 0, False
    stack: list[tuple[int, int, frozenset[int]]] = [(start, 0, frozenset((start,)))]
    steps = 0
    while stack and steps < 10_000:
        steps += 1
        node, length, seen = stack.pop()
        best = max(best, length)
        for nxt in waits_for.get(node, ()):
            if nxt == start:
                cycle = True
            elif nxt not in seen:
                stack.append((nxt, length + 1, seen | {nxt}))
    return best, cycle


def chain_of(wait: LockWait, waits: Iterable[LockWait]) -> tuple[int, ...]:
    """The transactions from ``wait``'s waiter to the root holder, following the first
    holder of each; a cycle stops where it closes."""
    first: dict[int, int] = {}
    for w in waits:
        if w.holder is not None:
            first.setdefault(w.waiter, w.holder)
    chain = [wait.waiter]
    nxt = wait.holder
    while nxt is not None and nxt not in chain:
        chain.append(nxt)
        nxt = first.get(nxt)
    if nxt is not None:
        chain.append(nxt)
    return tuple(chain)


def oldest(transactions: Sequence[Transaction]) -> Transaction | None:
    """The transaction idle the longest, if any."""
    return max(transactions, key=lambda t: (t.inactive_s, -t.transid), default=None)


def transid_text(transid: int | None) -> str:
    """A transid as ndbinfo shows it (decimal), ``?`` when unknown."""
    return "?" if transid is None else str(transid)


@dataclass(frozen=True)
class TreeLine:
    """A line of the waits drawn as trees: a root holder (``wait`` None) at level 0, or a
    wait under the transaction it waits for."""

    level: int
    transid: int | None
    """The root holder's transid, or the waiter's."""
    wait: LockWait | None = None
    deadlock: bool = False
    """The line closes a cycle of waits (a deadlock): its waiter is shown above it."""


def wait_tree(waits: Sequence[LockWait]) -> tuple[TreeLine, ...]:
    """The waits as trees: each transaction that waits for nothing (or whose lock was not
    read) with the waits behind it, indented by depth; the waits of a cycle, which has no
    root, start from its first member. Each wait shows once, so a cycle ends where it
    closes."""
    under: dict[int | None, list[LockWait]] = {}
    waiting = set()
    for w in waits:
        under.setdefault(w.holder, []).append(w)
        waiting.add(w.waiter)
    lines: list[TreeLine] = []
    shown: set[int] = set()

    def grow(holder: int | None, seen: frozenset[int]) -> None:
        stack = [(w, 1, seen) for w in reversed(under.get(holder, ()))]
        while stack:
            w, depth, path = stack.pop()
            if id(w) in shown:
                continue
            shown.add(id(w))
            closes = w.waiter in path
            lines.append(TreeLine(depth, w.waiter, w, closes))
            if not closes:
                below = path | {w.waiter}
                stack.extend((c, depth + 1, below) for c in reversed(under.get(w.waiter, ())))

    roots = [h for h in under if h is None or h not in waiting]
    for root in sorted(roots, key=lambda h: (h is None, h or 0)):
        lines.append(TreeLine(0, root))
        grow(root, frozenset(() if root is None else (root,)))
    for w in waits:
        if id(w) not in shown and w.holder is not None:
            lines.append(TreeLine(0, w.holder, deadlock=True))
            grow(w.holder, frozenset((w.holder,)))
    return tuple(lines)
