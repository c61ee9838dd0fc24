"""The management server's replies as ndbtop reads them, and the arguments it sends:
versions, node-control results, ``OK`` checks, log-level names, backup arguments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmCommandError, MgmProtocolError, MgmTimeout
from ndbtop.mgm.errorcodes import code_of_text
from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.catalogue import Category
from ndbtop.mgm.nodeids import MAX_NODE_ID
from ndbtop.mgm.session import Deadline, MgmSession, deadline
from ndbtop.mgm.version import make_version
from ndbtop.mgm.wire import RawEvent, Reply
from ndbtop.textnum import is_digits

CLUSTER_LOGLEVEL_NAMES = tuple(c.loglevel_name for c in Category)
"""``get cluster loglevel`` names, in the order of categories 250..262."""

SEVERITY_NAMES = ("enabled", "debug", "info", "warning", "error", "critical", "alert")
"""``get info clusterlog`` names, in the order of severities 0..6."""


@dataclass(frozen=True, **SLOTS)
class ServerVersion:
    """What ``get version`` says about the management server."""

    id: int
    major: int
    minor: int
    build: int
    string: str

    @property
    def text(self) -> str:
        """``8.4.3``."""
        return f"{self.major}.{self.minor}.{self.build}"


@dataclass(frozen=True, **SLOTS)
class NodeControlResult:
    """Reply to restart/stop/start: how many nodes the server acted on, verbatim result."""

    command: str
    node_ids: tuple[int, ...]
    result: str
    count: int
    disconnect: bool


def parse_version(reply: Reply) -> ServerVersion:
    """The ``version`` reply of ``get version``."""
    expect_header(reply, "version")
    major, minor, build = (reply.require_int(k) for k in ("major", "minor", "build"))
    vid = reply.get("id")
    return ServerVersion(
        id=int(vid)
        if vid and is_digits(vid, 10)
        else make_version(major, minor, build),
        major=major,
        minor=minor,
        build=build,
        string=reply.get("string") or "",
    )


def expect_header(reply: Reply, header: str) -> None:
    """Raise unless ``reply`` is the reply ``header`` names."""
    if reply.header != header:
        raise MgmProtocolError(f"expected '{header}', got {reply.header[:60]!r}")


def expect_ok(reply: Reply, header: str, command: str, node_ids: tuple[int, ...] = ()) -> None:
    """Raise unless ``reply`` is ``header`` with ``result: Ok`` (else the command's error)."""
    expect_header(reply, header)
    result = reply.require("result")
    if result != "Ok":
        raise MgmCommandError(command, result, node_ids)


def control_result(
    reply: Reply, header: str, command: str, count_key: str | None, node_ids: Sequence[int]
) -> NodeControlResult:
    """The result of a restart, stop or start reply (its error raised).

    ``restart`` answers ``<code>-<text>``, ``stop`` and ``start`` the text alone
    (Services.cpp ``MgmApiSession::stop``: ``result: %s`` of ``get_error_text``): the
    error's ``code`` is then the one whose text it is."""
    expect_header(reply, header)
    result = reply.require("result")
    ids = tuple(node_ids)
    if result != "Ok":
        error = MgmCommandError(command, result, ids)
        if error.code is None:
            error.code = code_of_text(result)
        raise error
    count = reply.require_int(count_key) if count_key else len(ids)
    disconnect = reply.get("disconnect", "0") not in ("0", None)
    return NodeControlResult(command, ids, result, count, disconnect)


def node_list(node_ids: Sequence[int]) -> str:
    """The ``node`` argument: ids 1-255, space-separated."""
    if not node_ids:
        raise ValueError("no node ids given")
    for n in node_ids:
        if not 1 <= n <= 255:
            raise ValueError(f"node id {n} out of range (1-255)")
    return " ".join(str(n) for n in node_ids)


def backup_request_args(
    wait: int, backup_id: int | None, snapshot_start: bool
) -> list[tuple[str, str | int]]:
    """The arguments of ``start backup`` (``ndb_mgm_start_backup4``): ``completed``,
    ``backupid`` only when given, and ``backuppoint`` (servers since 6.4)."""
    if wait not in (0, 1, 2):
        raise ValueError(f"wait must be 0, 1 or 2, not {wait}")
    args: list[tuple[str, str | int]] = [("completed", wait)]
    if backup_id:
        args.append(("backupid", backup_id))
    args.append(("backuppoint", 1 if snapshot_start else 0))
    return args


MAX_DUMP_EVENTS = 2 * MAX_NODE_ID
"""Most event blocks a ``dump events`` reply may announce: MemoryUsage, the largest, is two
reports a node (mgm-protocol.md §7.2)."""


async def read_event_blocks(
    session: MgmSession, count: int, timeout: float | Deadline
) -> tuple[RawEvent, ...]:
    """The ``count`` event blocks that follow a ``dump events`` reply, all within ``timeout``
    (the exchange's deadline: a server trickling lines cannot hold it longer)."""
    if not 0 <= count <= MAX_DUMP_EVENTS:
        session.close()
        raise MgmProtocolError(f"dump events reply announces {count} events "
                               f"(at most {MAX_DUMP_EVENTS}: two a node)")
    end = deadline(timeout)
    parser = EventStreamParser()
    events: list[RawEvent] = []
    while len(events) < count:
        try:
            line = await session.read_line(end)
        except MgmTimeout:
            raise MgmTimeout(f"{session.address}: dump events reply not complete within "
                             f"{end.seconds:g} s ({len(events)} of {count} events)") from None
        try:
            item = parser.feed(line)
        except MgmProtocolError:
            session.close()
            raise
        if isinstance(item, RawEvent):
            events.append(item)
        elif item is not None:
            session.close()
            raise MgmProtocolError(f"unexpected line in dump events reply: {item!r}")
    return tuple(events)
