"""The management server's request parser (``Parser.cpp``), line by line.

Commands are matched exactly (case-sensitive, single spaces) after trimming.
Argument lines split at the first ``:`` or ``=``; names and values are
trimmed; a value wrapped in double quotes loses them. ``Int`` arguments are
read as ``%u`` (``12abc`` is 12, ``-1`` wraps to 4294967295). After ``Unknown
command``, ``Unknown argument`` or ``Type mismatch`` the parser stops reading
the request, so its remaining lines are read as new commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ndbtop.compat import SLOTS
from ndbtop.mgm.version import split_version


class ArgType(Enum):
    """How an argument's value is read."""

    INT = "Int"
    STRING = "String"
    LONG_STRING = "LongString"


@dataclass(frozen=True, **SLOTS)
class ArgSpec:
    """One argument a command accepts."""

    type: ArgType
    mandatory: bool = False


@dataclass(frozen=True, **SLOTS)
class Request:
    """A complete, valid request."""

    command: str
    args: dict[str, int | str]


@dataclass(frozen=True, **SLOTS)
class ParseFailure:
    """A rejected request: ``result: <message>, '<token>'``."""

    message: str
    token: str


_UINT = re.compile(r"^\s*([+-]?)(\d+)")


def parse_uint(value: str) -> int | None:
    """Read a value as ``sscanf("%u")`` does; None when no digits lead it."""
    m = _UINT.match(value)
    if not m:
        return None
    number = int(m.group(2))
    if m.group(1) == "-":
        number = -number
    return number & 0xFFFFFFFF


def _trim(text: str) -> str:
    return text.strip(" \t\r\n")


class RequestParser:
    """Turns lines into :class:`Request` or :class:`ParseFailure` values."""

    def __init__(self, commands: dict[str, dict[str, ArgSpec]]) -> None:
        self.commands = commands
        self._command: str | None = None
        self._args: dict[str, int | str] = {}

    @property
    def in_request(self) -> bool:
        """True while the arguments of a command are being read."""
        return self._command is not None

    def feed(self, line: str) -> Request | ParseFailure | None:
        """Consume one line (without its ``\\n``)."""
        if self._command is None:
            command = _trim(line)
            if command == "":
                return None
            if command not in self.commands:
                return ParseFailure("Unknown command", command)
            self._command = command
            self._args = {}
            return None
        if _trim(line) == "":
            return self.finish()
        return self._argument(line)

    def finish(self) -> Request | ParseFailure:
        """End the request (its empty line arrived, or the read timed out)."""
        command, args = self._command, self._args
        assert command is not None
        self._command = None
        self._args = {}
        for name, spec in self.commands[command].items():
            if spec.mandatory and name not in args:
                return ParseFailure("Missing arg.", "\n")
        return Request(command, args)

    def _argument(self, line: str) -> ParseFailure | None:
        assert self._command is not None
        positions = [p for p in (line.find(":"), line.find("=")) if p >= 0]
        if positions:
            cut = min(positions)
            name, value = _trim(line[:cut]), _trim(line[cut + 1 :])
        else:
            name, value = _trim(line), ""
        spec = self.commands[self._command].get(name)
        if spec is None or not positions:
            self._command = None
            return ParseFailure("Unknown argument", name)
        if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
            value = value[1:-1]
        if spec.type is ArgType.INT:
            number = parse_uint(value)
            if number is None:
                self._command = None
                return ParseFailure("Type mismatch", name)
            if name in self._args:
                self._command = None
                return ParseFailure("Argument given twice", name)
            self._args[name] = number
        elif name in self._args:
            self._command = None
            return ParseFailure("Argument given twice", name)
        else:
            self._args[name] = value
        return None


def format_failure(failure: ParseFailure) -> bytes:
    """The bytes the server sends for a rejected request."""
    return f"result: {failure.message}, '{failure.token}'\n\n".encode()


def _args(**specs: tuple[ArgType, bool]) -> dict[str, ArgSpec]:
    return {name: ArgSpec(t, m) for name, (t, m) in specs.items()}


_INT, _STR = ArgType.INT, ArgType.STRING
_REQ, _OPT = True, False

