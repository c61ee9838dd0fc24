"""Open transactions and their row locks in the simulated cluster.

A scenario puts transactions here (none by default); the simulated SQL node serves them as
``cluster_transactions``, ``server_transactions`` and ``cluster_locks`` (ndbinfo.md §2.7).
Each transaction has a coordinator (TC) on one data node; each lock lives in the LDM of
the data node holding the row's fragment, where ``lock_num`` is that LDM's operation id.

A lock wait does not last: the coordinator aborts a transaction that waited
TransactionDeadlockDetectionTimeout (1,200 ms by default) with error 266. A waiter here is
an application that retries at once, so its wait starts again every 1.2 s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ndbtop.model.locks import DEADLOCK_TIMEOUT_MS

TABLES = (
    (17, "shop/def/orders"),
    (18, "shop/def/stock"),
    (19, "shop/def/customers"),
    (20, "shop/def/payments"),
    (21, "sys/def/17/order_ref$unique"),
)
"""(table id, ``dict_obj_info.fq_name``) of the simulated tables locks are taken on: four
user tables (type 2) and a unique hash index of ``orders`` (type 3)."""


@dataclass(frozen=True)
class SimLock:
    """A row lock held or waited for."""

    node_id: int
    """The data node whose LDM holds the fragment."""
    block_instance: int
    table_id: int
    fragment_id: int
    row_id: int
    lock_num: int
    since: float
    """Simulated time the lock was granted or the wait began."""
    exclusive: bool = True
    op: str = "UPDATE"
    waiting_for: int | None = None
    """The ``lock_num`` queued before this one (same node and instance): a wait."""


@dataclass(frozen=True)
class SimTransaction:
    """A transaction open at its coordinator."""

    transid: int
    tc_node: int
    tc_instance: int
    api_node: int
    last_active: float
    """Simulated time of its last operation (``inactive_seconds`` counts from it)."""
    operations: int
    state: str = "Started"
    locks: tuple[SimLock, ...] = ()
    mysql_connection_id: int | None = None
    """Its MySQL connection when the simulated SQL node runs it."""
    period: float = 0.0
    """Seconds after which its client's next operation (or its next transaction, under the
    same transid here) makes it active again; 0: idle for good."""


def transid(api_node: int, counter: int, slot: int = 1) -> int:
    """A 64-bit transid: the high word names the Ndb object that runs it (one per MySQL
    connection: ``server_transactions`` joins on ``transid >> 32``, ndbinfo.md §2.7), here
    the API node and a slot; the low word counts its transactions."""
    return (((api_node & 0xFF) << 16 | (slot & 0xFFFF)) << 32) | (counter & 0xFFFFFFFF)


def lock_chain(data_nodes: tuple[int, ...], sql_node: int, api_node: int, now: float
               ) -> list[SimTransaction]:
    """A transaction idle for ten minutes holding a row of ``orders``; a chain of three
    waits behind it (T2 waits for T1's row, T3 for T2's row of ``stock``, T4 for T3's row
    of ``payments``), each retried as it times out; transactions whose clients come back
    now and then, idle up to 50 s, and some younger than 10 s."""
    n1, n2 = data_nodes[0], data_nodes[1 % len(data_nodes)]
    retry = DEADLOCK_TIMEOUT_MS / 1000.0
    t1, t2, t3, t4 = (transid(node, c) for node, c in (
        (sql_node, 0x2A01), (api_node, 0x51F3), (api_node, 0x51F7), (sql_node, 0x2A44)))
    held1 = SimLock(n1, 1, 17, 3, 0x10F2, 7001, now - 600.0)
    held2 = SimLock(n2, 2, 18, 6, 0x03A9, 7102, now - 2.0)
    held3 = SimLock(n1, 1, 20, 1, 0x0771, 7033, now - 1.5)
    out = [
        SimTransaction(t1, n1, 1, sql_node, now - 600.0, 12, "Started",
                       (held1, SimLock(n1, 1, 21, 3, 0x10F2, 7002, now - 600.0)),
                       mysql_connection_id=41),
        SimTransaction(t2, n2, 1, api_node, now - 0.9, 4, "Started",
                       (held2, SimLock(n1, 1, 17, 3, 0x10F2, 7010, now - 0.9,
                                       waiting_for=held1.lock_num)), period=retry),
        SimTransaction(t3, n1, 2, api_node, now - 0.6, 2, "Started",
                       (held3, SimLock(n2, 2, 18, 6, 0x03A9, 7110, now - 0.6,
                                       waiting_for=held2.lock_num)), period=retry),
        SimTransaction(t4, n2, 2, sql_node, now - 0.3, 1, "Started",
                       (SimLock(n1, 1, 20, 1, 0x0771, 7040, now - 0.3, False, "READ",
                                waiting_for=held3.lock_num),),
                       mysql_connection_id=57, period=retry),
    ]
    for k, (idle, period, state, ops) in enumerate((
            (40.0, 50.0, "Started", 3), (14.0, 20.0, "Receiving", 1), (22.0, 30.0, "Started", 6),
            (4.0, 8.0, "Started", 2), (0.5, 2.0, "Committing", 9))):
        node = data_nodes[k % len(data_nodes)]
        out.append(SimTransaction(transid(api_node, 0x6000 + k), node, 1, api_node,
                                  now - idle, ops, state, period=period))
    return out


def many(data_nodes: tuple[int, ...], api_nodes: tuple[int, ...], count: int, seed: int,
         now: float) -> list[SimTransaction]:
    """``count`` transactions of a busy cluster, idle 0 to 30 s, four row locks each, one
    in a hundred waiting for the previous transaction's lock (for the cost of a read)."""
    rng = random.Random(seed)
    out: list[SimTransaction] = []
    nums: dict[tuple[int, int], int] = {}
    for k in range(count):
        api = api_nodes[k % len(api_nodes)]
        locks = []
        for _ in range(4):
            node = rng.choice(data_nodes)
            instance = rng.randrange(1, 5)
            nums[(node, instance)] = nums.get((node, instance), 0) + 1
            table, _name = rng.choice(TABLES)
            locks.append(SimLock(node, instance, table, rng.randrange(16), rng.randrange(1 << 20),
                                 nums[(node, instance)], now - rng.uniform(0, 5)))
        if out and k % 100 == 0:
            before = out[-1].locks[0]
            nums[(before.node_id, before.block_instance)] += 1
            locks.append(SimLock(before.node_id, before.block_instance, before.table_id,
                                 before.fragment_id, before.row_id,
                                 nums[(before.node_id, before.block_instance)],
                                 now - rng.uniform(0, 1), waiting_for=before.lock_num))
        out.append(SimTransaction(transid(api, k + 1), rng.choice(data_nodes), rng.randrange(1, 3),
                                  api, now - rng.uniform(0, 30), rng.randrange(1, 40),
                                  locks=tuple(locks), period=30.0))
    return out
