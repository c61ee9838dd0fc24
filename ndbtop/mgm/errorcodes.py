"""Management-server error codes and their texts (``ndb_error_string``).

The server prints ``<message>: <status>: <classification>``; restart replies
prefix it with ``<code>-``.
"""

from __future__ import annotations

PERMANENT = "Permanent error"
TEMPORARY = "Temporary error"
APPLICATION = "Application error"
TIMEOUT = "Timeout expired"

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

UNKNOWN_ERROR_TEXT = "Unknown error code: Unknown result: Unknown error code"

NODE_SHUTDOWN_WOULD_CAUSE_SYSTEM_CRASH = 5028
OPERATION_NOT_ALLOWED_START_STOP = 5063
NO_CONTACT_WITH_PROCESS = 5000
WRONG_PROCESS_TYPE = 5002
NODE_SHUTDOWN_IN_PROGRESS = 5026
WAIT_FOR_NDBD_TO_START_SHUTDOWN_FAILED = 5024
WAIT_FOR_NDBD_SHUTDOWN_FAILED = 5025
NO_CONTACT_WITH_DB_NODES = 5030
NODE_NOT_API_NODE = 5062


def ndb_error_string(code: int) -> str:
    """``Node shutdown would cause system crash: Permanent error: Application error``."""
    entry = MGM_ERRORS.get(code)
    if entry is None:
        return UNKNOWN_ERROR_TEXT
    return ": ".join(entry)
