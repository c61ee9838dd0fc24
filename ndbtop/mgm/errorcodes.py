"""Management-server error codes and their texts (``ndb_error_string``).

The server prints ``<message>: <status>: <classification>``; restart replies
prefix it with ``<code>-``.
"""

from __future__ import annotations

PERMANENT = "Permanent error"
TEMPORARY = "Temporary error"
APPLICATION = "Application error"
TIMEOUT = "Timeout expired"
INTERNAL = "Internal error"
INSUFFICIENT_SPACE = "Insufficient space"
USER_DEFINED = "User defined error"
TEMPORARY_RESOURCE = "Temporary Resource error"

MGM_ERRORS: dict[int, tuple[str, str, str]] = {
    5000: ("No contact with the process (dead ?).", PERMANENT, APPLICATION),
    5002: ("The process has wrong type. Expected a DB process.", PERMANENT, APPLICATION),
    5005: ("Send to process or receive failed.", PERMANENT, APPLICATION),
    5007: ("Invalid error number. Should be >= 0.", PERMANENT, APPLICATION),
    5008: ("Invalid trace number.", PERMANENT, APPLICATION),
    5010: ("Invalid block name", PERMANENT, APPLICATION),
    5024: ("Time-out due to node shutdown not starting in time", TEMPORARY, TIMEOUT),
    5025: ("Time-out due to node shutdown not completing in time", TEMPORARY, TIMEOUT),
    5026: ("Node shutdown in progress", PERMANENT, APPLICATION),
    5027: ("System shutdown in progress", PERMANENT, APPLICATION),
    5028: ("Node shutdown would cause system crash", PERMANENT, APPLICATION),
    5030: ("No contact with database nodes", PERMANENT, APPLICATION),
    5031: ("Unsupported multi node shutdown. Abort option required.", PERMANENT, APPLICATION),
    5062: ("The specified node is not an API node.", PERMANENT, APPLICATION),
    5063: ("Operation not allowed while nodes are starting or stopping.", PERMANENT, APPLICATION),
}

BACKUP_ERRORS: dict[int, tuple[str, str, str]] = {
    1300: ("Undefined error", PERMANENT, INTERNAL),
    1301: ("Backup issued to not master (reissue command to master)", PERMANENT, INTERNAL),
    1302: ("A backup is already running", PERMANENT, APPLICATION),
    1303: ("Out of resources", PERMANENT, INSUFFICIENT_SPACE),
    1304: ("Sequence failure", PERMANENT, INTERNAL),
    1305: ("Backup definition not implemented", PERMANENT, INTERNAL),
    1306: ("Backup not supported in diskless mode (change Diskless)", PERMANENT, APPLICATION),
    1321: ("Backup aborted by user request", PERMANENT, USER_DEFINED),
    1322: ("Backup already completed", PERMANENT, INTERNAL),
    1323: ("1323", PERMANENT, INTERNAL),
    1324: ("Backup log buffer full", PERMANENT, INTERNAL),
    1325: ("File or scan error", PERMANENT, INTERNAL),
    1326: ("Backup aborted due to node failure", PERMANENT, INTERNAL),
    1327: ("1327", PERMANENT, INTERNAL),
    1329: ("Backup during software upgrade not supported", PERMANENT, APPLICATION),
    1340: ("Backup undefined error", PERMANENT, INTERNAL),
    1342: ("Backup failed to allocate buffers (check configuration)", PERMANENT, APPLICATION),
    1343: ("Backup failed to setup fs buffers (check configuration)", PERMANENT, APPLICATION),
    1344: ("Backup failed to allocate tables (check configuration)", PERMANENT, APPLICATION),
    1345: ("Backup failed to insert file header (check configuration)", PERMANENT, APPLICATION),
    1346: ("Backup failed to insert table list (check configuration)", PERMANENT, APPLICATION),
    1347: ("Backup failed to allocate table memory (check configuration)", PERMANENT,
           APPLICATION),
    1348: ("Backup failed to allocate file record (check configuration)", PERMANENT,
           APPLICATION),
    1349: ("Backup failed to allocate attribute record (check configuration)", PERMANENT,
           APPLICATION),
    1350: ("Backup failed: file already exists (use 'START BACKUP <backup id>')", TEMPORARY,
           TEMPORARY_RESOURCE),
}
"""The data nodes' backup error codes (``ndberror.cpp``): a ``start backup`` refusal, the
``error`` of BackupFailedToStart and BackupAborted."""

BACKUP_ALREADY_RUNNING = 1302
BACKUP_ABORTED_BY_USER = 1321
BACKUP_ABORTED_NODE_FAILURE = 1326

UNKNOWN_ERROR_TEXT = "Unknown error code: Unknown result: Unknown error code"

NODE_SHUTDOWN_WOULD_CAUSE_SYSTEM_CRASH = 5028
UNSUPPORTED_NODE_SHUTDOWN = 5031
OPERATION_NOT_ALLOWED_START_STOP = 5063
NO_CONTACT_WITH_PROCESS = 5000
SEND_OR_RECEIVE_FAILED = 5005
WRONG_PROCESS_TYPE = 5002
NODE_SHUTDOWN_IN_PROGRESS = 5026
WAIT_FOR_NDBD_TO_START_SHUTDOWN_FAILED = 5024
WAIT_FOR_NDBD_SHUTDOWN_FAILED = 5025
NO_CONTACT_WITH_DB_NODES = 5030
NODE_NOT_API_NODE = 5062


def ndb_error_string(code: int) -> str:
    """``Node shutdown would cause system crash: Permanent error: Application error``."""
    entry = MGM_ERRORS.get(code) or BACKUP_ERRORS.get(code)
    if entry is None:
        return UNKNOWN_ERROR_TEXT
    return ": ".join(entry)


def code_of_text(result: str) -> int | None:
    """The management-server code whose text ``result`` is (``MgmApiSession::stop`` replies
    ``result: <text>`` with no code, where ``restart`` writes ``<code>-<text>``); None when
    no code's text begins it."""
    for code, (message, _, _) in MGM_ERRORS.items():
        if result == message or result.startswith(message + ":"):
            return code
    return None
