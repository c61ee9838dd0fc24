"""Every cluster-log event type the management server knows, and how it is described.

Sources (mysql-server, 8.4-series tree): the type numbers from ``ndb_logevent.h``;
category, threshold level and severity from the ``matrix`` in ``EventLogger.cpp``;
the parsable body keys and the signal word each one prints from
``ndb_logevent_body`` in ``ndb_logevent.cpp``. A type without body keys is sent
as one ``data=<w1> <w2> ...`` line holding the raw signal words.

Word numbering follows the signal: word 0 is the header ``(node << 16) | type``
and the event's data starts at word 1, so a body key with word index 1 prints
``theData[1]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType

from ndbtop.compat import SLOTS


class Category(IntEnum):
    """Log-event categories, numbered as on the wire (``CFG_LOGLEVEL_*``, 250..262)."""

    STARTUP = 250
    SHUTDOWN = 251
    STATISTICS = 252
    CHECKPOINT = 253
    NODERESTART = 254
    CONNECTION = 255
    INFO = 256
    WARNING = 257
    ERROR = 258
    CONGESTION = 259
    DEBUG = 260
    BACKUP = 261
    SCHEMA = 262

    @property
    def filter_name(self) -> str | None:
        """The name ``listen event`` and ``CLUSTERLOG`` accept; WARNING has none (only 257)."""
        return None if self is Category.WARNING else self.name

    @property
    def loglevel_name(self) -> str:
        """The name ``get cluster loglevel`` prints (``startup`` ... ``schema``)."""
        return self.name.lower()

    @property
    def index(self) -> int:
        """Position in the server's ``LogLevel`` array (0..12)."""
        return self.value - Category.STARTUP.value


MIN_LOGLEVEL = 0
MAX_LOGLEVEL = 15
"""Levels a category can be set to (``NDB_MGM_MAX_LOGLEVEL``)."""


class Severity(IntEnum):
    """Cluster-log severities (``ndb_mgm_event_severity``); also the ``set logfilter`` index."""

    ON = 0
    DEBUG = 1
    INFO = 2
    WARNING = 3
    ERROR = 4
    CRITICAL = 5
    ALERT = 6
    ALL = 7

    @property
    def label(self) -> str:
        """The name as the cluster-log file prints it, padded to 8 characters."""
        return self.name.ljust(8)


class StartType(IntEnum):
    """``NodeState::StartType``, the ``starttype`` of StartPhaseCompleted."""

    INITIAL_START = 0
    SYSTEM_RESTART = 1
    NODE_RESTART = 2
    INITIAL_NODE_RESTART = 3
    SYSTEM_RESTART_NOT_RESTORABLE = 4
    ILLEGAL_TYPE = 5


START_TYPE_TEXTS: Mapping[int, str] = MappingProxyType(
    {
        StartType.INITIAL_START: "(initial start)",
        StartType.SYSTEM_RESTART: "(system restart)",
        StartType.NODE_RESTART: "(node restart)",
        StartType.INITIAL_NODE_RESTART: "(initial node restart)",
        StartType.ILLEGAL_TYPE: "",
    }
)
"""What ``Start phase %u completed %s`` puts after the phase; any other type prints
``(unknown = %d)`` instead (type 4 included)."""

START_TYPE_NAMES: Mapping[int, str] = MappingProxyType(
    {
        StartType.INITIAL_START: "initial start",
        StartType.SYSTEM_RESTART: "system restart",
        StartType.NODE_RESTART: "node restart",
        StartType.INITIAL_NODE_RESTART: "initial node restart",
        StartType.SYSTEM_RESTART_NOT_RESTORABLE: "system restart (not restorable)",
        StartType.ILLEGAL_TYPE: "illegal start type",
    }
)
"""Plain names of the start types, for display."""

CLUSTER_LOG_DEFAULT_LEVELS: Mapping[Category, int] = MappingProxyType(
    {
        c: {Category.ERROR: 15, Category.CONNECTION: 8, Category.BACKUP: 15}.get(c, 7)
        for c in Category
    }
)
"""The cluster-log levels a management server starts with (``MgmtSrvr`` constructor)."""


