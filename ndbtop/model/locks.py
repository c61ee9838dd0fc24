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

import threading
from collections.abc import Iterable, Mapping, Sequence
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
"""Transactions kept at most (the oldest): more than a screen or a ticket can use. One more
is read, so that what is shown can say it is "the first 200 of at least 201"."""

MAX_LOCKS = 1000
"""Lock rows kept at most (waits and the locks they wait for, the longest first); one more
is read, as for transactions."""


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
    the longest waits first: linear in the rows (:func:`wait_depths`)."""
    by_num = {(lk.node_id, lk.block_instance, lk.lock_num): lk for lk in locks}
    edges: list[tuple[LockRow, int | None]] = []
    for lk in locks:
        if not lk.waiting:
            continue
        target = None if lk.waiting_for is None else by_num.get(
            (lk.node_id, lk.block_instance, lk.waiting_for))
        holder = None if target is None or target.transid == lk.transid else target.transid
        edges.append((lk, holder))
    waits_for: dict[int, list[int]] = {}
    for lk, holder in edges:
        if holder is not None:
            waits_for.setdefault(lk.transid, []).append(holder)
    depths = wait_depths(waits_for)
    out = [LockWait(lk.transid, holder, lk, *depths.get(lk.transid, (0, False)))
           for lk, holder in edges]
    out.sort(key=lambda w: (-w.depth, -w.lock.duration_ms, w.waiter))
    return tuple(out)


_WAITS: dict[int, tuple[Sequence[LockRow], tuple[LockWait, ...]]] = {}
"""The waits of the last few reads, by the identity of their rows (kept, so the identity
stays theirs)."""
_WAITS_LOCK = threading.Lock()


def waits_of(locks: Sequence[LockRow]) -> tuple[LockWait, ...]:
    """:func:`lock_waits` of one read's rows, worked out once: the collector's thread does
    it when the rows arrive, and the views find it done."""
    with _WAITS_LOCK:
        found = _WAITS.get(id(locks))
    if found is not None and found[0] is locks:
        return found[1]
    waits = lock_waits(locks)
    with _WAITS_LOCK:
        if len(_WAITS) >= 8:
            _WAITS.pop(next(iter(_WAITS)))
        _WAITS[id(locks)] = (locks, waits)
    return waits


def wait_depths(waits_for: Mapping[int, Sequence[int]]) -> dict[int, tuple[int, bool]]:
    """(depth, in a cycle) of every transaction that waits: strongly connected components
    (Tarjan's, without recursion), then the longest path on the graph of components, in
    time linear in the waits.

    A transaction's depth is the number of waits on the longest chain from it; the
    transactions of a cycle (a deadlock) count as one chain through all of them, so each has
    the cycle's size less one, plus the deepest chain that leaves the cycle."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    component: dict[int, int] = {}
    sizes: list[int] = []
    stack: list[int] = []
    on_stack: set[int] = set()
    for root in waits_for:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            nexts = waits_for.get(node, ())
            if i < len(nexts):
                work.append((node, i + 1))
                nxt = nexts[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                members = 0
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = len(sizes)
                    members += 1
                    if member == node:
                        break
                sizes.append(members)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    # Tarjan's components come out in reverse topological order: every component a
    # transaction waits for is numbered before its own.
    members_of: list[list[int]] = [[] for _ in sizes]
    for node, c in component.items():
        members_of[c].append(node)
    depth = [0] * len(sizes)
    for c, members in enumerate(members_of):
        leaving = max((depth[component[nxt]] + 1 for node in members
                       for nxt in waits_for.get(node, ()) if component[nxt] != c), default=0)
        depth[c] = sizes[c] - 1 + leaving
    return {node: (depth[c], sizes[c] > 1) for node, c in component.items()
            if node in waits_for}


MAX_CHAIN = 16
"""Transactions a chain names at most (the depth says how long it is): a queue of 1,000 on
one row must not name 500,000."""

CHAIN_ENDS = ("holder", "deadlock", "not read", "long")
"""How a chain ends: at a transaction that waits for nothing (the root holder); where a
cycle of waits closes (a deadlock: its last transaction is named before); at a wait whose
lock was not read (the read's row limit or a node's scan left it out); or cut at
:data:`MAX_CHAIN`."""


@dataclass(frozen=True)
class Chain:
    """The transactions from a waiter to the end of its chain, following the first holder
    of each, and how it ends (one of :data:`CHAIN_ENDS`)."""

    transids: tuple[int, ...]
    end: str


def first_holders(waits: Iterable[LockWait]) -> dict[int, int | None]:
    """Each waiting transaction's first holder (None: none of its waits' locks was read):
    what :func:`chain_of` follows."""
    first: dict[int, int | None] = {}
    for w in waits:
        if first.get(w.waiter) is None:
            first[w.waiter] = w.holder
    return first


def chain_of(wait: LockWait, first: Mapping[int, int | None]) -> Chain:
    """The chain from ``wait``'s waiter (``first``: :func:`first_holders` of the read's
    waits), at most :data:`MAX_CHAIN` transactions."""
    chain = [wait.waiter]
    seen = {wait.waiter}
    nxt = wait.holder
    while nxt is not None:
        if nxt in seen:
            return Chain((*chain, nxt), "deadlock")
        if len(chain) >= MAX_CHAIN:
            return Chain(tuple(chain), "long")
        chain.append(nxt)
        seen.add(nxt)
        if nxt not in first:
            return Chain(tuple(chain), "holder")
        nxt = first[nxt]
    return Chain(tuple(chain), "not read")


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

    def grow(holder: int | None) -> None:
        # Depth first, the transactions on the path from the root kept in one set: a wait
        # whose waiter is on it closes a cycle. Each wait is drawn once: linear in the waits.
        path = set() if holder is None else {holder}
        stack: list[tuple[LockWait, int] | int] = [
            (w, 1) for w in reversed(under.get(holder, ()))]
        while stack:
            item = stack.pop()
            if isinstance(item, int):
                path.discard(item)  # every wait below this waiter is drawn
                continue
            w, depth = item
            if id(w) in shown:
                continue
            shown.add(id(w))
            closes = w.waiter in path
            lines.append(TreeLine(depth, w.waiter, w, closes))
            if not closes:
                path.add(w.waiter)
                stack.append(w.waiter)
                stack.extend((c, depth + 1) for c in reversed(under.get(w.waiter, ())))

    roots = [h for h in under if h is None or h not in waiting]
    for root in sorted(roots, key=lambda h: (h is None, h or 0)):
        lines.append(TreeLine(0, root))
        grow(root)
    for w in waits:
        if id(w) not in shown and w.holder is not None:
            lines.append(TreeLine(0, w.holder, deadlock=True))
            grow(w.holder)
    return tuple(lines)
