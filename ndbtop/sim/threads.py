"""Thread layouts of simulated ndbmtd data nodes, and the blocks each thread runs.

Layouts follow ``mt_thr_config.cpp``: ``MaxNoOfExecutionThreads`` (classic
configuration) and the automatic thread configuration of 8.0.23+. Thread
numbers: main 0, rep 1, then ldm, query, tc and recv threads; send threads are
numbered after every block thread and run no blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS

DESCRIPTIONS = {
    "main": "main thread, schema and distribution handling",
    "rep": "rep thread, asynch replication and proxy block handling",
    "ldm": "ldm thread, handling a set of data partitions",
    "recv": "receive thread, performing receive and polling for new receives",
    "send": "Send thread",
    "tc": "tc thread",
    "query": "query thread",
}

MAIN_BLOCKS = ("DBTC", "DBDIH", "DBDICT", "NDBCNTR", "QMGR", "NDBFS", "TRIX", "DBUTIL", "DBSPJ")
REP_BLOCKS = (
    "BACKUP",
    "DBLQH",
    "DBACC",
    "DBTUP",
    "SUMA",
    "DBTUX",
    "TSMAN",
    "LGMAN",
    "PGMAN",
    "RESTORE",
    "DBINFO",
)
LDM_BLOCKS = ("DBLQH", "DBACC", "DBTUP", "DBTUX", "BACKUP", "RESTORE", "PGMAN")
QUERY_BLOCKS = ("DBQLQH", "DBQACC", "DBQTUP", "DBQTUX", "QBACKUP", "QRESTORE")
TC_BLOCKS = ("DBTC", "DBSPJ")
RECV_BLOCKS = ("CMVMI", "TRPMAN")


@dataclass(frozen=True, **SLOTS)
class ThreadSpec:
    """One thread of a data node: number, type name, description and (block, instance) pairs."""

    thr_no: int
    name: str
    description: str
    blocks: tuple[tuple[str, int], ...]
    instance: int
    """1-based index among the threads of the same type (ldm 1..n, tc 1..n...)."""


# MaxNoOfExecutionThreads >= 9: (ldm, tc, send, recv), reference section 4.3.
_CLASSIC_TABLE = {
    9: (4, 2, 0, 1),
    10: (4, 2, 1, 1),
    11: (4, 3, 1, 1),
    12: (6, 2, 1, 1),
    13: (6, 3, 1, 1),
    14: (6, 3, 1, 2),
    15: (6, 3, 2, 2),
    16: (8, 3, 1, 2),
    17: (8, 4, 1, 2),
    18: (8, 4, 2, 2),
    19: (8, 5, 2, 2),
    20: (10, 4, 2, 2),
    21: (10, 5, 2, 2),
    22: (10, 5, 2, 3),
    23: (10, 6, 2, 3),
    24: (12, 5, 2, 3),
    25: (12, 6, 2, 3),
    26: (12, 6, 3, 3),
    27: (12, 7, 3, 3),
    28: (12, 7, 3, 4),
    29: (12, 8, 3, 4),
    30: (12, 8, 4, 4),
    31: (12, 9, 4, 4),
    32: (16, 7, 4, 3),
    33: (16, 7, 4, 4),
    34: (16, 8, 4, 4),
    35: (16, 9, 4, 4),
    36: (16, 10, 4, 4),
    37: (16, 10, 4, 5),
    38: (16, 11, 4, 5),
    39: (16, 12, 4, 5),
    40: (20, 10, 4, 4),
    41: (20, 10, 4, 5),
    42: (20, 11, 4, 5),
    43: (20, 11, 5, 5),
    44: (20, 12, 5, 5),
    45: (20, 12, 5, 6),
    46: (20, 13, 5, 6),
    47: (20, 14, 5, 6),
    48: (24, 11, 6, 5),
    49: (24, 11, 6, 6),
    50: (24, 12, 6, 6),
    51: (24, 13, 6, 6),
    52: (24, 14, 6, 6),
    53: (24, 14, 6, 7),
    54: (24, 15, 6, 7),
    55: (24, 16, 6, 7),
    56: (24, 17, 6, 7),
    57: (24, 18, 6, 8),
    58: (24, 19, 6, 8),
    59: (24, 17, 8, 8),
    60: (24, 18, 8, 8),
    61: (24, 18, 8, 9),
    62: (24, 19, 8, 9),
    63: (24, 19, 9, 9),
    64: (32, 15, 8, 7),
    65: (32, 15, 8, 8),
    66: (32, 16, 8, 8),
    67: (32, 17, 8, 8),
    68: (32, 18, 8, 8),
    69: (32, 18, 8, 9),
    70: (32, 19, 8, 9),
    71: (32, 20, 8, 9),
    72: (32, 20, 8, 10),
}

# Automatic thread configuration, (lowest CPU count, (main, rep, ldm, query, tc, send, recv)).
_AUTO_TABLE = (
    (12, (1, 1, 3, 3, 2, 1, 1)),
    (14, (1, 1, 4, 4, 2, 1, 1)),
    (16, (1, 1, 4, 4, 2, 2, 2)),
    (18, (1, 1, 5, 5, 2, 2, 2)),
    (20, (1, 1, 5, 5, 3, 2, 3)),
    (22, (1, 1, 6, 6, 3, 2, 3)),
    (24, (1, 1, 6, 6, 4, 3, 3)),
    (26, (1, 1, 7, 7, 4, 3, 3)),
    (28, (1, 1, 8, 8, 4, 3, 3)),
    (30, (1, 1, 8, 8, 5, 3, 4)),
    (32, (1, 1, 9, 9, 5, 3, 4)),
    (36, (1, 1, 10, 10, 6, 4, 4)),
    (40, (1, 1, 12, 12, 6, 4, 4)),
    (44, (1, 1, 13, 13, 8, 4, 4)),
    (48, (1, 1, 14, 14, 8, 5, 5)),
    (52, (1, 1, 16, 16, 8, 5, 5)),
    (56, (1, 1, 17, 17, 9, 5, 6)),
    (60, (1, 1, 19, 19, 9, 5, 6)),
    (64, (1, 1, 20, 20, 10, 6, 6)),
)


def classic_counts(max_exec_threads: int) -> tuple[int, int, int, int]:
    """(ldm, tc, send, recv) for ``MaxNoOfExecutionThreads``."""
    if max_exec_threads <= 3:
        return 1, 0, 0, 1
    if max_exec_threads <= 6:
        return 2, 0, 0, 1
    if max_exec_threads <= 8:
        return 4, 0, 0, 1
    return _CLASSIC_TABLE[min(max_exec_threads, 72)]


def classic_layout(max_exec_threads: int) -> tuple[ThreadSpec, ...]:
    """Threads of an ndbmtd with ``MaxNoOfExecutionThreads`` set."""
    ldm, tc, send, recv = classic_counts(max_exec_threads)
    return build_layout(ldm=ldm, query=0, tc=tc, send=send, recv=recv)


def auto_layout(cpus: int) -> tuple[ThreadSpec, ...]:
    """Threads of an ndbmtd with ``AutomaticThreadConfig`` on a host of ``cpus`` CPUs (>= 12)."""
    if cpus < 12:
        raise ValueError("automatic layouts are modelled from 12 CPUs")
    counts = next(c for lo, c in reversed(_AUTO_TABLE) if cpus >= lo)
    _, _, ldm, query, tc, send, recv = counts
    return build_layout(ldm=ldm, query=query, tc=tc, send=send, recv=recv)


def build_layout(*, ldm: int, query: int, tc: int, send: int, recv: int) -> tuple[ThreadSpec, ...]:
    """Number the threads and place the blocks on them."""
    threads: list[ThreadSpec] = []

    def add(name: str, blocks: list[tuple[str, int]], instance: int) -> None:
        thr_no = len(threads)
        if name != "send":
            blocks = [*blocks, ("THRMAN", thr_no + 1)]
        threads.append(ThreadSpec(thr_no, name, DESCRIPTIONS[name], tuple(blocks), instance))

    main_blocks = [(b, 0) for b in MAIN_BLOCKS] + [("THRMAN", 0)]
    add("main", main_blocks, 1)
    rep_blocks = [(b, 0) for b in REP_BLOCKS] + [("PGMAN", ldm + 1)]
    add("rep", rep_blocks, 1)
    for i in range(1, ldm + 1):
        add("ldm", [(b, i) for b in LDM_BLOCKS], i)
    for i in range(1, query + 1):
        add("query", [(b, i) for b in QUERY_BLOCKS], i)
    for i in range(1, tc + 1):
        add("tc", [(b, i) for b in TC_BLOCKS], i)
    for i in range(1, recv + 1):
        add("recv", [(b, 0 if i == 1 else i) for b in RECV_BLOCKS], i)
    for i in range(1, send + 1):
        add("send", [], i)
    return tuple(threads)


def pgman_instances(layout: tuple[ThreadSpec, ...]) -> tuple[int, ...]:
    """PGMAN instances reporting in ``diskpagebuffer``: one per LDM thread plus the extra one."""
    return tuple(sorted({i for t in layout for b, i in t.blocks if b == "PGMAN" and i > 0}))
