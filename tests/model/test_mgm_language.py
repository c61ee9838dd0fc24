"""``ndb_mgm``'s command language as ``CommandInterpreter::execute_impl`` reads it.

Every row is a line an operator types and what ndbtop makes of it; the refusals are
``ndb_mgm``'s own messages where it has one (CommandInterpreter.cpp: ``Invalid node
ID: %s.``, ``Invalid option: %s. Expecting -A,-N,-I or -F after RESTART``, ``Invalid
command: '%s' after multi node id list. Expected STOP, START, or RESTART.``, ``ERROR:
'%s' - report type specifier unknown!``, ``Unknown category: "%s"``, ``Invalid severity
level: %s``, ``Invalid arguments: expected <NodeId>``).
"""

from __future__ import annotations

import pytest

from ndbtop.actions.admin_commands import (
    TOGGLE,
    EnterSingleUser,
    ExitSingleUser,
    Report,
    SetLogFilter,
)
from ndbtop.actions.backup_commands import AbortBackup, StartBackup
from ndbtop.actions.commands import RestartNode, SetClusterLogLevel, StartNode, StopNode
from ndbtop.actions.mgm_language import (
    NO_DUMP,
    USAGE,
    Change,
    MgmUsageError,
    Query,
    bind,
    parse,
)
from ndbtop.mgm.events.catalogue import Severity


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("SHOW", Query("SHOW")),
        ("  show ; ", Query("SHOW")),
        ("show;;", Query("SHOW")),
        ("ALL STATUS", Query("STATUS")),
        ("2 status", Query("STATUS", (2,))),
        ("2 RESTART", Change((RestartNode((2,)),))),
        ("2 restart -n -i -a -f", Change((RestartNode((2,), True, True, True, True),))),
        ("2 RESTART -I", Change((RestartNode((2,), initial=True),))),
        ("2 4 RESTART", Change((RestartNode((2, 4)),))),
        ("2\t4  restart   -A", Change((RestartNode((2, 4), abort=True),))),
        ("3 STOP", Change((StopNode((3,)),))),
        ("3 5 stop -a -f", Change((StopNode((3, 5), abort=True, force=True),))),
        ("3 START", Change((StartNode(3),))),
        ("3 4 START", Change((StartNode(3), StartNode(4)))),
        ("ALL REPORT MEMORY", Query("REPORT", (), Report(50))),
        ("all report mem", Query("REPORT", (), Report(50))),
        ("2 REPORT BACKUPSTATUS", Query("REPORT", (2,), Report(62, (2,)))),
        ("2 report b", Query("REPORT", (2,), Report(62, (2,)))),
        ("CLUSTERLOG INFO", Query("CLUSTERLOG INFO")),
        ("clusterlog on", Change((SetLogFilter(1),))),
        ("CLUSTERLOG OFF", Change((SetLogFilter(0),))),
        ("CLUSTERLOG TOGGLE", Change((SetLogFilter(TOGGLE),))),
        ("CLUSTERLOG FILTER debug", Change((SetLogFilter(TOGGLE, (Severity.DEBUG,)),))),
        ("CLUSTERLOG ON ERROR WARNING",
         Change((SetLogFilter(1, (Severity.ERROR, Severity.WARNING)),))),
        ("CLUSTERLOG TOGGLE ON", Change((SetLogFilter(TOGGLE, (Severity.ON,)),))),
        ("CLUSTERLOG OFF ALL", Change((SetLogFilter(0, (Severity.ALL,)),))),
        ("2 CLUSTERLOG STATISTICS=15",
         Change((SetClusterLogLevel((2,), 252, 15, all_nodes=False),))),
        ("2 clusterlog startup=7 257=3", Change((
            SetClusterLogLevel((2,), 250, 7, all_nodes=False),
            SetClusterLogLevel((2,), 257, 3, all_nodes=False)))),
        ("ALL CLUSTERLOG BACKUP=0",
         Change((SetClusterLogLevel((), 261, 0),), all_data_nodes=True)),
        ("START BACKUP", Change((StartBackup(),))),
        ("start backup 7 nowait snapshotstart",
         Change((StartBackup(7, 0, True, "SNAPSHOTSTART"),))),
        ("ABORT BACKUP 7", Change((AbortBackup(7),))),
        ("ENTER SINGLE USER MODE 5", Change((EnterSingleUser(5),))),
        ("enter single user mode 5;", Change((EnterSingleUser(5),))),
        ("EXIT SINGLE USER MODE", Change((ExitSingleUser(),))),
        ("", None),
        ("   ", None),
        ("# a comment", None),
    ],
)
def test_lines_parse_as_ndb_mgm_reads_them(line: str, parsed: object) -> None:
    assert parse(line) == parsed


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("FOO", "Invalid command: FOO"),
        ("2", "Invalid command: 2"),
        ("ALL", "Expected a command after ALL."),
        ("0 RESTART", "Invalid node ID: 0."),
        ("256 RESTART", "Invalid node ID: 256."),
        ("2 RESTART -x", "Invalid option: -x. Expecting -A,-N,-I or -F after RESTART"),
        ("2 STOP -n", "Invalid option: -n. Expecting -A or -F after STOP"),
        ("2 3 STATUS", "Invalid command: 'STATUS' after multi node id list. "
         "Expected STOP, START, or RESTART."),
        ("2 STATUS now", "No parameters expected to this command."),
        ("2 REPORT", "ERROR: missing report type specifier!"),
        ("2 REPORT foo", "ERROR: 'foo' - report type specifier unknown!"),
        ("2 CLUSTERLOG", "Expected argument"),
        ("2 CLUSTERLOG STATISTICS", "Invalid loglevel specification: STATISTICS"),
        ("2 CLUSTERLOG WARNING=7", 'Unknown category: "WARNING"'),
        ("2 CLUSTERLOG 263=7", 'Unknown category: "263"'),
        ("2 CLUSTERLOG STARTUP=16", "Invalid level: 16 (0-15)"),
        ("2 CLUSTERLOG STARTUP=x", "Invalid level: x (0-15)"),
        ("CLUSTERLOG", "Missing argument."),
        ("CLUSTERLOG MAYBE", "Invalid argument: MAYBE"),
        ("CLUSTERLOG ON LOUD", "Invalid severity level: LOUD"),
        ("CLUSTERLOG ON OFF", "Invalid severity level: OFF"),
        ("ENTER SINGLE USER MODE", "Invalid arguments: expected <NodeId>"),
        ("ENTER SINGLE USER MODE x", "Invalid arguments: expected <NodeId>"),
        ("ENTER SINGLE USER MODE 300", "Invalid node ID: 300."),
        ("ABORT BACKUP", "Invalid arguments: expected <BackupId>"),
        ("START BACKUP WAIT", "Invalid command: START BACKUP WAIT"),
        ("SHOW CONFIG", "Invalid argument: CONFIG"),
        ("2 LOGLEVEL STARTUP=15", "Invalid command: LOGLEVEL"),
    ],
)
def test_refusals_are_one_line_with_the_usage(line: str, reason: str) -> None:
    with pytest.raises(MgmUsageError) as caught:
        parse(line)
    assert caught.value.reason == reason
    assert str(caught.value) == f"{reason} (commands: {USAGE})"
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("line", ["2 DUMP 1000", "ALL DUMP 1000", "dump", "2 3 dump 1"])
def test_dump_is_refused(line: str) -> None:
    with pytest.raises(MgmUsageError) as caught:
        parse(line)
    assert str(caught.value) == NO_DUMP


@pytest.mark.parametrize("line", ["ALL RESTART", "all stop -a", "ALL START"])
def test_all_restart_stop_start_are_not_sent(line: str) -> None:
    with pytest.raises(MgmUsageError, match="does not send ALL"):
        parse(line)


def test_all_clusterlog_is_bound_to_the_live_data_nodes() -> None:
    change = parse("ALL CLUSTERLOG STATISTICS=15 CHECKPOINT=8")
    assert isinstance(change, Change)
    bound = bind(change, (2, 3))
    assert bound == Change((SetClusterLogLevel((2, 3), 252, 15),
                            SetClusterLogLevel((2, 3), 253, 8)))
    assert [a.ndb_mgm() for a in bound.actions] == [
        "ALL CLUSTERLOG STATISTICS=15", "ALL CLUSTERLOG CHECKPOINT=8"]
    one = parse("2 CLUSTERLOG 257=3")
    assert isinstance(one, Change) and bind(one, (2, 3)) == one
    assert one.actions[0].ndb_mgm() == "2 CLUSTERLOG 257=3"
