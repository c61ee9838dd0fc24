"""The audit log: one JSON line per action step, flushed to disk before going on.

Each action writes a ``sent`` line before its request leaves and a ``reply``
line with the server's answer, verbatim, so a killed ndbtop still leaves what
it attempted. Passwords never reach this log: actions carry none.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import socket
from pathlib import Path

from ndbtop.errors import FileError
from ndbtop.files import check_tree, open_append, read_tail, state_dir
from ndbtop.textnum import dumps

READ_LIMIT = 64 << 20
"""Bytes of the audit log read at most (its last whole lines within them)."""


def default_audit_path() -> Path:
    """``$XDG_STATE_HOME/ndbtop/audit.log`` (``~/.local/state/ndbtop/audit.log``), its
    directory checked as far as it exists (:func:`ndbtop.files.check_tree`)."""
    top = state_dir()
    check_tree(top, top)
    return top / "audit.log"


def audit_log(path: str | None, context: object = None) -> AuditLog:
    """The audit log at ``path`` (default :func:`default_audit_path`) of the actions on
    ``context`` (a :class:`ndbtop.contexts.Context`, or None)."""
    return AuditLog(Path(path) if path else default_audit_path(),
                    getattr(context, "name", None), bool(getattr(context, "production", False)))


class AuditLog:
    """Appends JSON lines to a file, each one synced to disk.

    ``context`` names the context (``clusters.toml``) the actions are on: every record
    then carries it; ``production`` says that context is marked production, whose
    confirmations name it (:mod:`ndbtop.actions.production`).
    """

    def __init__(self, path: Path, context: str | None = None, production: bool = False
                 ) -> None:
        self.path = path
        self.context = context
        self.production = production

    @property
    def production_context(self) -> str | None:
        """The context's name when it is marked production, else None."""
        return self.context if self.production else None

    def write(self, **record: object) -> None:
        """Append one record stamped with the time, user and host; raises if it cannot."""
        line = {
            "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
            "user": _user(),
            "host": socket.gethostname(),
            **({"context": self.context} if self.context is not None else {}),
            **record,
        }
        data = (dumps(line, sort_keys=False) + "\n").encode()
        try:
            fd = open_append(self.path)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise FileError(
                f"cannot write the audit log {self.path}: {exc.strerror}: refused"
            ) from None

    def records(self) -> list[dict[str, object]]:
        """Every record in the file's last :data:`READ_LIMIT` bytes (for reports and tests);
        a file that is not a regular file of the user's own raises ``FileError``."""
        if not self.path.exists():
            return []
        data = read_tail(self.path, READ_LIMIT, "audit log", private=True)
        text = data.decode("utf-8", errors="replace")
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())