COMMANDS: dict[str, dict[str, ArgSpec]] = {
    "get version": {},
    "set clientversion": _args(major=(_INT, _REQ), minor=(_INT, _REQ), build=(_INT, _REQ)),
    "check connection": {},
    "get mgmd nodeid": {},
    "get session id": {},
    "get session": _args(id=(_INT, _REQ)),
    "list sessions": {},
    "purge stale sessions": {},
    "get status": _args(types=(_STR, _OPT)),
    "get info clusterlog": {},
    "get cluster loglevel": {},
    "set cluster loglevel": _args(node=(_INT, _REQ), category=(_INT, _REQ), level=(_INT, _REQ)),
    "set loglevel": _args(node=(_INT, _REQ), category=(_INT, _REQ), level=(_INT, _REQ)),
    "set logfilter": _args(level=(_INT, _REQ), enable=(_INT, _REQ)),
    "restart node": _args(
        node=(_STR, _REQ), initialstart=(_INT, _OPT), nostart=(_INT, _OPT), abort=(_INT, _OPT)
    ),
    "restart node v2": _args(
        node=(_STR, _REQ),
        initialstart=(_INT, _OPT),
        nostart=(_INT, _OPT),
        abort=(_INT, _OPT),
        force=(_INT, _OPT),
    ),
    "restart all": _args(initialstart=(_INT, _OPT), nostart=(_INT, _OPT), abort=(_INT, _OPT)),
    "stop": _args(node=(_STR, _REQ), abort=(_INT, _REQ)),
    "stop v2": _args(node=(_STR, _REQ), abort=(_INT, _REQ), force=(_INT, _OPT)),
    "stop all": _args(abort=(_INT, _REQ), stop=(_STR, _OPT)),
    "start": _args(node=(_INT, _REQ)),
    "start all": {},
    "enter single user": _args(nodeId=(_INT, _REQ)),
    "exit single user": {},
    "listen event": _args(filter=(_STR, _REQ), parsable=(_INT, _OPT), node=(_INT, _OPT)),
    "dump events": _args(type=(_INT, _REQ), nodes=(_STR, _OPT)),
    "dump state": _args(node=(_INT, _REQ), args=(_STR, _REQ)),
    "report event": _args(length=(_INT, _REQ), data=(_STR, _REQ)),
    "create nodegroup": _args(nodes=(_STR, _REQ)),
    "start backup": _args(
        completed=(_INT, _OPT),
        backupid=(_INT, _OPT),
        backuppoint=(_INT, _OPT),
        encryption_password=(ArgType.LONG_STRING, _OPT),
        password_length=(_INT, _OPT),
    ),
    "abort backup": _args(id=(_INT, _REQ)),
    "get config": _args(version=(_INT, _REQ), nodetype=(_INT, _OPT), node=(_INT, _OPT),
                        from_node=(_INT, _OPT)),
    "get config_v2": _args(version=(_INT, _REQ), nodetype=(_INT, _OPT), node=(_INT, _OPT),
                           from_node=(_INT, _OPT)),
    "start tls": {},
    "end session": {},
    "bye": {},
}
"""The commands the simulated server knows, with their arguments (Services.cpp)."""

SINCE: dict[str, tuple[int, int, int]] = {
    "get config_v2": (8, 0, 18),
    "set clientversion": (8, 0, 20),
    "start tls": (8, 3, 0),
}
"""The first version whose server knows each command (``NDB_USE_CONFIG_VERSION_V2_80``;
mgmapi's "support for set version command in 8.0.20"; TLS "added in NDB 8.3.0":
server-rules.md §6, mgm-protocol.md §8.2). An older one answers ``Unknown command``."""


def commands_of(version: int) -> dict[str, dict]:
    """The commands a server of ``version`` (``make_version``'s number) knows."""
    v = split_version(version)
    return {k: spec for k, spec in COMMANDS.items() if v >= SINCE.get(k, (0, 0, 0))}

BOOTSTRAP = frozenset(
    {
        "get version",
        "set clientversion",
        "start tls",
        "end session",
        "check connection",
        "get mgmd nodeid",
    }
)
"""Commands allowed before TLS when the server requires it."""
