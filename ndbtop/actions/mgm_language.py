"""``ndb_mgm``'s command language, read as ``ndb_mgm`` reads it, into ndbtop's actions.

Read from ``CommandInterpreter::execute_impl`` and the ``execute*`` functions it
calls (storage/ndb/src/mgmclient/CommandInterpreter.cpp; mgm-protocol.md §2.5, §3.1,
§4.2, §4.3, §7.2): the line is trimmed of spaces and tabs, a trailing ``;`` is
dropped, words are matched without regard to case; the first word is a command
(``SHOW``, ``CLUSTERLOG``, ``START BACKUP``, ``ABORT BACKUP``, ``ENTER``/``EXIT
SINGLE USER MODE``), ``ALL``, or one or more node ids followed by the command
(``STATUS``, ``START``, ``RESTART``, ``STOP``, ``REPORT``, ``CLUSTERLOG``); only
``STOP``, ``START`` and ``RESTART`` take several node ids.

``ndb_mgm`` reads bytes: words are split at ASCII spaces (``strtok(line, " ")``) and
compared with ``strcasecmp``, which folds ASCII letters only. So a line here is printable
ASCII, spaces and tabs, and nothing else: ``ſhow`` (whose upper case is ``SHOW`` in
Unicode), a line or paragraph separator or a no-break space between a node id and a
command would be one unknown word to ``ndb_mgm``, never two words. A node id is named
once; a command complete before the end of the line is refused, not run with the rest
ignored.

Where ``ndb_mgm`` sends a request the server then refuses, or skips one bad
``CATEGORY=LEVEL`` and sends the others, ndbtop refuses the whole line before
anything is sent. ``DUMP`` is never sent; ``ALL RESTART``, ``ALL STOP``, ``ALL
START`` and ``SHUTDOWN`` are not part of this language (``ndbtop rolling-restart``
restarts the data nodes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Union

from ndbtop.actions.admin_commands import (
    REPORTS,
    TOGGLE,
    EnterSingleUser,
    ExitSingleUser,
    Report,
    SetLogFilter,
)
from ndbtop.actions.backup_commands import (
    AbortBackup,
    BackupCommandError,
    parse_backup_id,
    parse_start_backup,
)
from ndbtop.actions.commands import Action, RestartNode, SetClusterLogLevel, StartNode, StopNode
from ndbtop.compat import SLOTS
from ndbtop.elide import elide
from ndbtop.errors import UsageError
from ndbtop.mgm.events.catalogue import MAX_LOGLEVEL, Category, Severity
from ndbtop.mgm.status import MAX_NODE_ID
from ndbtop.textnum import is_digits

USAGE = (
    "SHOW | ALL STATUS | N STATUS | N [N ...] RESTART [-n] [-i] [-a] [-f] | "
    "N [N ...] STOP [-a] [-f] | N [N ...] START | ALL|N REPORT MEMORY|BACKUPSTATUS | "
    "CLUSTERLOG ON|OFF|TOGGLE [SEVERITY ...] | CLUSTERLOG INFO | "
    "ALL|N CLUSTERLOG CATEGORY=LEVEL ... | START BACKUP [ID] [NOWAIT|WAIT STARTED|WAIT "
    "COMPLETED] [SNAPSHOTSTART|SNAPSHOTEND] | ABORT BACKUP ID | ENTER SINGLE USER MODE ID | "
    "EXIT SINGLE USER MODE"
)
"""Every command, on one line."""

COMMAND_WORDS = (
    "SHOW", "ALL", "STATUS", "RESTART", "STOP", "START", "REPORT", "MEMORY", "BACKUPSTATUS",
    "CLUSTERLOG", "ON", "OFF", "TOGGLE", "INFO", "BACKUP", "ABORT", "NOWAIT", "WAIT",
    "STARTED", "COMPLETED", "SNAPSHOTSTART", "SNAPSHOTEND", "ENTER", "EXIT", "SINGLE", "USER",
    "MODE", "ALERT", "CRITICAL", "ERROR", "WARNING", "DEBUG",
    *(c.filter_name for c in Category if c.filter_name),
)
"""The words of the language, for completion."""

NO_DUMP = (
    "ndbtop does not send DUMP: it sends only commands whose effect it can check and "
    "name (use ndb_mgm for DUMP)"
)

SEVERITY_WORDS = {
    "ALL": Severity.ALL, "ALERT": Severity.ALERT, "CRITICAL": Severity.CRITICAL,
    "ERROR": Severity.ERROR, "WARNING": Severity.WARNING, "INFO": Severity.INFO,
    "DEBUG": Severity.DEBUG,
}
CATEGORY_WORDS = {c.filter_name: c for c in Category if c.filter_name}
"""The category names ``ndb_mgm_match_event_category`` knows: every category but WARNING,
which only its number (257) names."""


class MgmUsageError(UsageError):
    """A line ``ndb_mgm`` would refuse, or one ndbtop does not send: one line with the usage."""

    def __init__(self, reason: str, *, usage: bool = True) -> None:
        super().__init__(f"{reason} (commands: {USAGE})" if usage else reason)
        self.reason = reason


@dataclass(frozen=True, **SLOTS)
class Query:
    """A command that changes nothing: ``SHOW``, ``STATUS``, ``REPORT``, ``CLUSTERLOG INFO``."""

    kind: str
    node_ids: tuple[int, ...] = ()
    """The node asked about; empty for ALL (and for SHOW, CLUSTERLOG INFO)."""
    report: Report | None = None


@dataclass(frozen=True, **SLOTS)
class Change:
    """A command that changes the cluster: its actions, sent in order.

    With ``all_data_nodes`` (``ALL CLUSTERLOG``) the actions' nodes are the data
    nodes of the live status: see :func:`bind`.
    """

    actions: tuple[Action, ...]
    all_data_nodes: bool = False


Command = Union[Query, Change]


def bind(change: Change, data_node_ids: tuple[int, ...]) -> Change:
    """``ALL CLUSTERLOG``'s actions for these data nodes (others are returned as they are)."""
    if not change.all_data_nodes:
        return change
    actions = tuple(
        replace(a, node_ids=data_node_ids) if isinstance(a, SetClusterLogLevel) else a
        for a in change.actions
    )
    return Change(actions, all_data_nodes=False)


