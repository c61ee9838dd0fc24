"""The numbers ndbinfo rows carry: block numbers, counter ids, node status, and the
simulated processes' pids and thread ids."""

from __future__ import annotations

from ndbtop.sim.cluster.datanode import SINGLE_USER, STARTED

BLOCK_NUMBERS = {
    "BACKUP": 244,
    "DBTC": 245,
    "DBDIH": 246,
    "DBLQH": 247,
    "DBACC": 248,
    "DBTUP": 249,
    "DBDICT": 250,
    "NDBCNTR": 251,
    "QMGR": 252,
    "NDBFS": 253,
    "CMVMI": 254,
    "TRIX": 255,
    "DBUTIL": 256,
    "SUMA": 257,
    "DBTUX": 258,
    "TSMAN": 259,
    "LGMAN": 260,
    "PGMAN": 261,
    "RESTORE": 262,
    "DBINFO": 263,
    "DBSPJ": 264,
    "THRMAN": 265,
    "TRPMAN": 266,
    "DBQLQH": 267,
    "DBQACC": 268,
    "DBQTUP": 269,
    "DBQTUX": 270,
    "QBACKUP": 271,
    "QRESTORE": 272,
}

# counters.counter_id of the DBTC counters, and OPERATIONS of DBLQH (ndbinfo.md 2.5).
COUNTER_IDS = {
    "ATTRINFO": 1,
    "TRANSACTIONS": 2,
    "COMMITS": 3,
    "READS": 4,
    "SIMPLE_READS": 5,
    "WRITES": 6,
    "ABORTS": 7,
    "TABLE_SCANS": 8,
    "RANGE_SCANS": 9,
    "OPERATIONS": 10,
    "LOCAL_READS": 24,
    "LOCAL_WRITES": 25,
}

STATUS_NUMBER = {STARTED: 3, SINGLE_USER: 4}
STATUS_NAME = {STARTED: "STARTED", SINGLE_USER: "SINGLEUSER"}
LOG_BUFFER_BYTES = 16 * 1024 * 1024
LONG_MESSAGE_PAGES = 16384


def process_id(node_id: int) -> int:
    """The simulated operating-system pid of a node's process."""
    return 20000 + node_id * 100


def thread_tid(node_id: int, thr_no: int) -> int:
    """The simulated operating-system thread id of a data node thread."""
    return process_id(node_id) + 1 + thr_no
