"""Rows of the lookup tables the SQL node fills itself (no data node involved).

Sources, all in mysql/mysql-server ``storage/ndb``:

* ``blocks``: ``src/common/debugger/BlockNames.cpp`` for the rows and their
  order, ``include/kernel/BlockNumbers.h`` for the numbers; the query-thread
  blocks (DBQLQH ... V_QUERY, listed as in the newest copy read) exist from 8.0.23.
* ``dict_obj_types``: ``DictObjTypesTable`` in ``src/ndbapi/NdbInfoScanVirtual.cpp``,
  whose ids are ``DictTabInfo::TableType`` values (``signaldata/DictTabInfo.hpp``).
* ``ndb$dbtc_apiconnect_state`` / ``ndb$dblqh_tcconnect_state``:
  ``DbtcStateDesc.cpp`` / ``DblqhStateDesc.cpp`` with the enum values of
  ``Dbtc::ConnectionState`` / ``Dblqh::TcConnectionrec::TransactionState``.
* ``config_params`` and ``error_messages``: only a few real rows, those quoted
  by mysql-test ``ndbinfo.result`` and ``ConfigInfo.cpp``. The real tables hold
  every data node parameter and over 700 error codes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ndbtop.sim.sqlnode.provider import Row

_QUERY_THREADS_SINCE = (8 << 16) | (0 << 8) | 23
_NDB_8_0 = 8 << 16

_BLOCKS: tuple[tuple[int, str], ...] = (
    (254, "CMVMI"),
    (248, "DBACC"),
    (250, "DBDICT"),
    (246, "DBDIH"),
    (247, "DBLQH"),
    (245, "DBTC"),
    (249, "DBTUP"),
    (253, "NDBFS"),
    (251, "NDBCNTR"),
    (252, "QMGR"),
    (255, "TRIX"),
    (244, "BACKUP"),
    (256, "DBUTIL"),
    (257, "SUMA"),
    (258, "DBTUX"),
    (259, "TSMAN"),
    (260, "LGMAN"),
    (261, "PGMAN"),
    (262, "RESTORE"),
    (263, "DBINFO"),
    (264, "DBSPJ"),
    (265, "THRMAN"),
    (266, "TRPMAN"),
)

_QUERY_BLOCKS: tuple[tuple[int, str], ...] = (
    (267, "DBQLQH"),
    (268, "DBQACC"),
    (269, "DBQTUP"),
    (270, "DBQTUX"),
    (271, "QBACKUP"),
    (272, "QRESTORE"),
    (273, "V_QUERY"),
)

_DICT_OBJ_TYPES: tuple[tuple[int, str], ...] = (
    (1, "System table"),
    (2, "User table"),
    (3, "Unique hash index"),
    (4, "Hash index"),
    (5, "Unique ordered index"),
    (6, "Ordered index"),
    (11, "Hash index trigger"),
    (16, "Subscription trigger"),
    (17, "Read only constraint"),
    (18, "Index trigger"),
    (19, "Reorganize trigger"),
    (20, "Tablespace"),
    (21, "Log file group"),
    (22, "Data file"),
    (23, "Undo file"),
    (24, "Hash map"),
    (25, "Foreign key definition"),
    (26, "Foreign key parent trigger"),
    (27, "Foreign key child trigger"),
    (30, "Schema transaction"),
)

_TC_STATES: tuple[tuple[int, str, str, str], ...] = (
    (0, "CS_CONNECTED", "Connected", "An allocated idle transaction object"),
    (1, "CS_DISCONNECTED", "Disconnected", "An unallocated connection object"),
    (2, "CS_STARTED", "Started", "A started transaction"),
    (3, "CS_RECEIVING", "Receiving", "A transaction receiving operations"),
    (7, "CS_RESTART", "", ""),
    (8, "CS_ABORTING", "Aborting", "A transaction aborting"),
    (9, "CS_COMPLETING", "Completing", "A transaction completing"),
    (10, "CS_COMPLETE_SENT", "Completing", "A transaction completing"),
    (11, "CS_PREPARE_TO_COMMIT", "", ""),
    (12, "CS_COMMIT_SENT", "Committing", "A transaction committing"),
    (13, "CS_START_COMMITTING", "", ""),
    (14, "CS_COMMITTING", "Committing", "A transaction committing"),
    (15, "CS_REC_COMMITTING", "", ""),
    (16, "CS_WAIT_ABORT_CONF", "Aborting", ""),
    (17, "CS_WAIT_COMPLETE_CONF", "Completing", ""),
    (18, "CS_WAIT_COMMIT_CONF", "Committing", ""),
    (19, "CS_FAIL_ABORTING", "TakeOverAborting", ""),
    (20, "CS_FAIL_ABORTED", "TakeOverAborting", ""),
    (21, "CS_FAIL_PREPARED", "", ""),
    (22, "CS_FAIL_COMMITTING", "TakeOverCommitting", ""),
    (23, "CS_FAIL_COMMITTED", "TakeOverCommitting", ""),
    (24, "CS_FAIL_COMPLETED", "TakeOverCompleting", ""),
    (25, "CS_START_SCAN", "Scanning", ""),
    (26, "CS_SEND_FIRE_TRIG_REQ", "Precomitting", ""),
    (27, "CS_WAIT_FIRE_TRIG_REQ", "Precomitting", ""),
)

_LQH_STATES: tuple[tuple[int, str, str, str], ...] = (
    (0, "IDLE", "Idle", ""),
    (1, "WAIT_ACC", "WaitLock", ""),
    (2, "WAIT_TUPKEYINFO", "", ""),
    (3, "WAIT_ATTR", "WaitData", ""),
    (4, "WAIT_TUP", "WaitTup", ""),
    (6, "LOG_QUEUED", "LogPrepare", ""),
    (7, "PREPARED", "Prepared", ""),
    (8, "LOG_COMMIT_WRITTEN_WAIT_SIGNAL", "", ""),
    (9, "LOG_COMMIT_QUEUED_WAIT_SIGNAL", "", ""),
    (11, "LOG_COMMIT_QUEUED", "Committing", ""),
    (12, "COMMIT_QUEUED", "Committing", ""),
    (13, "COMMITTED", "Committed", ""),
    (35, "WAIT_TUP_COMMIT", "Committing", ""),
    (14, "WAIT_ACC_ABORT", "Aborting", ""),
    (15, "ABORT_QUEUED", "Aborting", ""),
    (17, "WAIT_AI_AFTER_ABORT", "Aborting", ""),
    (18, "LOG_ABORT_QUEUED", "Aborting", ""),
    (19, "WAIT_TUP_TO_ABORT", "Aborting", ""),
    (20, "WAIT_SCAN_AI", "Scanning", ""),
    (21, "SCAN_STATE_USED", "Scanning", ""),
    (30, "SCAN_TUPKEY", "Scanning", ""),
    (31, "COPY_TUPKEY", "NodeRecoveryScanning", ""),
    (32, "TC_NOT_CONNECTED", "Idle", ""),
    (33, "PREPARED_RECEIVED_COMMIT", "Committing", ""),
    (34, "LOG_COMMIT_WRITTEN", "Committing", ""),
)

_ERROR_MESSAGES: tuple[tuple[int, str, str, str], ...] = (
    (920, "Row operation defined after refreshTuple()", "Permanent error", "Application error"),
    (
        2304,
        "Array index out of range",
        "Temporary error, restart node",
        "Internal error, programming error or missing error message, please report a bug",
    ),
    (5001, "", "Usage error", ""),
)


def _blocks(ndb_version: int) -> Sequence[Row]:
    if ndb_version >= _QUERY_THREADS_SINCE:
        return _BLOCKS + _QUERY_BLOCKS
    return _BLOCKS


def _config_params(ndb_version: int) -> Sequence[Row]:
    data_memory_max = "17592186044416" if ndb_version >= _NDB_8_0 else "1099511627776"
    return (
        (
            101,
            "NoOfReplicas",
            "Number of copies of all data in the database (1-4)",
            "unsigned",
            "2",
            "1",
            "4",
            0,
            "",
        ),
        (
            106,
            "MaxNoOfConcurrentTransactions",
            "Max number of transaction executing concurrently on the ndbd(DB) node",
            "unsigned",
            "4096",
            "32",
            "4294967039",
            0,
            "",
        ),
        (
            112,
            "DataMemory",
            "Number bytes on each ndbd(DB) node allocated for storing data",
            "unsigned",
            "102760448",
            "1048576",
            data_memory_max,
            0,
            "",
        ),
    )


_BUILT_IN: dict[str, Callable[[int], Sequence[Row]]] = {
    "blocks": _blocks,
    "config_params": _config_params,
    "dict_obj_types": lambda _version: _DICT_OBJ_TYPES,
    "error_messages": lambda _version: _ERROR_MESSAGES,
    "ndb$dbtc_apiconnect_state": lambda _version: _TC_STATES,
    "ndb$dblqh_tcconnect_state": lambda _version: _LQH_STATES,
}


def built_in_rows(table: str, ndb_version: int) -> Sequence[Row] | None:
    """The SQL node's own rows for a lookup table, or ``None`` for any other table."""
    rows = _BUILT_IN.get(table)
    return None if rows is None else rows(ndb_version)
