"""The configuration parameters ndbtop can name: ConfigInfo's names, types and defaults.

Key ids are those of mgmapi_config_parameters.h; names, types and defaults those of
``ConfigInfo::m_ParamInfo`` (storage/ndb/src/mgmsrv/ConfigInfo.cpp, 8.0). Ids are scoped by
section type. A parameter whose ConfigInfo entry has no default (the server computes it, or
it is only set by hand) has ``default=None``; so has one whose default is a build constant
ndbtop does not know. Parameters not listed here are shown by their id.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ndbtop.compat import SLOTS
from ndbtop.mgm.packed_config import API_NODE, DATA_NODE, MGM_NODE, SYSTEM

K = 1024
M = 1024 * K
MAX_INT_RNIL = 0xFFFFFEFF
MAX_INT32 = 0xFFFFFFFF

INT, BOOL, STRING, ENUM = "int", "bool", "string", "enum"

ARBITRATION = ("Disabled", "Default", "WaitExternal")
"""``arbit_method_typelib``: the value of Arbitration is the index."""
REDO_PROBLEM_ACTION = ("abort", "queue")
"""``default_operation_redo_problem_action_typelib``."""


@dataclass(frozen=True, **SLOTS)
class Param:
    """One parameter: its config.ini name, value type and ConfigInfo default (None: none)."""

    name: str
    kind: str = INT
    default: int | str | None = None
    values: tuple[str, ...] = ()
    """An enum's names, by value."""


def _p(name: str, default: int | str | None = None, kind: str = INT) -> Param:
    return Param(name, kind, default)


_LOG_LEVELS = {250: _p("LogLevelStartup", 1), 251: _p("LogLevelShutdown", 0),
               252: _p("LogLevelStatistic", 0), 253: _p("LogLevelCheckpoint", 0),
               254: _p("LogLevelNodeRestart", 0), 255: _p("LogLevelConnection", 0),
               256: _p("LogLevelInfo", 0), 258: _p("LogLevelError", 0),
               259: _p("LogLevelCongestion", 0)}