@dataclass(frozen=True, **SLOTS)
class EventSpec:
    """How one event type is classified and serialised.

    ``body`` holds the parsable keys in emission order with the signal word each
    prints; an empty ``body`` means the ``data=`` form. Keys listed in
    ``node_ref_keys`` print ``word & 0xFFFF`` (the node of a block reference).
    """

    type: int
    name: str
    category: Category
    threshold: int
    severity: Severity
    body: tuple[tuple[str, int], ...] = ()
    node_ref_keys: frozenset[str] = frozenset()

    @property
    def keys(self) -> tuple[str, ...]:
        """The parsable body keys in emission order."""
        return tuple(key for key, _ in self.body)

    @property
    def data_form(self) -> bool:
        """True when the parsable form is one ``data=`` line of raw words."""
        return not self.body


def _keys(*names: str, start: int = 1) -> tuple[tuple[str, int], ...]:
    return tuple((name, start + i) for i, name in enumerate(names))


_S, _CP, _NR, _ST, _CN = (
    Category.STARTUP,
    Category.CHECKPOINT,
    Category.NODERESTART,
    Category.STATISTICS,
    Category.CONNECTION,
)
_INFO, _ALERT, _WARN, _ERR = Severity.INFO, Severity.ALERT, Severity.WARNING, Severity.ERROR
_STARTING = frozenset({"starting_node"})

