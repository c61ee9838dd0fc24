"""START BACKUP and ABORT BACKUP: read as ndb_mgm reads them, sent as it sends them, and
checked against the cluster."""

from __future__ import annotations

import pytest

from ndbtop.actions.backup_commands import (
    AbortBackup,
    BackupCommandError,
    StartBackup,
    parse_backup_id,
    parse_start_backup,
)
from ndbtop.actions.commands import wire_text
from ndbtop.actions.guards import assess
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import RUNNING, Backup


@pytest.mark.parametrize(
    ("line", "wire", "shown"),
    [
        ("START BACKUP", "start backup\ncompleted: 2\nbackuppoint: 0\n\n", "START BACKUP"),
        ("start backup nowait", "start backup\ncompleted: 0\nbackuppoint: 0\n\n",
         "START BACKUP NOWAIT"),
        ("START BACKUP 42 WAIT STARTED SNAPSHOTSTART",
         "start backup\ncompleted: 1\nbackupid: 42\nbackuppoint: 1\n\n",
         "START BACKUP 42 WAIT STARTED SNAPSHOTSTART"),
        ("SNAPSHOTEND wait completed", "start backup\ncompleted: 2\nbackuppoint: 0\n\n",
         "START BACKUP WAIT COMPLETED SNAPSHOTEND"),
        ("7 SNAPSHOTSTART NOWAIT", "start backup\ncompleted: 0\nbackupid: 7\nbackuppoint: 1\n\n",
         "START BACKUP 7 NOWAIT SNAPSHOTSTART"),
    ],
)
def test_start_backup_as_ndb_mgm_reads_and_sends_it(line: str, wire: str, shown: str) -> None:
    action = parse_start_backup(line)
    assert wire_text(action) == wire
    assert action.ndb_mgm() == shown


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("START BACKUP 0", "Backup ID out of range [1 - 4294967294]"),
        ("START BACKUP 4294967295", "Backup ID out of range [1 - 4294967294]"),
        ("START BACKUP NOWAIT 5", "Invalid command: START BACKUP NOWAIT 5"),
        ("START BACKUP WAIT", "Invalid command: START BACKUP WAIT"),
        ("START BACKUP WAIT SOON", "Invalid command: START BACKUP WAIT SOON"),
        ("START BACKUP NOWAIT WAIT STARTED", "Invalid command"),
        ("START BACKUP SNAPSHOTSTART SNAPSHOTEND", "Invalid command"),
        ("START BACKUP ENCRYPT", "Invalid command"),
    ],
)
def test_start_backup_lines_ndb_mgm_refuses(line: str, message: str) -> None:
    with pytest.raises(BackupCommandError, match=message.replace("[", r"\[")):
        parse_start_backup(line)


def test_abort_backup_and_backup_ids() -> None:
    assert wire_text(AbortBackup(7)) == "abort backup\nid: 7\n\n"
    assert AbortBackup(7).ndb_mgm() == "ABORT BACKUP 7"
    assert parse_backup_id(" 12 ") == 12
    for bad in ("", "x", "0", "-3", "4294967295", "１"):
        with pytest.raises(BackupCommandError):
            parse_backup_id(bad)


def data(node_id: int, status: str, phase: int = 0, group: int = 0) -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, start_phase=phase, node_group=group)


STARTED = (data(2, "STARTED"), data(3, "STARTED"))
RUNNING_7 = (Backup(7, RUNNING, started_at=1.0),)


def test_start_backup_allowed_on_a_started_cluster() -> None:
    a = assess(StartBackup(), STARTED)
    assert a.allowed and not a.danger and a.confirm_text is None
    assert "answers when the backup completed" in a.warnings[-1]


@pytest.mark.parametrize(
    ("nodes", "backups", "blocker"),
    [
        ((data(2, "SINGLE USER MODE"), data(3, "SINGLE USER MODE")), (), "single-user mode"),
        ((data(2, "STARTED"), data(3, "STARTING", phase=4)), (), "node 3 (phase 4) is starting"),
        (STARTED, RUNNING_7, "backup 7 is running"),
        # MgmtSrvr::startBackup has no 5030 check (server-rules.md §6): the send fails.
        ((data(2, "NO_CONTACT"), data(3, "NOT_STARTED")), (),
         "no data node is started: the management server has no node to send the request to "
         "and answers 5005 Send to process or receive failed."),
    ],
)
def test_start_backup_refused(
    nodes: tuple[NodeStatus, ...], backups: tuple[Backup, ...], blocker: str
) -> None:
    a = assess(StartBackup(), nodes, backups=backups)
    assert not a.allowed
    assert any(blocker in b for b in a.blockers)


def test_single_user_api_node_blocks_too() -> None:
    api = NodeStatus(9, "API", "CONNECTED", is_single_user=True)
    assert not assess(StartBackup(), (*STARTED, api)).allowed


def test_abort_needs_the_id_typed_and_warns_when_not_running() -> None:
    a = assess(AbortBackup(7), STARTED, backups=RUNNING_7)
    assert a.allowed and a.danger and a.confirm_text == "7"
    assert not any("not running" in w for w in a.warnings)
    b = assess(AbortBackup(8), STARTED, backups=RUNNING_7)
    assert b.allowed and any("backup 8 is not running (backup 7 is running)" in w
                             for w in b.warnings)
