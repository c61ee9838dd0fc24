"""Actions that change the cluster, described exactly as they will be sent.

Every action shows two forms before it runs: what an operator would type in
``ndb_mgm`` and the management-protocol request ndbtop sends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ndbtop.actions.admin_commands import EnterSingleUser, ExitSingleUser, SetLogFilter
from ndbtop.actions.backup_commands import AbortBackup, StartBackup
from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import Category
from ndbtop.mgm.wire import encode_request


@dataclass(frozen=True, **SLOTS)
class RestartNode:
    """``N RESTART [-i] [-n] [-a] [-f]``."""

    node_ids: tuple[int, ...]
    initial: bool = False
    nostart: bool = False
    abort: bool = False
    force: bool = False

    kind = "restart"

    @property
    def dangerous_options(self) -> bool:
        """Initial, abort and force need the node id typed to confirm."""
        return self.initial or self.abort or self.force

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        flags = [
            f
            for f, on in (
                ("-i", self.initial),
                ("-n", self.nostart),
                ("-a", self.abort),
                ("-f", self.force),
            )
            if on
        ]
        return " ".join([*map(str, self.node_ids), "RESTART", *flags])

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command and its arguments."""
        return "restart node v2", [
            ("node", " ".join(map(str, self.node_ids))),
            ("abort", int(self.abort)),
            ("initialstart", int(self.initial)),
            ("nostart", int(self.nostart)),
            ("force", int(self.force)),
        ]


@dataclass(frozen=True, **SLOTS)
class StopNode:
    """``N STOP [-a] [-f]``."""

    node_ids: tuple[int, ...]
    abort: bool = False
    force: bool = False

    kind = "stop"

    @property
    def dangerous_options(self) -> bool:
        """Abort and force need the node id typed to confirm."""
        return self.abort or self.force

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        flags = [f for f, on in (("-a", self.abort), ("-f", self.force)) if on]
        return " ".join([*map(str, self.node_ids), "STOP", *flags])

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command and its arguments."""
        return "stop v2", [
            ("node", " ".join(map(str, self.node_ids))),
            ("abort", int(self.abort)),
            ("force", int(self.force)),
        ]


@dataclass(frozen=True, **SLOTS)
class StartNode:
    """``N START``: start a data node left NOT_STARTED."""

    node_id: int

    kind = "start"
    dangerous_options = False

    @property
    def node_ids(self) -> tuple[int, ...]:
        """The node the action concerns."""
        return (self.node_id,)

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        return f"{self.node_id} START"

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The protocol command and its arguments."""
        return "start", [("node", self.node_id)]


@dataclass(frozen=True, **SLOTS)
class SetClusterLogLevel:
    """``ALL CLUSTERLOG CATEGORY=LEVEL``: one request per data node, as ``ndb_mgm`` sends it
    (``N CLUSTERLOG CATEGORY=LEVEL`` without ``all_nodes``)."""

    node_ids: tuple[int, ...]
    category: int
    level: int
    all_nodes: bool = True

    kind = "clusterlog"
    dangerous_options = False

    def ndb_mgm(self) -> str:
        """The ``ndb_mgm`` command line."""
        name = Category(self.category).filter_name or str(self.category)
        who = "ALL" if self.all_nodes else " ".join(map(str, self.node_ids))
        return f"{who} CLUSTERLOG {name}={self.level}"

    def requests(self) -> list[tuple[str, list[tuple[str, str | int]]]]:
        """One ``set cluster loglevel`` per data node."""
        return [
            (
                "set cluster loglevel",
                [("node", n), ("category", self.category), ("level", self.level)],
            )
            for n in self.node_ids
        ]

    def request(self) -> tuple[str, list[tuple[str, str | int]]]:
        """The first request (all of them differ only in ``node``)."""
        return self.requests()[0]


Action = Union[
    RestartNode, StopNode, StartNode, SetClusterLogLevel, StartBackup, AbortBackup,
    SetLogFilter, EnterSingleUser, ExitSingleUser,
]


def wire_text(action: Action) -> str:
    """The exact bytes the action sends, as text (every request, empty lines included)."""
    several = isinstance(action, (SetClusterLogLevel, SetLogFilter))
    pairs = action.requests() if several else [action.request()]
    return "".join(encode_request(cmd, args).decode() for cmd, args in pairs)