_SPECS = (
    # CONNECTION
    EventSpec(0, "Connected", _CN, 8, _INFO, _keys("node")),
    EventSpec(1, "Disconnected", _CN, 8, _ALERT, _keys("node")),
    EventSpec(2, "CommunicationClosed", _CN, 8, _INFO, _keys("node")),
    EventSpec(3, "CommunicationOpened", _CN, 8, _INFO, _keys("node")),
    EventSpec(51, "ConnectedApiVersion", _CN, 8, _INFO, _keys("node", "version")),
    # CHECKPOINT
    EventSpec(4, "GlobalCheckpointStarted", _CP, 9, _INFO, _keys("gci")),
    EventSpec(5, "GlobalCheckpointCompleted", _CP, 10, _INFO, _keys("gci")),
    EventSpec(6, "LocalCheckpointStarted", _CP, 7, _INFO, _keys("lci", "keep_gci", "restore_gci")),
    EventSpec(7, "LocalCheckpointCompleted", _CP, 7, _INFO, _keys("lci")),
    EventSpec(8, "LCPStoppedInCalcKeepGci", _CP, 0, _ALERT, _keys("data")),
    EventSpec(9, "LCPFragmentCompleted", _CP, 11, _INFO, _keys("node", "table_id", "fragment_id")),
    EventSpec(38, "UndoLogBlocked", _CP, 7, _INFO, _keys("acc_count", "tup_count")),
    EventSpec(
        73,
        "RedoStatus",
        _CP,
        7,
        _INFO,
        _keys(
            "log_part",
            "head_file_no",
            "head_mbyte",
            "tail_file_no",
            "tail_mbyte",
            "total_hi",
            "total_lo",
            "free_hi",
            "free_lo",
            "no_logfiles",
            "logfilesize",
        ),
    ),
    # STARTUP
    EventSpec(10, "NDBStartStarted", _S, 1, _INFO, _keys("version")),
    EventSpec(11, "NDBStartCompleted", _S, 1, _INFO, _keys("version")),
    EventSpec(12, "STTORRYRecieved", _S, 15, _INFO),
    EventSpec(13, "StartPhaseCompleted", _S, 4, _INFO, _keys("phase", "starttype")),
    EventSpec(14, "CM_REGCONF", _S, 3, _INFO, _keys("own_id", "president_id", "dynamic_id")),
    EventSpec(15, "CM_REGREF", _S, 8, _INFO, _keys("own_id", "other_id", "cause")),
    # left_id prints word 3, not 2: a bug in ndb_logevent.cpp that the wire carries.
    EventSpec(
        16,
        "FIND_NEIGHBOURS",
        _S,
        8,
        _INFO,
        (("own_id", 1), ("left_id", 3), ("right_id", 3), ("dynamic_id", 4)),
    ),
    EventSpec(17, "NDBStopStarted", _S, 1, _INFO, _keys("stoptype")),
    EventSpec(53, "NDBStopCompleted", _S, 1, _INFO, _keys("action", "signum")),
    EventSpec(
        59, "NDBStopForced", _S, 1, _ALERT, _keys("action", "signum", "error", "sphase", "extra")
    ),
    EventSpec(18, "NDBStopAborted", _S, 1, _INFO),
    EventSpec(86, "LCPRestored", _S, 7, _INFO, _keys("restored_lcp_id")),
    EventSpec(
        19,
        "StartREDOLog",
        _S,
        4,
        _INFO,
        _keys("node", "keep_gci", "completed_gci", "restorable_gci"),
    ),
    EventSpec(20, "StartLog", _S, 10, _INFO, _keys("log_part", "start_mb", "stop_mb", "gci")),
    EventSpec(
        21,
        "UNDORecordsExecuted",
        _S,
        15,
        _INFO,
        _keys("block", *(f"data{i}" for i in range(1, 11))),
    ),
    EventSpec(60, "StartReport", _S, 4, _INFO),
    # node_id is a block reference (the text applies refToNode to it).
    EventSpec(
        71,
        "LogFileInitStatus",
        _S,
        7,
        _INFO,
        _keys("node_id", "total_files", "file_done", "total_mbytes", "mbytes_done"),
    ),
    EventSpec(72, "LogFileInitCompStatus", _S, 7, _INFO),
    EventSpec(77, "StartReadLCP", _S, 10, _INFO),
    EventSpec(78, "ReadLCPComplete", _S, 10, _INFO),
    EventSpec(79, "RunRedo", _S, 8, _INFO),
    EventSpec(80, "RebuildIndex", _S, 10, _INFO),
    # NODERESTART
    EventSpec(22, "NR_CopyDict", _NR, 7, _INFO),
    EventSpec(23, "NR_CopyDistr", _NR, 7, _INFO),
    EventSpec(24, "NR_CopyFragsStarted", _NR, 7, _INFO, _keys("dest_node")),
    EventSpec(25, "NR_CopyFragDone", _NR, 10, _INFO, _keys("dest_node", "table_id", "fragment_id")),
    EventSpec(26, "NR_CopyFragsCompleted", _NR, 7, _INFO, _keys("dest_node")),
    EventSpec(
        27, "NodeFailCompleted", _NR, 8, _ALERT, _keys("block", "failed_node", "completing_node")
    ),
    EventSpec(28, "NODE_FAILREP", _NR, 8, _ALERT, _keys("failed_node", "failure_state")),
    EventSpec(29, "ArbitState", _NR, 6, _INFO, _keys("code", "arbit_node", "ticket_0", "ticket_1")),
    EventSpec(
        30, "ArbitResult", _NR, 2, _ALERT, _keys("code", "arbit_node", "ticket_0", "ticket_1")
    ),
    EventSpec(31, "GCP_TakeoverStarted", _NR, 7, _INFO),
    EventSpec(32, "GCP_TakeoverCompleted", _NR, 7, _INFO),
    EventSpec(33, "LCP_TakeoverStarted", _NR, 7, _INFO),
    EventSpec(34, "LCP_TakeoverCompleted", _NR, 7, _INFO, _keys("state")),
    EventSpec(82, "ConnectCheckStarted", _NR, 6, _INFO),
    EventSpec(83, "ConnectCheckCompleted", _NR, 6, _INFO),
    EventSpec(84, "NodeFailRejected", _NR, 6, _ALERT),
    # STATISTICS
    EventSpec(
        35,
        "TransReportCounters",
        _ST,
        8,
        _INFO,
        _keys(
            "trans_count",
            "commit_count",
            "read_count",
            "simple_read_count",
            "write_count",
            "attrinfo_count",
            "conc_op_count",
            "abort_count",
            "scan_count",
            "range_scan_count",
        ),
    ),
    EventSpec(36, "OperationReportCounters", _ST, 8, _INFO, _keys("ops")),
    EventSpec(37, "TableCreated", _ST, 7, _INFO, _keys("table_id")),
    EventSpec(39, "JobStatistic", _ST, 9, _INFO, _keys("mean_loop_count")),
    EventSpec(68, "ThreadConfigLoop", _ST, 9, _INFO),
    EventSpec(40, "SendBytesStatistic", _ST, 9, _INFO, _keys("to_node", "mean_sent_bytes")),
    EventSpec(
        41, "ReceiveBytesStatistic", _ST, 9, _INFO, _keys("from_node", "mean_received_bytes")
    ),
    EventSpec(
        50,
        "MemoryUsage",
        _ST,
        5,
        _INFO,
        _keys("gth", "page_size_bytes", "pages_used", "pages_total", "block"),
    ),
    EventSpec(
        70,
        "MTSignalStatistics",
        _ST,
        9,
        _INFO,
        _keys(
            "mt_deliver_thread",
            "mt_prioa_count",
            "mt_prioa_size",
            "mt_priob_count",
            "mt_priob_size",
        ),
    ),
    # SCHEMA
    EventSpec(74, "CreateSchemaObject", Category.SCHEMA, 8, _INFO),
    EventSpec(75, "AlterSchemaObject", Category.SCHEMA, 8, _INFO),
    EventSpec(76, "DropSchemaObject", Category.SCHEMA, 8, _INFO),
    # ERROR
    EventSpec(42, "TransporterError", Category.ERROR, 2, _ERR, _keys("to_node", "code")),
    EventSpec(43, "TransporterWarning", Category.ERROR, 8, _WARN, _keys("to_node", "code")),
    EventSpec(44, "MissedHeartbeat", Category.ERROR, 8, _WARN, _keys("node", "count")),
    EventSpec(45, "DeadDueToHeartbeat", Category.ERROR, 8, _ALERT, _keys("node")),
    EventSpec(46, "WarningEvent", Category.ERROR, 2, _WARN),
    EventSpec(69, "SubscriptionStatus", Category.ERROR, 4, _WARN),
    # INFO
    EventSpec(47, "SentHeartbeat", Category.INFO, 12, _INFO, _keys("node")),
    EventSpec(48, "CreateLogBytes", Category.INFO, 11, _INFO, _keys("node")),
    EventSpec(49, "InfoEvent", Category.INFO, 2, _INFO),
    EventSpec(
        58,
        "EventBufferStatus",
        Category.INFO,
        7,
        _INFO,
        _keys(
            "usage", "alloc", "max", "apply_gci_l", "apply_gci_h", "latest_gci_l", "latest_gci_h"
        ),
    ),
    EventSpec(
        85,
        "EventBufferStatus2",
        Category.INFO,
        7,
        _INFO,
        _keys(
            "usage",
            "alloc",
            "max",
            "latest_consumed_epoch_l",
            "latest_consumed_epoch_h",
            "latest_buffered_epoch_l",
            "latest_buffered_epoch_h",
            "ndb_reference",
            "report_reason",
        ),
    ),
    EventSpec(
        87,
        "EventBufferStatus3",
        Category.INFO,
        7,
        _INFO,
        _keys(
            "usage_l",
            "alloc_l",
            "max_l",
            "latest_consumed_epoch_l",
            "latest_consumed_epoch_h",
            "latest_buffered_epoch_l",
            "latest_buffered_epoch_h",
            "ndb_reference",
            "report_reason",
            "usage_h",
            "alloc_h",
            "max_h",
        ),
    ),
    EventSpec(52, "SingleUser", Category.INFO, 7, _INFO, _keys("type", "node_id")),
    EventSpec(81, "SavedEvent", Category.INFO, 7, _INFO),
    # BACKUP
    EventSpec(
        54,
        "BackupStarted",
        Category.BACKUP,
        7,
        _INFO,
        _keys("starting_node", "backup_id"),
        _STARTING,
    ),
    EventSpec(
        62,
        "BackupStatus",
        Category.BACKUP,
        7,
        _INFO,
        _keys(
            "starting_node",
            "backup_id",
            "n_bytes_lo",
            "n_bytes_hi",
            "n_records_lo",
            "n_records_hi",
            "n_log_bytes_lo",
            "n_log_bytes_hi",
            "n_log_records_lo",
            "n_log_records_hi",
        ),
        _STARTING,
    ),
    EventSpec(
        56,
        "BackupCompleted",
        Category.BACKUP,
        7,
        _INFO,
        _keys(
            "starting_node",
            "backup_id",
            "start_gci",
            "stop_gci",
            "n_bytes",
            "n_records",
            "n_log_bytes",
            "n_log_records",
        )
        + _keys("n_bytes_hi", "n_records_hi", "n_log_bytes_hi", "n_log_records_hi", start=11),
        _STARTING,
    ),
    EventSpec(
        55,
        "BackupFailedToStart",
        Category.BACKUP,
        7,
        _ALERT,
        _keys("starting_node", "error"),
        _STARTING,
    ),
    EventSpec(
        57,
        "BackupAborted",
        Category.BACKUP,
        7,
        _ALERT,
        _keys("starting_node", "backup_id", "error"),
        _STARTING,
    ),
    EventSpec(66, "RestoreStarted", Category.BACKUP, 7, _INFO, _keys("backup_id", "node_id")),
    EventSpec(
        63,
        "RestoreMetaData",
        Category.BACKUP,
        7,
        _INFO,
        _keys(
            "backup_id",
            "node_id",
            "n_tables",
            "n_tablespaces",
            "n_logfilegroups",
            "n_datafiles",
            "n_undofiles",
        ),
    ),
    EventSpec(
        64,
        "RestoreData",
        Category.BACKUP,
        7,
        _INFO,
        _keys("backup_id", "node_id", "n_records_lo", "n_records_hi", "n_bytes_lo", "n_bytes_hi"),
    ),
    EventSpec(
        65,
        "RestoreLog",
        Category.BACKUP,
        7,
        _INFO,
        _keys("backup_id", "node_id", "n_records_lo", "n_records_hi", "n_bytes_lo", "n_bytes_hi"),
    ),
    EventSpec(67, "RestoreCompleted", Category.BACKUP, 7, _INFO, _keys("backup_id", "node_id")),
)