def parse(line: str) -> Command | None:
    """The command ``line`` holds, or None for an empty line or a ``#`` comment.

    Raises :class:`MgmUsageError` for anything else ``ndb_mgm`` or ndbtop refuses.
    """
    text = line.strip(" \t\r\n")
    if not _ASCII_LINE.fullmatch(text):
        raise MgmUsageError(f"Invalid command: {elide(text)}: ndb_mgm reads printable ASCII only "
                            "(words parted by spaces or tabs)")
    while text.endswith(";"):
        text = text[:-1].strip(" \t")
    if not text or text.startswith("#"):
        return None
    words = text.split()
    upper = [w.upper() for w in words]
    first = upper[0]
    if "DUMP" in upper[:2] or (is_digits(first) and "DUMP" in upper):
        raise MgmUsageError(NO_DUMP, usage=False)
    if first == "SHOW":
        if len(words) > 1:
            raise MgmUsageError(f"Invalid argument: {' '.join(words[1:])}")
        return Query("SHOW")
    if first == "CLUSTERLOG":
        return _clusterlog_filter(upper[1:])
    if first == "START" and len(upper) > 1 and upper[1] == "BACKUP":
        try:
            return Change((parse_start_backup(text),))
        except BackupCommandError as exc:
            raise MgmUsageError(str(exc)) from None
    if first == "ABORT" and len(upper) > 1 and upper[1] == "BACKUP":
        try:
            return Change((_abort_backup(words[2:]),))
        except BackupCommandError as exc:
            raise MgmUsageError(str(exc)) from None
    if first in ("ENTER", "EXIT") and upper[1:4] == ["SINGLE", "USER", "MODE"]:
        if first == "EXIT":
            _nothing_after(words, 4)
            return Change((ExitSingleUser(),))
        return Change((EnterSingleUser(_enter_id(words[4:])),))
    if first == "ALL":
        return _after_ids((), upper[1:], words)
    ids: list[int] = []
    for word in words:
        if not is_digits(word):
            break
        node_id = _node_id(word)
        if node_id in ids:
            raise MgmUsageError(f"Node {node_id} is named twice: name each node once.")
        ids.append(node_id)
    if not ids or len(ids) == len(words):
        raise MgmUsageError(f"Invalid command: {elide(text)}")
    return _after_ids(tuple(ids), upper[len(ids):], words)


_ASCII_LINE = re.compile(r"[\x20-\x7e\t]*")
"""A line ``ndb_mgm`` can read: printable ASCII, spaces and tabs."""


def _nothing_after(words: list[str], complete: int) -> None:
    """Refuse words after the first ``complete`` ones, which make a whole command."""
    if len(words) > complete:
        raise MgmUsageError(f"Unexpected {' '.join(words[complete:])!r} after "
                            f"{' '.join(words[:complete]).upper()}: nothing follows it.")


def _node_id(word: str) -> int:
    # Never more digits than a node id has: int() of thousands of digits is refused.
    value = int(word) if len(word.lstrip("0")) <= 3 else MAX_NODE_ID + 1
    if not 1 <= value <= MAX_NODE_ID:
        raise MgmUsageError(f"Invalid node ID: {elide(word)}.")
    return value


def _abort_backup(rest: list[str]) -> Action:
    if len(rest) != 1:
        raise BackupCommandError("Invalid arguments: expected <BackupId>")
    return AbortBackup(parse_backup_id(rest[0]))


def _enter_id(rest: list[str]) -> int:
    if len(rest) != 1 or not is_digits(rest[0]):
        raise MgmUsageError("Invalid arguments: expected <NodeId>")
    return _node_id(rest[0])


