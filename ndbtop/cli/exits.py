"""The exit statuses of every ``ndbtop`` command: one table, used everywhere.

README.md carries the same table (a test compares them).
"""

from __future__ import annotations

from ndbtop.errors import FileError, MgmError, NdbtopError, SqlError, UsageError

DONE = 0
NOT_MET = 1
USAGE = 2
UNREACHABLE = 3
FILE = 4
INTERNAL = 70
HUNG_UP = 129
INTERRUPTED = 130
PIPE_CLOSED = 141
TERMINATED = 143

EXIT_STATUSES: tuple[tuple[int, str], ...] = (
    (DONE, "done: the report printed, the state reached, every node restarted"),
    (NOT_MET, "a condition not met or an action refused: wait timed out, a rolling restart "
     "aborted or refused (--read-only), a --dry-run that would send nothing now, replay "
     "--check found damage"),
    (USAGE, "usage: a bad option or value, an option the command cannot use, "
     "a malformed option file"),
    (UNREACHABLE, "a source asked for did not answer: the management server cannot be "
     "reached, the SQL node refused the login, --once without every source"),
    (FILE, "a file cannot be read or written: a recording, the bundle, the audit log"),
    (INTERNAL, "internal error (--debug shows the traceback)"),
    (HUNG_UP, "the live view's terminal went away (SIGHUP)"),
    (INTERRUPTED, "interrupted (Ctrl-C)"),
    (PIPE_CLOSED, "what reads its output went away (a pipe into head closed), as SIGPIPE "
     "ends other tools"),
    (TERMINATED, "the live view was stopped by SIGTERM"),
)
"""Every exit status, with what it means."""


def status_of(exc: NdbtopError) -> int:
    """The exit status for an error that ends a command."""
    if isinstance(exc, UsageError):
        return USAGE
    if isinstance(exc, (MgmError, SqlError)):
        return UNREACHABLE
    if isinstance(exc, FileError):
        return FILE
    return NOT_MET