CATALOGUE: Mapping[int, EventSpec] = MappingProxyType({spec.type: spec for spec in _SPECS})
"""Every event type in the server's matrix, by type number. Types missing here
(61, for example) are dropped by a real server."""

BY_NAME: Mapping[str, EventSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})
"""The same specs by their ``NDB_LE_`` name without the prefix."""


class EventType(IntEnum):
    """Type numbers of the events ndbtop refers to by name."""

    CONNECTED = 0
    DISCONNECTED = 1
    NDB_START_STARTED = 10
    NDB_START_COMPLETED = 11
    START_PHASE_COMPLETED = 13
    NDB_STOP_STARTED = 17
    NDB_STOP_ABORTED = 18
    TRANS_REPORT_COUNTERS = 35
    OPERATION_REPORT_COUNTERS = 36
    JOB_STATISTIC = 39
    SEND_BYTES_STATISTIC = 40
    RECEIVE_BYTES_STATISTIC = 41
    MEMORY_USAGE = 50
    NDB_STOP_COMPLETED = 53
    BACKUP_STARTED = 54
    BACKUP_FAILED_TO_START = 55
    BACKUP_COMPLETED = 56
    BACKUP_ABORTED = 57
    NDB_STOP_FORCED = 59
    START_REPORT = 60
    BACKUP_STATUS = 62
    THREAD_CONFIG_LOOP = 68
    MT_SIGNAL_STATISTICS = 70
    LOG_FILE_INIT_STATUS = 71
    LOG_FILE_INIT_COMP_STATUS = 72
    REDO_STATUS = 73
