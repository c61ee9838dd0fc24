"""``get status``: the per-node status reply, parsed and formatted.

Layout (Services.cpp ``getStatus``/``printNodeStatus``): header ``node status``,
``nodes: <n>``, then per node, NDB group first, then MGM, then API, each by
ascending id: type, status, version, mysql_version, startphase, dynamic_id,
node_group, connect_count, address and, for clients that announced 8.0.22 or
later, is_single_user. Integers are printed with ``%d``, so unsigned values of
2^31 and more come out negative (node group ``RNIL`` is ``-256``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmProtocolError
from ndbtop.mgm.nodeids import MAX_NODE_ID, is_node_id
from ndbtop.mgm.version import version_text
from ndbtop.mgm.wire import Reply, format_block, parse_int
from ndbtop.textnum import is_digits

NODE_TYPES = ("NDB", "MGM", "API")
"""Node types as the wire names them, in the order ``get status`` groups them."""

TYPE_ALIASES = {
    "NDB": "NDB",
    "DB": "NDB",
    "ndbd": "NDB",
    "API": "API",
    "mysqld": "API",
    "MGM": "MGM",
    "ndb_mgmd": "MGM",
}
"""Names ``ndb_mgm_match_node_type`` accepts in a ``types`` argument."""

STATUS_STRINGS = (
    "UNKNOWN",
    "NO_CONTACT",
    "NOT_STARTED",
    "STARTING",
    "STARTED",
    "SHUTTING_DOWN",
    "RESTARTING",
    "SINGLE USER MODE",
    "RESUME",
    "CONNECTED",
)
"""Every status string of ``ndb_mgm_node_status``, in enum order."""

RNIL = 0xFFFFFF00
"""Node group of a data node that belongs to no node group (printed as ``-256``)."""

FIELDS = (
    "type",
    "status",
    "version",
    "mysql_version",
    "startphase",
    "dynamic_id",
    "node_group",
    "connect_count",
    "address",
    "is_single_user",
)

_FIELD_NAME = re.compile(r"[a-z_]+")
_KNOWN = frozenset(FIELDS)


def _node_id(number: str, key: str) -> int:
    if not is_digits(number, 5):
        raise MgmProtocolError(f"unexpected line in node status: {key[:60]!r}")
    node_id = int(number)
    if node_id == 0:
        raise MgmProtocolError("node id 0 in node status")
    return node_id


@dataclass(frozen=True, **SLOTS)
class NodeStatus:
    """One node as ``get status`` reports it.

    ``start_phase`` is the last completed start phase while STARTING and the
    stopping level (1..4) while SHUTTING_DOWN. ``node_group`` is ``None`` for
    a data node in no node group (``RNIL``). ``is_single_user`` is ``None``
    when the server did not send it.
    """

    node_id: int
    type: str
    status: str
    version: int = 0
    mysql_version: int = 0
    start_phase: int = 0
    dynamic_id: int = 0
    node_group: int | None = 0
    connect_count: int = 0
    address: str = ""
    is_single_user: bool | None = None

    @property
    def version_text(self) -> str | None:
        """``8.4.3``, or ``None`` when the node has never connected."""
        return version_text(self.version)

    @property
    def connected(self) -> bool:
        """True when the management server has contact with the node.

        A data node in ``UNKNOWN`` is connected (its start level is one the server
        does not map); an API node in ``UNKNOWN`` could not be asked about (no data
        node answered), so it does not count as connected.
        """
        if self.status == "NO_CONTACT":
            return False
        return not (self.status == "UNKNOWN" and self.type != "NDB")


def _unsigned(value: int) -> int:
    return value & 0xFFFFFFFF


StatusCache = dict[int, tuple[dict[str, str], "NodeStatus"]]
"""The fields and the decoded status of each node in the previous reply of a session."""




def parse_status_reply(
    reply: Reply, cache: StatusCache | None = None, dropped: list[str] | None = None
) -> tuple[NodeStatus, ...]:
    """Decode a ``node status`` reply into nodes, in the order the server sent them.

    Raises :class:`MgmProtocolError` for a wrong header, a malformed line, a
    node without type or status, or a node count that differs from ``nodes:``.
    Field names this version does not know are ignored. With ``cache``, a node
    whose lines are the same as in the previous reply is the same object as
    then (the screen redraws only what changed), and ``cache`` is updated. A node
    whose id is beyond :data:`MAX_NODE_ID` is not a node NDB can have: it is left out,
    and why is added to ``dropped``.
    """
    if reply.header != "node status":
        raise MgmProtocolError(f"expected 'node status', got {reply.header[:60]!r}")
    expected = None
    values: dict[int, dict[str, str]] = {}
    ids: dict[str, dict[str, str]] = {}
    for key, value in reply.fields:
        parts = key.split(".")
        if len(parts) == 3 and parts[0] == "node":
            fields = ids.get(parts[1])
            if fields is None:
                fields = ids[parts[1]] = values.setdefault(_node_id(parts[1], key), {})
            name = parts[2]
            if name in _KNOWN or _FIELD_NAME.fullmatch(name):
                fields[name] = value
                continue
        elif key == "nodes":
            expected = parse_int(value, "nodes")
            continue
        raise MgmProtocolError(f"unexpected line in node status: {key[:60]!r}")
    if expected is None:
        raise MgmProtocolError("node status without 'nodes:'")
    if expected != len(values):
        raise MgmProtocolError(
            f"node status announced {expected} nodes and described {len(values)}"
        )
    for node_id in [n for n in values if not is_node_id(n)]:
        del values[node_id]
        if dropped is not None:
            dropped.append(f"node id {node_id} is beyond {MAX_NODE_ID}")
    if cache is None:
        return tuple(_node(node_id, fields) for node_id, fields in values.items())
    nodes = []
    for node_id, fields in values.items():
        known = cache.get(node_id)
        if known is not None and known[0] == fields:
            nodes.append(known[1])
            continue
        node = _node(node_id, fields)
        cache[node_id] = (fields, node)
        nodes.append(node)
    if len(cache) > len(values):
        for node_id in [n for n in cache if n not in values]:
            del cache[node_id]
    return tuple(nodes)


def _node(node_id: int, f: dict[str, str]) -> NodeStatus:
    for required in ("type", "status"):
        if required not in f:
            raise MgmProtocolError(f"node {node_id} has no {required}")

    def num(name: str) -> int:
        return parse_int(f[name], f"node.{node_id}.{name}") if name in f else 0

    group = _unsigned(num("node_group"))
    single = f.get("is_single_user")
    return NodeStatus(
        node_id=node_id,
        type=f["type"],
        status=f["status"],
        version=_unsigned(num("version")),
        mysql_version=_unsigned(num("mysql_version")),
        start_phase=_unsigned(num("startphase")),
        dynamic_id=_unsigned(num("dynamic_id")),
        node_group=None if group == RNIL else group,
        connect_count=_unsigned(num("connect_count")),
        address=f.get("address", ""),
        is_single_user=None if single is None else parse_int(single, "is_single_user") != 0,
    )


def _signed(value: int) -> int:
    """Print an unsigned 32-bit value as ``%d`` does."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def format_status_reply(
    nodes: Iterable[NodeStatus], types: Iterable[str] = NODE_TYPES, single_user_field: bool = True
) -> bytes:
    """Format a ``node status`` reply for the requested node types, as the server does."""
    by_type: dict[str, list[NodeStatus]] = {t: [] for t in NODE_TYPES}
    for n in nodes:
        by_type.setdefault(n.type, []).append(n)
    chosen = [n for t in types for n in sorted(by_type.get(t, ()), key=lambda n: n.node_id)]
    fields: list[tuple[str, object]] = [("nodes", len(chosen))]
    for n in chosen:
        p = f"node.{n.node_id}."
        fields += [
            (p + "type", n.type),
            (p + "status", n.status),
            (p + "version", _signed(n.version)),
            (p + "mysql_version", _signed(n.mysql_version)),
            (p + "startphase", _signed(n.start_phase)),
            (p + "dynamic_id", _signed(n.dynamic_id)),
            (p + "node_group", _signed(RNIL if n.node_group is None else n.node_group)),
            (p + "connect_count", _signed(n.connect_count)),
            (p + "address", n.address),
        ]
        if single_user_field:
            fields.append((p + "is_single_user", int(bool(n.is_single_user))))
    return format_block("node status", fields)


def parse_types_argument(value: str) -> tuple[str, ...]:
    """Node types of a ``types:`` argument as the server reads them.

    At most three names; an unknown or empty name ends the list. No argument
    at all means NDB, MGM, API.
    """
    out: list[str] = []
    for name in value.split(" "):
        t = TYPE_ALIASES.get(name)
        if t is None or len(out) == 3:
            break
        out.append(t)
    return tuple(out)