def _after_ids(ids: tuple[int, ...], upper: list[str], words: list[str]) -> Command:
    """The command after ``ALL`` (``ids`` empty) or after the node ids."""
    if not upper:
        raise MgmUsageError(f"Expected a command after {'node ID' if ids else 'ALL'}.")
    command, params = upper[0], upper[1:]
    at = len(ids) or 1
    typed = words[at + 1:]
    if not ids and command in ("RESTART", "STOP", "START"):
        raise MgmUsageError(
            f"ndbtop mgm does not send ALL {command}: it restarts, stops or starts named "
            "data nodes (ndbtop rolling-restart restarts them all, one at a time)",
            usage=False,
        )
    if len(ids) > 1 and command not in ("RESTART", "STOP", "START"):
        raise MgmUsageError(
            f"Invalid command: '{words[len(ids)]}' after multi node id list. "
            "Expected STOP, START, or RESTART."
        )
    if command == "RESTART":
        flags = _options(typed, "-N -I -A -F", "-A,-N,-I or -F after RESTART")
        return Change((RestartNode(ids, initial="-I" in flags, nostart="-N" in flags,
                                   abort="-A" in flags, force="-F" in flags),))
    if command == "STOP":
        flags = _options(typed, "-A -F", "-A or -F after STOP")
        return Change((StopNode(ids, abort="-A" in flags, force="-F" in flags),))
    if command == "START":
        if params:
            raise MgmUsageError(f"START takes no options, not {' '.join(typed)}")
        return Change(tuple(StartNode(n) for n in ids))
    if command == "STATUS":
        if params:
            raise MgmUsageError("No parameters expected to this command.")
        return Query("STATUS", ids)
    if command == "REPORT":
        _nothing_after(words, at + 2)
        return Query("REPORT", ids, _report(params, typed, ids))
    if command == "CLUSTERLOG":
        return _clusterlog_levels(ids, typed)
    raise MgmUsageError(f"Invalid command: {words[at]}")


def _options(typed: list[str], allowed: str, expecting: str) -> set[str]:
    for word in typed:
        if word.upper() not in allowed.split():
            raise MgmUsageError(f"Invalid option: {word}. Expecting {expecting}")
    return {word.upper() for word in typed}


def _report(params: list[str], typed: list[str], ids: tuple[int, ...]) -> Report:
    if not params:
        raise MgmUsageError("ERROR: missing report type specifier!")
    word = params[0]
    # executeReport matches the word as a prefix of the report's name.
    for name, event_type in REPORTS.items():
        if name.startswith(word):
            return Report(int(event_type), ids)
    if "EVENTLOG".startswith(word):
        raise MgmUsageError("ndbtop mgm does not send REPORT EVENTLOG (use ndb_mgm)")
    raise MgmUsageError(f"ERROR: '{typed[0]}' - report type specifier unknown!")


def _clusterlog_levels(ids: tuple[int, ...], specs: list[str]) -> Change:
    if not specs:
        raise MgmUsageError("Expected argument")
    actions: list[Action] = []
    for spec in specs:
        parts = spec.split("=")
        if len(parts) != 2:
            raise MgmUsageError(f"Invalid loglevel specification: {spec}")
        name, level_text = parts[0].strip().upper(), parts[1].strip()
        category = CATEGORY_WORDS.get(name)
        if category is None:
            if not (is_digits(name) and int(name) in set(Category)):
                raise MgmUsageError(f'Unknown category: "{name}"')
            category = Category(int(name))
        if not is_digits(level_text) or int(level_text) > MAX_LOGLEVEL:
            raise MgmUsageError(f"Invalid level: {level_text} (0-{MAX_LOGLEVEL})")
        actions.append(SetClusterLogLevel(ids, int(category), int(level_text),
                                          all_nodes=not ids))
    return Change(tuple(actions), all_data_nodes=not ids)


def _clusterlog_filter(params: list[str]) -> Command:
    if not params:
        raise MgmUsageError("Missing argument.")
    mode = params[0]
    if mode == "INFO":
        if len(params) > 1:
            raise MgmUsageError(f"Unexpected {' '.join(params[1:])!r} after CLUSTERLOG INFO: "
                                "nothing follows it.")
        return Query("CLUSTERLOG INFO")
    enable = {"FILTER": TOGGLE, "TOGGLE": TOGGLE, "OFF": 0, "ON": 1}.get(mode)
    if enable is None:
        raise MgmUsageError(f"Invalid argument: {mode}")
    severities: list[Severity] = []
    for word in params[1:]:
        severity = SEVERITY_WORDS.get(word)
        if severity is None and word in ("ON", "OFF") and enable == TOGGLE:
            severity = Severity.ON
        if severity is None:
            raise MgmUsageError(f"Invalid severity level: {word}")
        severities.append(severity)
    return Change((SetLogFilter(enable, tuple(severities) or (Severity.ON,)),))
