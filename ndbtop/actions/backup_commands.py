"""``START BACKUP`` and ``ABORT BACKUP``, parsed and sent as ``ndb_mgm`` does.

``ndb_mgm``'s ``executeStartBackup`` reads ``START BACKUP [id] [NOWAIT | WAIT
STARTED | WAIT COMPLETED] [SNAPSHOTSTART | SNAPSHOTEND]`` (case-insensitive, the
id only first) and sends ``start backup`` with ``completed`` 0, 1 or 2 (WAIT
COMPLETED is the default), ``backupid`` when an id is given and ``backuppoint``
1 for SNAPSHOTSTART, 0 otherwise. ``ABORT BACKUP id`` sends ``abort backup`` with
``id``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.errors import NdbtopError
from ndbtop.mgm.replies import backup_request_args
from ndbtop.textnum import is_digits

MAX_BACKUP_ID = 0xFFFFFFFF - 1
"""Backup ids run 1 .. MAX_BACKUPS - 1 (``MAX_BACKUPS`` is 0xFFFFFFFF)."""

WAIT_WORDS = {0: "NOWAIT", 1: "WAIT STARTED", 2: "WAIT COMPLETED"}

_LEADING_DIGITS = re.compile(r"[0-9]{1,20}")


class BackupCommandError(NdbtopError):
    """A START BACKUP or ABORT BACKUP line ``ndb_mgm`` would refuse, with its reason."""


@dataclass(frozen=True, **SLOTS)
class StartBackup:
    """``START BACKUP [id] [NOWAIT|WAIT STARTED|WAIT COMPLETED] [SNAPSHOTSTART|SNAPSHOTEND]``.

    ``wait`` is the ``completed`` argument; ``wait_given`` and ``snapshot`` keep what
    was typed so the command is shown as written.
    """

    backup_id: int | None = None
    wait: int = 2
    wait_given: bool = False
    snapshot: str | None = None

    kind = "backup"
    dangerous_options = False

    @property
    def node_ids(self) -> tuple[int, ...]:
        """A backup concerns no single node."""
        return ()

    @property
    def snapshot_start(self) -> bool:
        """SNAPSHOTSTART: the backup is consistent as of its start (``backuppoint: 1``)."""
        return self.snapshot == "SNAPSHOTSTART"

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        words = ["START BACKUP"]
        if self.backup_id:
            words.append(str(self.backup_id))
        if self.wait_given:
            words.append(WAIT_WORDS[self.wait])
        if self.snapshot:
            words.append(self.snapshot)
        return " ".join(words)

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command and its arguments."""
        return "start backup", backup_request_args(self.wait, self.backup_id, self.snapshot_start)


@dataclass(frozen=True, **SLOTS)
class AbortBackup:
    """``ABORT BACKUP id``."""

    backup_id: int

    kind = "abort backup"
    dangerous_options = True

    @property
    def node_ids(self) -> tuple[int, ...]:
        """A backup concerns no single node."""
        return ()

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        return f"ABORT BACKUP {self.backup_id}"

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command and its arguments."""
        return "abort backup", [("id", self.backup_id)]


def parse_start_backup(text: str) -> StartBackup:
    """``START BACKUP ...`` (the leading ``START BACKUP`` may be left out), read as
    ``executeStartBackup`` reads it; raises :class:`BackupCommandError`."""
    words = text.split()
    upper = [w.upper() for w in words]
    if upper[:2] == ["START", "BACKUP"]:
        upper = upper[2:]
    backup_id: int | None = None
    wait, wait_given, snapshot = 2, False, None
    i = 0
    while i < len(upper):
        word = upper[i]
        digits = _LEADING_DIGITS.match(word)
        if i == 0 and digits:
            # sscanf("%llu") reads the leading digits; the length check catches overflow.
            value = int(digits.group())
            if not 0 < value <= MAX_BACKUP_ID or len(word) > len(str(MAX_BACKUP_ID + 1)) + 2:
                raise BackupCommandError(f"Backup ID out of range [1 - {MAX_BACKUP_ID}]")
            backup_id = value
        elif word in ("SNAPSHOTSTART", "SNAPSHOTEND"):
            if snapshot is not None:
                raise BackupCommandError(f"Invalid command: {text.strip()}")
            snapshot = word
        elif word == "NOWAIT":
            if wait_given:
                raise BackupCommandError(f"Invalid command: {text.strip()}")
            wait, wait_given = 0, True
        elif word == "WAIT":
            following = upper[i + 1] if i + 1 < len(upper) else ""
            if wait_given or following not in ("COMPLETED", "STARTED"):
                raise BackupCommandError(f"Invalid command: {text.strip()}")
            wait, wait_given = (2 if following == "COMPLETED" else 1), True
            i += 1
        else:
            raise BackupCommandError(f"Invalid command: {text.strip()}")
        i += 1
    return StartBackup(backup_id, wait, wait_given, snapshot)


def parse_backup_id(text: str) -> int:
    """The id of ``ABORT BACKUP id`` (or ``wait --backup-completed``), 1..4294967294."""
    t = text.strip()
    if not is_digits(t):
        raise BackupCommandError("Invalid arguments: expected <BackupId>")
    value = int(t)
    if not 0 < value <= MAX_BACKUP_ID:
        raise BackupCommandError(f"Invalid arguments: <BackupId> out of range [1-{MAX_BACKUP_ID}]")
    return value
