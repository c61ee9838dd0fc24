"""Actions of ``ndbtop mgm`` beside restart, stop, start and backups: the cluster log's
severity filter, single-user mode, and the REPORT commands.

Each carries its ``ndb_mgm`` command line and the exact request it sends
(mgm-protocol.md §3.1, §4.3, §7.2):

- ``CLUSTERLOG ON|OFF|TOGGLE [SEVERITY ...]`` sends ``set logfilter`` with
  ``level`` (the severity, 0 = logging as a whole) and ``enable`` (1 on, 0 off,
  -1 toggle, which mgmapi writes as the unsigned 4294967295); one request per
  severity, as ``executeClusterLog`` does;
- ``ENTER SINGLE USER MODE N`` sends ``enter single user`` with ``nodeId``;
  ``EXIT SINGLE USER MODE`` sends ``exit single user``;
- ``ALL REPORT MEMORY`` / ``N REPORT BACKUPSTATUS`` send ``dump events`` with
  ``type`` 50 or 62 and, for one node, ``nodes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import EventType, Severity

TOGGLE = -1
ENABLE_WIRE = {1: 1, 0: 0, TOGGLE: 0xFFFFFFFF}
"""``enable`` as mgmapi sends it: an int put into a ``Uint32`` property (-1 → 4294967295)."""
MODE_WORDS = {1: "ON", 0: "OFF", TOGGLE: "TOGGLE"}

REPORTS = {"BACKUPSTATUS": EventType.BACKUP_STATUS, "MEMORYUSAGE": EventType.MEMORY_USAGE}
"""The reports ``REPORT`` names (matched by prefix, as ``executeReport`` does), by event type."""


@dataclass(frozen=True, **SLOTS)
class SetLogFilter:
    """``CLUSTERLOG ON|OFF|TOGGLE [SEVERITY ...]``: turn the cluster log, or some of its
    severities, on, off or over."""

    enable: int
    severities: tuple[Severity, ...] = (Severity.ON,)

    kind = "clusterlog filter"
    dangerous_options = False

    @property
    def node_ids(self) -> tuple[int, ...]:
        """The filter belongs to the management server, not to a node."""
        return ()

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        words = ["CLUSTERLOG", MODE_WORDS[self.enable]]
        if self.severities != (Severity.ON,):
            words += [s.name for s in self.severities]
        return " ".join(words)

    def requests(self) -> list[tuple[str, list[tuple[str, str | int]]]]:
        """One ``set logfilter`` per severity."""
        return [
            ("set logfilter", [("level", int(s)), ("enable", ENABLE_WIRE[self.enable])])
            for s in self.severities
        ]

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The first request."""
        return self.requests()[0]


@dataclass(frozen=True, **SLOTS)
class EnterSingleUser:
    """``ENTER SINGLE USER MODE N``: only API node N may use the cluster."""

    api_id: int

    kind = "enter single user"
    dangerous_options = False

    @property
    def node_ids(self) -> tuple[int, ...]:
        """The API node that keeps access."""
        return (self.api_id,)

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        return f"ENTER SINGLE USER MODE {self.api_id}"

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command and its argument (``nodeId``, capital I)."""
        return "enter single user", [("nodeId", self.api_id)]


@dataclass(frozen=True, **SLOTS)
class ExitSingleUser:
    """``EXIT SINGLE USER MODE``."""

    kind = "exit single user"
    dangerous_options = False

    @property
    def node_ids(self) -> tuple[int, ...]:
        """Single-user mode is the whole cluster's."""
        return ()

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        return "EXIT SINGLE USER MODE"

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command (no argument)."""
        return "exit single user", []


@dataclass(frozen=True, **SLOTS)
class Report:
    """``ALL REPORT MEMORY`` / ``N REPORT BACKUPSTATUS``: read-only, nothing changes."""

    event_type: int
    node_ids: tuple[int, ...] = ()
    """Empty for ALL (the server asks every data node)."""

    kind = "report"
    dangerous_options = False

    @property
    def name(self) -> str:
        """``MEMORYUSAGE`` or ``BACKUPSTATUS``."""
        return next(k for k, v in REPORTS.items() if v == self.event_type)

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        who = " ".join(map(str, self.node_ids)) or "ALL"
        return f"{who} REPORT {self.name}"

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """``dump events`` with ``type`` and, for one node, ``nodes``."""
        args: list[tuple[str, str | int]] = [("type", self.event_type)]
        if self.node_ids:
            args.append(("nodes", ",".join(map(str, self.node_ids))))
        return "dump events", args


AdminAction = Union[SetLogFilter, EnterSingleUser, ExitSingleUser]
"""The actions of this module that change the cluster."""