DATA_PARAMS: dict[int, Param] = {
    3: _p("NodeId"), 5: _p("HostName", "localhost", STRING), 7: _p("DataDir", ".", STRING),
    9: _p("TotalSendBufferMemory", 0),
    100: _p("MaxNoOfSavedMessages", 25), 101: _p("NoOfReplicas", 2),
    102: _p("MaxNoOfTables", 128), 103: _p("MaxNoOfAttributes", 1000),
    104: _p("MaxNoOfIndexes", 128), 105: _p("MaxNoOfTriggers", 768),
    106: _p("MaxNoOfConcurrentTransactions", 4096),
    107: _p("MaxNoOfConcurrentOperations", 32 * K), 108: _p("MaxNoOfConcurrentScans", 256),
    109: _p("MaxNoOfFiredTriggers", 4000), 110: _p("MaxNoOfConcurrentIndexOperations", 8 * K),
    111: _p("TransactionBufferMemory", 1 * M), 112: _p("DataMemory", 98 * M),
    113: _p("IndexMemory", 0), 114: _p("LockPagesInMainMemory", 0),
    115: _p("StartPartialTimeout", 30000), 116: _p("StartPartitionedTimeout", 0),
    117: _p("StartFailureTimeout", 0), 118: _p("HeartbeatIntervalDbDb", 5000),
    119: _p("HeartbeatIntervalDbApi", 1500), 120: _p("TimeBetweenLocalCheckpoints", 20),
    121: _p("TimeBetweenGlobalCheckpoints", 2000), 122: _p("ArbitrationTimeout", 7500),
    123: _p("TimeBetweenWatchDogCheck", 6000), 124: _p("StopOnError", 1, BOOL),
    125: _p("FileSystemPath", None, STRING), 126: _p("NoOfFragmentLogFiles", 16),
    129: _p("TimeBetweenInactiveTransactionAbortCheck", 1000),
    130: _p("TransactionInactiveTimeout", MAX_INT_RNIL),
    131: _p("TransactionDeadlockDetectionTimeout", 1200),
    133: _p("BackupMemory", 32 * M), 134: _p("BackupDataBufferSize", 1 * M),
    135: _p("BackupLogBufferSize", 16 * M), 136: _p("BackupWriteSize", 256 * K),
    139: _p("BackupMaxWriteSize", 1 * M), 140: _p("FragmentLogFileSize", 16 * M),
    141: _p("TimeBetweenWatchDogCheckInitial", 6000),
    142: Param("Arbitration", ENUM, 1, ARBITRATION),
    148: _p("Diskless", 0, BOOL), 149: _p("MaxNoOfOrderedIndexes", 128),
    150: _p("MaxNoOfUniqueHashIndexes", 64), 151: _p("MaxNoOfLocalOperations"),
    152: _p("MaxNoOfLocalScans"), 153: _p("BatchSizePerLocalScan"),
    154: _p("UndoIndexBuffer", 2 * M), 155: _p("UndoDataBuffer", 16 * M),
    156: _p("RedoBuffer", 32 * M), 157: _p("LongMessageBuffer", 64 * M),
    158: _p("BackupDataDir", None, STRING), 159: _p("MaxNoOfOpenFiles"),
    160: _p("DiskPageBufferMemory", 64 * M), 161: _p("StringMemory", 25),
    162: _p("InitialNoOfOpenFiles", 27), 163: _p("DiskSyncSize", 4 * M),
    166: _p("MemReportFrequency", 0), 167: _p("BackupReportFrequency", 0),
    168: _p("ODirect", 0, BOOL), 169: _p("MaxAllocate", 32 * M),
    170: _p("TimeBetweenEpochs", 100), 171: _p("TimeBetweenEpochsTimeout", 0),
    172: _p("CompressedBackup", 0, BOOL), 173: _p("CompressedLCP", 0, BOOL),
    174: _p("SchedulerExecutionTimer", 50), 175: _p("SchedulerSpinTimer", 0),
    176: _p("RealtimeScheduler", 0, BOOL), 177: _p("LockExecuteThreadToCPU", None, STRING),
    178: _p("LockMaintThreadsToCPU"), 179: _p("MaxNoOfSubscriptions", 0),
    180: _p("MaxNoOfSubscribers", 0), 181: _p("MaxNoOfConcurrentSubOperations", 256),
    182: _p("MaxBufferedEpochs", 100), 184: _p("StartupStatusReportFrequency", 0),
    185: _p("Nodegroup"), 186: _p("MaxNoOfExecutionThreads", 0),
    189: _p("InitFragmentLogFiles", "sparse", STRING), 190: _p("DiskIOThreadPool", 2),
    193: _p("FileSystemPathDD", None, STRING), 194: _p("FileSystemPathDataFiles", None, STRING),
    195: _p("FileSystemPathUndoFiles", None, STRING),
    196: _p("InitialLogfileGroup", None, STRING), 197: _p("InitialTablespace", None, STRING),
    198: _p("SharedGlobalMemory", 128 * M), 200: _p("ArbitrationRank", 0),
    203: _p("ExtraSendBufferMemory", 0), 350: _p("MaxBufferedEpochBytes", 26214400),
    605: _p("MaxLCPStartDelay", 0), 606: _p("BuildIndexThreads", 128),
    607: _p("HeartbeatOrder", 0), 608: _p("DictTrace"), 609: _p("MaxStartFailRetries", 3),
    610: _p("StartFailRetryDelay", 0), 611: _p("RedoOverCommitLimit", 20),
    612: _p("RedoOverCommitCounter", 3), 613: _p("EventLogBufferSize", 8192),
    614: _p("Numa", 1), 615: _p("LateAlloc", 1), 618: _p("ConnectCheckIntervalDelay", 0),
    619: _p("StartNoNodegroupTimeout", 15000),
    627: _p("MaxDMLOperationsPerTransaction", MAX_INT32),
    628: _p("ThreadConfig", None, STRING), 630: _p("MinFreePct", 5),
    632: _p("NoOfFragmentLogParts", 4),
    635: _p("ServerPort"), 636: _p("TcpBind_INADDR_ANY", 0, BOOL),
    638: _p("MinDiskWriteSpeed", 10 * M), 639: _p("MaxDiskWriteSpeed", 20 * M),
    640: _p("MaxDiskWriteSpeedOtherNodeRestart", 50 * M),
    641: _p("MaxDiskWriteSpeedOwnRestart", 200 * M),
    **_LOG_LEVELS,
}
"""``[ndbd]``: ConfigInfo's DB section (NoOfFragmentLogParts: NDB_DEFAULT_LOG_PARTS, 4)."""

