"""``get config_v2`` / ``get config``: asking a management server for the configuration.

The reply is a block (``get config reply``, ``result``, ``Content-Length``,
``Content-Type: ndbconfig/octet-stream``, ``Content-Transfer-Encoding:
base64``, empty line) followed by the base64 text. Newer servers count the
text in ``Content-Length`` and end it with one newline; 7.x and early 8.0
servers count one more byte and end it with two. Both come to
``Content-Length`` + 1 bytes, read here as whole lines.
"""

from __future__ import annotations

import base64
import binascii

from ndbtop.errors import MgmError, MgmParserError, MgmProtocolError
from ndbtop.mgm.packed_config import MAX_CONFIG_BYTES, ConfigFormatError
from ndbtop.mgm.session import Deadline, MgmSession
from ndbtop.mgm.version import make_version
from ndbtop.mgm.wire import Reply
from ndbtop.textnum import is_digits

MAX_BODY_CHARS = MAX_CONFIG_BYTES * 3 // 2
"""Longest base64 body accepted: the largest configuration accepted, in base64 (4/3 of it)
with its line breaks."""
V2_SINCE = make_version(8, 0, 18)
"""First server version that speaks the v2 packed format and knows ``get config_v2``
(``NDB_USE_CONFIG_VERSION_V2_80``, server-rules.md §6)."""
NODE_TYPE_UNKNOWN = 4294967295
"""``nodetype: -1`` as mgmapi prints it (unsigned)."""


class ConfigUnavailable(MgmError):
    """The server sent no usable configuration; the message is the one-line reason."""


def decode_body(text: bytes) -> bytes:
    """The bytes of a base64 body (whitespace anywhere in it is skipped)."""
    if len(text) > MAX_BODY_CHARS:
        raise ConfigFormatError(f"configuration body of {len(text)} bytes is too large")
    try:
        return base64.b64decode(text.translate(None, b" \t\r\n"), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConfigFormatError(f"configuration body is not valid base64 ({exc})") from None


def config_command(server_version: int | None) -> str:
    """The command the real client uses for a server of this version."""
    return "get config_v2" if server_version is None or server_version >= V2_SINCE else "get config"


def config_args(command: str, client_version: int, from_node: int = 0
                ) -> list[tuple[str, str | int]]:
    """The request's arguments: no node id (ndbtop has none), so every connection is sent;
    with ``from_node``, the configuration that data node runs."""
    args: list[tuple[str, str | int]] = [("version", client_version),
                                         ("nodetype", NODE_TYPE_UNKNOWN)]
    if from_node:
        args.append(("from_node", from_node))
    elif command == "get config_v2":
        args.append(("node", 0))
    return args


async def fetch_config(session: MgmSession, command: str, client_version: int,
                       timeout: float, from_node: int = 0) -> bytes:
    """Send one configuration request on ``session``; returns the packed configuration.

    Raises :class:`ConfigUnavailable` for a refusal or a body that is not
    base64 (the session stays usable), :class:`MgmParserError` when the server
    does not know the command, or a transport error.
    """
    end = Deadline(timeout)  # the reply and its body: one exchange
    reply = await session.request(command, config_args(command, client_version, from_node), end)
    if reply.header != "get config reply":
        session.close()
        raise MgmProtocolError(f"expected 'get config reply', got {reply.header[:60]!r}")
    result = reply.get("result")
    if result != "Ok":
        raise ConfigUnavailable(f"management server refused the configuration: "
                                f"{(result or 'no result')[:200]}")
    length = _content_length(session, reply)
    body = await session.read_counted(length + 1, end)
    try:
        return decode_body(body)
    except ConfigFormatError as exc:
        raise ConfigUnavailable(f"configuration unavailable: {exc}") from None


def _content_length(session: MgmSession, reply: Reply) -> int:
    for key, expected in (("Content-Type", "ndbconfig/octet-stream"),
                          ("Content-Transfer-Encoding", "base64")):
        value = reply.get(key)
        if value != expected:
            # A body of unknown form may follow: the stream cannot be trusted any more.
            session.close()
            raise ConfigUnavailable(f"configuration unavailable: {key} is "
                                    f"{(value or 'missing')[:60]!r}, not {expected}")
    text = reply.get("Content-Length")
    if text is None or not is_digits(text, 12):
        session.close()
        raise ConfigUnavailable(f"configuration unavailable: Content-Length {text!r}")
    length = int(text)
    if length > MAX_BODY_CHARS:
        session.close()
        raise ConfigUnavailable(f"configuration unavailable: Content-Length {length} is too large")
    return length


__all__ = ["ConfigUnavailable", "MgmParserError", "config_command", "fetch_config"]
