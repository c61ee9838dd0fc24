"""Typed errors shared by every part of ndbtop.

Every error a user can cause (bad input, unreachable server, refused action)
is an :class:`NdbtopError`; its ``str()`` is the one-line message the command
line prints before exiting with the status its class calls for (``ndbtop.cli.exits``).
"""

from __future__ import annotations

from ndbtop.textnum import is_digits


class NdbtopError(Exception):
    """Base class of every error ndbtop reports to a user as one line."""


class UsageError(NdbtopError):
    """Bad command-line input (options, connect strings, node ids)."""


class ConnectStringError(UsageError):
    """A connect string that cannot be parsed."""


class FileError(NdbtopError):
    """A file that cannot be read or written (a recording, the bundle, the audit log)."""


class MgmError(NdbtopError):
    """Any failure talking to a management server."""


class MgmConnectError(MgmError):
    """No management server in the connect string accepted a connection."""


class MgmTimeout(MgmError):
    """A management server did not answer within the call's timeout."""


class MgmDisconnected(MgmError):
    """The management server closed the connection."""


class MgmProtocolError(MgmError):
    """Bytes from the server that do not follow the management protocol."""


class MgmLineTooLong(MgmProtocolError):
    """A line longer than the protocol allows."""


class MgmTlsError(MgmError):
    """TLS to the management server could not be set up or was refused."""


class MgmParserError(MgmError):
    """The server's request parser rejected a request (``result: Unknown command, ...``)."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(f"management server rejected the request: {message}, '{token}'")
        self.message = message
        self.token = token


class MgmAuthError(MgmError):
    """The server refused the command before running it (``Authorization failed``)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        text = "management server requires TLS" if reason == "Requires TLS" else reason
        more = f"; {detail}" if detail else ""
        super().__init__(f"{text} (Authorization failed: {reason}){more}")
        self.reason = reason


class MgmCommandError(MgmError):
    """A command ran and the server answered with an error result.

    ``result`` is the server's text, verbatim; ``code`` the NDB error code when
    the text starts with one (``5028-...``); ``node_ids`` the nodes it concerns.
    """

    def __init__(self, command: str, result: str, node_ids: tuple[int, ...] = ()) -> None:
        self.command = command
        self.result = result
        self.node_ids = node_ids
        self.code = _leading_code(result)
        where = f" (node {' '.join(map(str, node_ids))})" if node_ids else ""
        super().__init__(f"{command}{where}: {result}")


class SqlError(NdbtopError):
    """Any failure talking to the SQL node."""


def _leading_code(result: str) -> int | None:
    head, sep, _ = result.partition("-")
    if sep and is_digits(head, 9):
        return int(head)
    return None
