"""Data-node exit codes, as NDBStopForced quotes them (``ndbd_exit_codes.cpp``).

``Forced node shutdown completed`` ends with
``Caused by error %d: '<message>(<classification>). <status>'.``; this module
holds the three texts per code: the whole ``errArray`` of ``ndbd_exit_codes.cpp`` (the
7.6/8.0 table, and 7400 of the newest copies; 7.x tables hold a subset of the same codes
and texts), its codes the ``NDBD_EXIT_*`` values of ``ndbd_exit_codes.h``. A code missing
here gets the server's own fallback slogan with the ``Unknown`` classification.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType


class ExitStatus(IntEnum):
    """``ndbd_exit_status``."""

    SUCCESS = 0
    UNKNOWN = 1
    PERMANENT = 2
    TEMPORARY = 3
    FILESYSTEM_ERROR = 4


class ExitClassification(IntEnum):
    """``ndbd_exit_classification``."""

    NONE = 0
    UNKNOWN = 1
    INTERNAL_ERROR = 2
    CONFIGURATION_ERROR = 3
    ARBITRATION_ERROR = 4
    RESTART_ERROR = 5
    RESOURCE_CONFIGURATION_ERROR = 6
    FILESYSTEM_FULL_ERROR = 7
    FILESYSTEM_INCONSISTENCY_ERROR = 8
    FILESYSTEM_LIMIT = 9


STATUS_MESSAGES: Mapping[ExitStatus, str] = MappingProxyType(
    {
        ExitStatus.SUCCESS: "Success",
        ExitStatus.UNKNOWN: "Unknown",
        ExitStatus.PERMANENT: "Permanent error, external action needed",
        ExitStatus.TEMPORARY: "Temporary error, restart node",
        ExitStatus.FILESYSTEM_ERROR: "Ndbd file system error, restart node initial",
    }
)

_C = ExitClassification
_T = ExitStatus

CLASSIFICATIONS: Mapping[ExitClassification, tuple[ExitStatus, str]] = MappingProxyType(
    {
        _C.NONE: (_T.SUCCESS, "No error"),
        _C.UNKNOWN: (_T.UNKNOWN, "Unknown"),
        _C.INTERNAL_ERROR: (
            _T.TEMPORARY,
            "Internal error, programming error or missing error message, please report a bug",
        ),
        _C.CONFIGURATION_ERROR: (_T.PERMANENT, "Configuration error"),
        _C.ARBITRATION_ERROR: (_T.TEMPORARY, "Arbitration error"),
        _C.RESTART_ERROR: (_T.TEMPORARY, "Restart error"),
        _C.RESOURCE_CONFIGURATION_ERROR: (_T.PERMANENT, "Resource configuration error"),
        _C.FILESYSTEM_FULL_ERROR: (_T.PERMANENT, "File system full"),
        _C.FILESYSTEM_INCONSISTENCY_ERROR: (
            _T.FILESYSTEM_ERROR,
            "Ndbd file system inconsistency error, please report a bug",
        ),
        _C.FILESYSTEM_LIMIT: (_T.FILESYSTEM_ERROR, "Ndbd file system limit exceeded"),
    }
)
"""Classification -> (status, classification text)."""

NO_SLOGAN = "No message slogan found (please report a bug if you get this error code)"

_IE, _CE, _AE, _RE = (
    _C.INTERNAL_ERROR,
    _C.CONFIGURATION_ERROR,
    _C.ARBITRATION_ERROR,
    _C.RESTART_ERROR,
)
_CR, _FI = _C.RESOURCE_CONFIGURATION_ERROR, _C.FILESYSTEM_INCONSISTENCY_ERROR

EXIT_CODES: Mapping[int, tuple[ExitClassification, str]] = MappingProxyType(
    {
        2300: (_RE, "Generic error"),
        2301: (_IE, "Assertion"),
        2302: (_CE, "node id in the configuration has the wrong type, (i.e. not an NDB node)"),
        2303: (_IE, "System error, node killed during node restart by other node"),
        2304: (_IE, "Array index out of range"),
        2305: (
            _AE,
            "Node lost connection to other nodes and can not form a unpartitioned cluster, "
            "please investigate if there are error(s) on other node(s)",
        ),
        2306: (_IE, "Pointer too large"),
        2307: (_AE, "Partitioned cluster detected. Please check if cluster is already running"),
        2308: (
            _RE,
            "Another node failed during system restart, please investigate error(s) on other "
            "node(s)",
        ),
        2309: (
            _RE,
            "Internal node state conflict, most probably resolved by restarting node again",
        ),
        2310: (_FI, "Error while reading the REDO log"),
        # The server's table lists 2311 twice; its linear search finds this entry first.
        2311: (_IE, "Conflict when selecting restart type"),
        2312: (_CR, "No more free UNDO log, increase UndoIndexBuffer"),
        2313: (_FI, "Error while reading the datapages and UNDO log"),
        2314: (
            _RE,
            "Data node is not allowed to get added to the cluster while it is in single user mode",
        ),
        2315: (_AE, "Node declared dead. See error log for details"),
        2316: (_FI, "Error while reading the schema file"),
        2327: (_CE, "Memory allocation failure, please decrease some configuration parameters"),
        2334: (_IE, "Job buffer congestion"),
        2335: (_IE, "Error in short time queue"),
        2336: (_IE, "Error in long time queue"),
        2337: (_IE, "Error in time queue, too long delay"),
        2338: (_IE, "Time queue index out of range"),
        2339: (_IE, "Send signal error"),
        2340: (_IE, "Wrong priority level when sending signal"),
        2341: (_IE, "Internal program error (failed ndbrequire)"),
        2342: (_C.NONE, "Error insert executed"),
        2343: (_IE, "Internal program error (failed ndbassert)"),
        2344: (_IE, "Error in zero time queue"),
        2350: (_CE, "Invalid configuration received from Management Server"),
        2351: (
            _CR,
            "Signal lost, out of long signal memory, please increase LongMessageBuffer",
        ),
        2352: (_FI, "Invalid LCP"),
        2353: (_RE, "Insufficent nodes for system restart"),
        2354: (
            _CR,
            "Fatal error due to end of REDO log. Increase NoOfFragmentLogFiles or "
            "FragmentLogFileSize",
        ),
        2355: (_CR, "Failure to restore schema"),
        2500: (_CE, "Resource allocation error, please review the configuration"),
        2801: (_IE, "No file system path"),
        2802: (_IE, "Channel is full"),
        2803: (_IE, "No more threads"),
        2804: (_IE, "Bad parameter"),
        2805: (_CE, "Illegal file system path"),
        2806: (_CR, "Max number of open files exceeded, please increase MaxNoOfOpenFiles"),
        2807: (_IE, "File has already been opened"),
        2808: (_IE, "Environment error using file"),
        2809: (_IE, "Temporary on access to file"),
        2810: (_C.FILESYSTEM_FULL_ERROR, "The file system is full"),
        2811: (_CE, "Received permission denied for file"),
        2812: (_CE, "Invalid parameter for file"),
        2813: (_IE, "Unknown file system error"),
        2814: (_IE, "System reports no more file system resources"),
        2815: (_FI, "File not found"),
        2816: (_FI, "Read underflow"),
        6000: (_IE, "Error OS signal received"),
        6050: (
            _IE,
            "WatchDog terminate, internal error or massive overload on the machine running "
            "this node",
        ),
        6051: (_IE, "Signal lost (unknown reason)"),
        6052: (
            _CR,
            "Signal lost, out of send buffer memory, please increase SendBufferMemory or lower "
            "the load",
        ),
        6053: (_IE, "Illegal signal (version mismatch a possibility)"),
        6054: (_CE, "Connection setup failed"),
        6100: (
            _CE,
            "Total restart time too long, consider increasing StartFailureTimeout or "
            "investigate error(s) on other node(s)",
        ),
        6101: (
            _RE,
            "Node started while node shutdown in progress. Please wait until shutdown complete "
            "before starting node",
        ),
        6102: (
            _RE,
            "Node upgrade requires initial restart to rebuild filesystem. Please retry with "
            "--initial or reconsider.",
        ),
        6300: (
            _C.FILESYSTEM_LIMIT,
            "Too many crashed replicas (8 consecutive node restart failures)",
        ),
        6301: (_RE, "Unhandled master failure during node restart"),
        6302: (_AE, "All nodes in a node group are unavailable"),
        6303: (_FI, "Unable to find a restorable replica"),
        6304: (_RE, "Unsupported version"),
        6305: (_C.NONE, "Graceful shutdown not 100% possible due to mixed ndbd versions"),
        6600: (_CR, "Out of index memory during system restart, please increase DataMemory"),
        6800: (_CR, "Out of data memory during system restart, please increase DataMemory"),
        7200: (_IE, "LCP fragment scan watchdog detected a problem.  Please report a bug."),
        7400: (
            _IE,
            "Timeout handling Api failure.  Please check ApiFailureHandlingTimeout config or "
            "report a bug.",
        ),
    }
)
"""Exit code -> (classification, message)."""



def exit_status(code: int) -> ExitStatus:
    """What the server says a node that exited with ``code`` needs (a plain restart, an
    initial restart, or an action first)."""
    classification, _ = EXIT_CODES.get(code, (_C.UNKNOWN, NO_SLOGAN))
    return CLASSIFICATIONS[classification][0]


def exit_texts(code: int) -> tuple[str, str, str]:
    """(message, classification text, status text) for an exit code, as the server finds them."""
    classification, message = EXIT_CODES.get(code, (_C.UNKNOWN, NO_SLOGAN))
    status, class_text = CLASSIFICATIONS[classification]
    return message, class_text, STATUS_MESSAGES[status]
