"""The limits of the transactions and locks reads are said, never passed off as the whole.

The queries read one row more than is kept (``LIMIT 201``, ``LIMIT 1001``): with 100,000
idle transactions the header says "the first 200 of at least 201", with 10,004 lock waits
that the 1,000 lock rows are the first of more, and a chain the limit cut (a deadlock of
10,000 transactions) is marked cut, not shown as ending at an unknown holder. The rows
enter where the SQL node's answer becomes a sample (:func:`ndbtop.ndbinfo.panels.build_sample`).
"""

from __future__ import annotations

from typing import Any

from ndbtop.model.locks import MAX_LOCKS, MAX_TRANSACTIONS, LockRow, Transaction
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ndbinfo.panels import build_sample
from ndbtop.ndbinfo.statements import Tally
from ndbtop.report.locks import locks_json, locks_text
from tests.findings.test_rules_server_words import NOW, snap

READ = (("transactions", NOW), ("locks", NOW))


def sampled(transactions: tuple[Transaction, ...] = (), locks: tuple[LockRow, ...] = ()
            ) -> ClusterSnapshot:
    """The snapshot of what the SQL node answered (at most the LIMIT of each query)."""
    answer = {"transactions": transactions[:MAX_TRANSACTIONS + 1],
              "locks": locks[:MAX_LOCKS + 1]}
    return snap(ndbinfo=build_sample(NOW, None, answer, {}, set(), 10, READ, Tally()))


def idle(n: int) -> tuple[Transaction, ...]:
    return tuple(Transaction(2, 1, k, "Started", 1, 0, 100_000 - k, 50) for k in range(n))


def row(transid: int, state: str, num: int, waiting_for: int | None = None) -> LockRow:
    return LockRow(2, 1, 17, 0, num, transid, "X", state, "UPDATE", 900, num, waiting_for,
                   "shop/def/orders")


def deadlock(n: int) -> tuple[LockRow, ...]:
    """``n`` transactions each waiting for the next one's row, as cluster_locks orders them
    (duration, node, lock_num): the LIMIT keeps the first rows only."""
    rows = [row(k, "H", 2 * k) for k in range(n)]
    rows += [row(k, "W", 2 * k + 1, 2 * ((k + 1) % n)) for k in range(n)]
    return tuple(sorted(rows, key=lambda r: r.lock_num))


def test_100000_idle_transactions_are_the_first_200_of_at_least_201() -> None:
    s = sampled(idle(100_000))
    text = "\n".join(locks_text(s))
    assert ("Transactions idle 10 s or more (ndbinfo.cluster_transactions, read 0 s ago): "
            "the first 200 of at least 201") in text
    report = locks_json(s)
    assert len(report["transactions"]) == 200
    assert report["locks_read"]["transactions_at_least"] == 201


def test_200_idle_transactions_are_200() -> None:
    s = sampled(idle(200))
    assert "read 0 s ago): 200\n" in "\n".join(locks_text(s)) + "\n"
    assert locks_json(s)["locks_read"]["transactions_at_least"] is None


def test_10004_lock_waits_say_the_rows_read_are_the_first_of_more() -> None:
    rows = (row(1, "H", 1), *(row(10 + k, "W", 10 + k, 1) for k in range(10_004)))
    s = sampled(locks=rows)
    text = "\n".join(locks_text(s))
    assert ("Lock waits (ndbinfo.cluster_locks, read 0 s ago): 999 (in the first 1000 of at "
            "least 1001 lock rows: chains may be cut), deepest chain 1") in text
    assert locks_json(s)["locks_read"]["lock_rows_at_least"] == 1001


def chains(s: ClusterSnapshot) -> dict[int, dict[str, Any]]:
    return {w["waiter_transid"]: w for w in locks_json(s)["lock_waits"]}


def test_a_deadlock_cut_by_the_limit_is_marked_cut_not_ending() -> None:
    s = sampled(locks=deadlock(10_000))
    waits = chains(s)
    # The 1,000 rows kept, by lock_num: holders 0..499 and waiters 0..499. Waiter 499 waits
    # for 500, whose lock (1000) the limit left out: every chain ends there, cut.
    assert waits[499]["holder_transid"] is None and waits[499]["chain_end"] == "cut"
    assert waits[498]["chain"] == [498, 499] and waits[498]["chain_end"] == "cut"
    assert waits[0]["chain"] == list(range(16)) and waits[0]["chain_end"] == "long"
    text = "\n".join(locks_text(s))
    assert "498 -> 499 -> … (cut: lock rows past the first 1000 not read)" in text
    whole = chains(sampled(locks=deadlock(10)))
    assert whole[0]["chain"] == [*range(10), 0] and whole[0]["chain_end"] == "deadlock"
    assert all(w["deadlock"] and w["depth"] == 9 for w in whole.values())


def test_a_lock_not_read_without_the_limit_is_a_question_mark() -> None:
    s = sampled(locks=(row(5, "W", 11, 10),))
    (wait,) = locks_json(s)["lock_waits"]
    assert wait["chain"] == [5] and wait["chain_end"] == "not read"
    assert "5 -> ?" in "\n".join(locks_text(s))


async def test_the_locks_view_says_the_chains_are_cut_and_how_much_it_shows() -> None:
    # A widget is made: Python 3.9's asyncio needs the running loop a coroutine test has.
    from ndbtop.model.locks_read import locks_read
    from ndbtop.tui.views.locks import MAX_SHOWN, LocksView

    s = sampled(locks=deadlock(10_000))
    lines = LocksView()._waits(s, locks_read(s)).plain.splitlines()
    assert "(in the first 1000 of at least 1001 lock rows: chains may be cut)" in lines[0]
    assert lines[1] == "cut: lock rows past the first 1000 not read"
    assert lines[-1] == f"… the first {MAX_SHOWN} lines of 501 shown (/ filters them)"
    assert len(lines) == 1 + MAX_SHOWN + 1