API_PARAMS: dict[int, Param] = {
    3: _p("NodeId"), 5: _p("HostName", "", STRING), 9: _p("TotalSendBufferMemory", 0),
    200: _p("ArbitrationRank", 0), 201: _p("ArbitrationDelay", 0),
    203: _p("ExtraSendBufferMemory", 0), 642: _p("__debug_mixology_level", 0),
    800: _p("MaxScanBatchSize"), 801: _p("BatchByteSize"), 802: _p("BatchSize"),
    803: _p("AutoReconnect", 1, BOOL), 804: _p("HeartbeatThreadPriority", None, STRING),
    805: Param("DefaultOperationRedoProblemAction", ENUM, 1, REDO_PROBLEM_ACTION),
    806: _p("DefaultHashmapSize", 0), 807: _p("ConnectBackoffMaxTime", 1500),
    808: _p("StartConnectBackoffMaxTime", 0),
}
"""``[api]`` / ``[mysqld]``: ConfigInfo's API section."""

MGM_PARAMS: dict[int, Param] = {
    3: _p("NodeId"), 5: _p("HostName", "", STRING), 7: _p("DataDir", "", STRING),
    9: _p("TotalSendBufferMemory", 0), 147: _p("LogDestination", None, STRING),
    200: _p("ArbitrationRank", 1), 201: _p("ArbitrationDelay", 0),
    203: _p("ExtraSendBufferMemory", 0), 204: _p("HeartbeatIntervalMgmdMgmd", 1500),
    300: _p("PortNumber", 1186), 642: _p("__debug_mixology_level", 0),
    804: _p("HeartbeatThreadPriority", None, STRING),
}
"""``[ndb_mgmd]``: ConfigInfo's MGM section (PortNumber: NDB_PORT, 1186)."""

SYSTEM_PARAMS: dict[int, Param] = {
    1: _p("PrimaryMGMNode", 0), 2: _p("ConfigGenerationNumber", 0), 3: _p("Name", None, STRING),
}
"""``[system]``."""

PARAMS: dict[int, dict[int, Param]] = {
    DATA_NODE: DATA_PARAMS, API_NODE: API_PARAMS, MGM_NODE: MGM_PARAMS, SYSTEM: SYSTEM_PARAMS,
}
"""Parameters by section type (:mod:`ndbtop.mgm.packed_config`'s numbers)."""

SECTION_NAMES = {DATA_NODE: "ndbd", API_NODE: "api", MGM_NODE: "ndb_mgmd", SYSTEM: "system"}
"""The config.ini name each section type is printed under."""

SECTION_ALIASES = {"db": DATA_NODE, "ndbd": DATA_NODE, "api": API_NODE, "mysqld": API_NODE,
                   "mgm": MGM_NODE, "ndb_mgmd": MGM_NODE, "system": SYSTEM}
"""config.ini section names as ndb_mgmd reads them (``m_sectionNameAliases``), lower case."""

DERIVED = {(DATA_NODE, 125): 7, (DATA_NODE, 158): 125}
"""Parameters whose default is another's value: FileSystemPath is DataDir, BackupDataDir is
FileSystemPath (``fixFileSystemPath``, ``fixBackupDataDir``)."""


@functools.cache
def by_name(kind: int) -> Mapping[str, tuple[int, Param]]:
    """A section type's parameters by lower-case name (ndb_mgmd ignores case); made once
    per type, however many sections a file has."""
    return MappingProxyType({p.name.lower(): (key, p) for key, p in PARAMS.get(kind, {}).items()})
