"""Lock waits built into chains from ``cluster_locks`` rows (ndbinfo.md §2.7: ``waiting_for``
is the ``lock_num`` of the operation queued before the waiter on the same LDM instance;
``lock_num`` is ACC's operation id, unique per block instance only)."""

from __future__ import annotations

from ndbtop.model.locks import (
    Chain,
    LockRow,
    Transaction,
    chain_of,
    first_holders,
    lock_waits,
    oldest,
    wait_tree,
)


def lock(transid: int, state: str, num: int, waiting_for: int | None = None, *, node: int = 1,
         instance: int = 1, millis: int = 100, table: int = 17) -> LockRow:
    return LockRow(node, instance, table, 3, 0x10F2, transid, "X", state, "UPDATE", millis, num,
                   waiting_for, "shop/def/orders")


def test_a_chain_three_deep_gives_each_waiter_its_depth_and_the_root_holder() -> None:
    rows = [lock(1, "H", 10), lock(2, "W", 11, 10), lock(2, "H", 20, node=2),
            lock(3, "W", 21, 20, node=2), lock(3, "H", 30), lock(4, "W", 31, 30)]
    waits = lock_waits(rows)
    assert [(w.waiter, w.holder, w.depth, w.cycle) for w in waits] == [
        (4, 3, 3, False), (3, 2, 2, False), (2, 1, 1, False)]
    assert chain_of(waits[0], first_holders(waits)) == Chain((4, 3, 2, 1), "holder")
    tree = wait_tree(waits)
    assert [(line.level, line.transid) for line in tree] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert tree[0].wait is None and not any(line.deadlock for line in tree)


def test_the_same_lock_num_on_another_node_or_instance_is_another_lock() -> None:
    # Lock 10 exists on node 1 instance 1 (transaction 1) and node 2 instance 1 (transaction 9):
    # the waiter on node 2 waits for transaction 9 only.
    rows = [lock(1, "H", 10), lock(9, "H", 10, node=2), lock(5, "W", 11, 10, node=2),
            lock(6, "W", 11, 10, instance=2)]
    waits = {w.waiter: w for w in lock_waits(rows)}
    assert waits[5].holder == 9
    assert waits[6].holder is None  # instance 2 has no lock 10: its holder was not read


def test_a_deadlock_cycle_ends_where_it_closes() -> None:
    rows = [lock(1, "H", 10), lock(2, "H", 20), lock(1, "W", 21, 20), lock(2, "W", 11, 10),
            lock(3, "W", 12, 11)]
    waits = lock_waits(rows)
    by = {w.waiter: w for w in waits}
    assert by[1].cycle and by[2].cycle and not by[3].cycle
    assert by[1].depth == 1 and by[3].depth == 2
    assert chain_of(by[3], first_holders(waits)) == Chain((3, 2, 1, 2), "deadlock")
    tree = wait_tree(waits)
    # Every wait once; the cycle has no root, so it starts at a member, marked a deadlock.
    assert sorted(line.transid for line in tree if line.wait is not None) == [1, 2, 3]
    assert any(line.wait is None and line.deadlock for line in tree)
    assert any(line.wait is not None and line.deadlock for line in tree)


def test_a_long_cycle_of_many_transactions_does_not_loop() -> None:
    n = 500
    rows = [lock(k, "H", k * 10) for k in range(n)]
    rows += [lock(k, "W", k * 10 + 1, ((k + 1) % n) * 10) for k in range(n)]
    waits = lock_waits(rows)
    assert len(waits) == n and all(w.cycle for w in waits)
    assert len([line for line in wait_tree(waits) if line.wait is not None]) == n


def test_a_waiter_queued_behind_its_own_lock_waits_for_no_one() -> None:
    waits = lock_waits([lock(7, "H", 10), lock(7, "W", 11, 10)])
    assert waits[0].holder is None and waits[0].depth == 0


def test_the_oldest_transaction_is_the_longest_idle() -> None:
    old = Transaction(2, 1, (1 << 64) - 1, "Started", 12, 0, 612, 50, 41)
    young = Transaction(3, 1, 5, "Started", 1, 0, 14, 51)
    assert oldest((young, old)) is old and oldest(()) is None


def test_a_sample_with_transactions_and_locks_is_recorded_and_read_back() -> None:
    from ndbtop.model.ndbinfo import NdbinfoSample
    from ndbtop.record.codec import decode, encode

    sample = NdbinfoSample(
        taken_at=5.0, ndb_version=None, txn_age_s=30,
        transactions=(Transaction(2, 1, (1 << 64) - 1, "Started", 12, 0, 601, 50, 41),),
        locks=(lock((1 << 64) - 1, "H", 10), lock(3, "W", 11, 10)))
    assert decode(encode(sample)) == sample
