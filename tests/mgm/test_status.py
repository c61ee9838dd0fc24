"""``get status``: the reference's complete example (§2.6), the ``%d`` printing of
unsigned values, the strictness of the parser, and format -> parse round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.compat import zip_strict
from ndbtop.errors import MgmProtocolError
from ndbtop.mgm.status import (
    MAX_NODE_ID,
    NODE_TYPES,
    RNIL,
    STATUS_STRINGS,
    NodeStatus,
    format_status_reply,
    parse_status_reply,
    parse_types_argument,
)
from ndbtop.mgm.wire import Reply, parse_replies

V843 = 525315

EXAMPLE_2_6 = b"""node status
nodes: 5
node.2.type: NDB
node.2.status: STARTED
node.2.version: 525315
node.2.mysql_version: 525315
node.2.startphase: 0
node.2.dynamic_id: 1
node.2.node_group: 0
node.2.connect_count: 1
node.2.address: 10.0.0.2
node.2.is_single_user: 0
node.3.type: NDB
node.3.status: STARTING
node.3.version: 525315
node.3.mysql_version: 525315
node.3.startphase: 4
node.3.dynamic_id: 2
node.3.node_group: 0
node.3.connect_count: 1
node.3.address: 10.0.0.3
node.3.is_single_user: 0
node.1.type: MGM
node.1.status: CONNECTED
node.1.version: 525315
node.1.mysql_version: 525315
node.1.startphase: 0
node.1.dynamic_id: 0
node.1.node_group: 0
node.1.connect_count: 0
node.1.address: 10.0.0.1
node.1.is_single_user: 0
node.4.type: API
node.4.status: CONNECTED
node.4.version: 525315
node.4.mysql_version: 525315
node.4.startphase: 0
node.4.dynamic_id: 0
node.4.node_group: 0
node.4.connect_count: 0
node.4.address: 10.0.0.4
node.4.is_single_user: 0
node.5.type: API
node.5.status: NO_CONTACT
node.5.version: 0
node.5.mysql_version: 0
node.5.startphase: 0
node.5.dynamic_id: 0
node.5.node_group: 0
node.5.connect_count: 0
node.5.address:
node.5.is_single_user: 0

""".replace(b"node.5.address:\n", b"node.5.address: \n")
"""The complete example of the reference; the free API slot's address line ends with a space."""

EXAMPLE_NODES = (
    NodeStatus(2, "NDB", "STARTED", V843, V843, 0, 1, 0, 1, "10.0.0.2", False),
    NodeStatus(3, "NDB", "STARTING", V843, V843, 4, 2, 0, 1, "10.0.0.3", False),
    NodeStatus(1, "MGM", "CONNECTED", V843, V843, 0, 0, 0, 0, "10.0.0.1", False),
    NodeStatus(4, "API", "CONNECTED", V843, V843, 0, 0, 0, 0, "10.0.0.4", False),
    NodeStatus(5, "API", "NO_CONTACT", 0, 0, 0, 0, 0, 0, "", False),
)


def status_reply(data: bytes) -> Reply:
    replies = parse_replies(data)
    assert len(replies) == 1
    reply = replies[0]
    assert isinstance(reply, Reply)
    return reply


def test_reference_example_parses_to_every_field() -> None:
    nodes = parse_status_reply(status_reply(EXAMPLE_2_6))
    assert nodes == EXAMPLE_NODES
    assert nodes[1].version_text == "8.4.3"
    assert nodes[4].version_text is None
    assert not nodes[4].connected
    assert nodes[3].connected


def test_a_cache_keeps_unchanged_nodes_as_the_same_objects() -> None:
    cache: dict = {}
    first = parse_status_reply(status_reply(EXAMPLE_2_6), cache)
    again = parse_status_reply(status_reply(EXAMPLE_2_6), cache)
    assert again == first and all(a is b for a, b in zip_strict(again, first))
    changed = EXAMPLE_2_6.replace(b"node.2.startphase: 0", b"node.2.startphase: 4")
    assert changed != EXAMPLE_2_6
    third = parse_status_reply(status_reply(changed), cache)
    moved = [n.node_id for a, n in zip_strict(again, third) if a is not n]
    assert moved == [2] and third[1].start_phase == 4


def test_a_cache_forgets_nodes_that_left_the_reply() -> None:
    cache: dict = {}
    parse_status_reply(status_reply(EXAMPLE_2_6), cache)
    ndb_only = format_status_reply(EXAMPLE_NODES, types=("NDB",))
    nodes = parse_status_reply(status_reply(ndb_only), cache)
    assert sorted(cache) == sorted(n.node_id for n in nodes)


def test_reference_example_is_what_format_prints() -> None:
    assert format_status_reply(EXAMPLE_NODES) == EXAMPLE_2_6


def test_without_is_single_user_the_field_is_none() -> None:
    data = EXAMPLE_2_6.replace(b"node.2.is_single_user: 0\n", b"")
    nodes = parse_status_reply(status_reply(data))
    assert nodes[0].is_single_user is None
    assert nodes[1].is_single_user is False
    without = format_status_reply(EXAMPLE_NODES, single_user_field=False)
    assert b"is_single_user" not in without
    assert [n.is_single_user for n in parse_status_reply(status_reply(without))] == [None] * 5


def test_types_ndb_prints_only_data_nodes_and_counts_them() -> None:
    data = format_status_reply(EXAMPLE_NODES, ("NDB",))
    assert data.startswith(b"node status\nnodes: 2\nnode.2.type: NDB\n")
    assert [n.node_id for n in parse_status_reply(status_reply(data))] == [2, 3]


def test_node_group_rnil_prints_as_minus_256_and_parses_to_none() -> None:
    node = NodeStatus(5, "NDB", "NOT_STARTED", V843, V843, node_group=None, address="h")
    data = format_status_reply([node], ("NDB",))
    assert b"node.5.node_group: -256\n" in data
    assert parse_status_reply(status_reply(data))[0].node_group is None
    assert RNIL == 0xFFFFFF00


def test_unsigned_values_print_with_percent_d_and_parse_back_unsigned() -> None:
    node = NodeStatus(
        7, "NDB", "STARTED", 0xFFFFFFFF, 0x80000000, 0, 0xFFFFFFFE, 3, 0x80000001, "x", True
    )
    data = format_status_reply([node], ("NDB",))
    assert b"node.7.version: -1\n" in data
    assert b"node.7.mysql_version: -2147483648\n" in data
    assert b"node.7.dynamic_id: -2\n" in data
    assert b"node.7.is_single_user: 1\n" in data
    assert parse_status_reply(status_reply(data)) == (node,)


def test_shutting_down_node_carries_its_stop_level_in_startphase() -> None:
    data = (
        b"node status\nnodes: 1\nnode.3.type: NDB\nnode.3.status: SHUTTING_DOWN\n"
        b"node.3.version: 525315\nnode.3.mysql_version: 525315\nnode.3.startphase: 2\n"
        b"node.3.dynamic_id: 2\nnode.3.node_group: 0\nnode.3.connect_count: 1\n"
        b"node.3.address: 10.0.0.3\n\n"
    )
    (node,) = parse_status_reply(status_reply(data))
    assert (node.status, node.start_phase) == ("SHUTTING_DOWN", 2)


def test_single_user_mode_status_has_spaces() -> None:
    data = b"node status\nnodes: 1\nnode.2.type: NDB\nnode.2.status: SINGLE USER MODE\n\n"
    (node,) = parse_status_reply(status_reply(data))
    assert node.status == "SINGLE USER MODE"
    assert node.connected
    assert "SINGLE USER MODE" in STATUS_STRINGS


def test_unknown_fields_are_ignored() -> None:
    data = EXAMPLE_2_6.replace(
        b"node.2.address: 10.0.0.2\n", b"node.2.address: 10.0.0.2\nnode.2.future_field: 9\n"
    )
    assert parse_status_reply(status_reply(data)) == EXAMPLE_NODES


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"version\nid: 1\n\n", "expected 'node status'"),
        (b"node status\nnode.2.type: NDB\nnode.2.status: STARTED\n\n", "without 'nodes:'"),
        (b"node status\nnodes: 2\nnode.2.type: NDB\nnode.2.status: STARTED\n\n", "announced 2"),
        (b"node status\nnodes: 1\nnode.0.type: NDB\nnode.0.status: STARTED\n\n", "node id 0"),
        (b"node status\nnodes: 1\nnode.2.status: STARTED\n\n", "has no type"),
        (b"node status\nnodes: 1\nnode.2.type: NDB\n\n", "has no status"),
        (b"node status\nnodes: 1\nnodes.2.type: NDB\n\n", "unexpected line"),
        (
            b"node status\nnodes: 1\nnode.2.type: NDB\nnode.2.status: STARTED\n"
            b"node.2.version: 8.4.3\n\n",
            "expected a number",
        ),
        (b"node status\nnodes: x\n\n", "expected a number"),
        (b"node status\nnodes: 1\nnode.2.Type: NDB\n\n", "unexpected line"),
        (b"node status\nnodes: 1\nnode.x2.type: NDB\n\n", "unexpected line"),
        (b"node status\nnodes: 1\nnode.123456.type: NDB\n\n", "unexpected line"),
        (b"node status\nnodes: 1\nnode.\xd9\xa2.type: NDB\n\n", "unexpected line"),
        (b"node status\nnodes: 1\nnode.2.type.x: NDB\n\n", "unexpected line"),
        (b"node status\nnodes: 1\nnode.2.type: NDB\nnode.2.status: STARTED\nid: 2\n\n",
         "unexpected line"),
    ],
)
def test_malformed_status_replies_are_protocol_errors(data: bytes, message: str) -> None:
    with pytest.raises(MgmProtocolError, match=message):
        parse_status_reply(status_reply(data))


@pytest.mark.parametrize(
    ("value", "types"),
    [
        ("NDB", ("NDB",)),
        ("NDB ", ("NDB",)),
        ("ndbd mysqld ndb_mgmd", ("NDB", "API", "MGM")),
        ("DB API MGM NDB", ("NDB", "API", "MGM")),
        ("API junk NDB", ("API",)),
        ("", ()),
        ("ndb", ()),
    ],
)
def test_types_argument_is_read_as_the_server_does(value: str, types: tuple[str, ...]) -> None:
    assert parse_types_argument(value) == types


_U32 = st.integers(0, 0xFFFFFFFF)
_ADDRESS = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\n\r"), max_size=30
)


@st.composite
def node_sets(draw: st.DrawFn) -> list[NodeStatus]:
    ids = draw(st.lists(st.integers(1, MAX_NODE_ID), min_size=0, max_size=12, unique=True))
    nodes = []
    for node_id in ids:
        nodes.append(
            NodeStatus(
                node_id,
                draw(st.sampled_from(NODE_TYPES)),
                draw(st.sampled_from(STATUS_STRINGS)),
                draw(_U32),
                draw(_U32),
                draw(_U32),
                draw(_U32),
                draw(st.one_of(st.none(), _U32.filter(lambda g: g != RNIL))),
                draw(_U32),
                draw(_ADDRESS),
                draw(st.booleans()),
            )
        )
    return nodes


@settings(max_examples=200, deadline=None)
@given(node_sets(), st.booleans())
def test_format_then_parse_round_trips(nodes: list[NodeStatus], single_user: bool) -> None:
    data = format_status_reply(nodes, NODE_TYPES, single_user)
    parsed = parse_status_reply(status_reply(data))
    expected = sorted(nodes, key=lambda n: (NODE_TYPES.index(n.type), n.node_id))
    if not single_user:
        expected = [_without_single_user(n) for n in expected]
    assert list(parsed) == expected


def _without_single_user(node: NodeStatus) -> NodeStatus:
    return NodeStatus(
        node.node_id,
        node.type,
        node.status,
        node.version,
        node.mysql_version,
        node.start_phase,
        node.dynamic_id,
        node.node_group,
        node.connect_count,
        node.address,
        None,
    )


_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_LINE, _LINE), max_size=20))
def test_arbitrary_fields_only_raise_protocol_errors(fields: list[tuple[str, str]]) -> None:
    try:
        nodes = parse_status_reply(Reply("node status", tuple(fields)))
    except MgmProtocolError:
        return
    assert all(n.node_id > 0 for n in nodes)


def test_a_data_node_in_unknown_is_connected_an_api_node_is_not() -> None:
    from ndbtop.mgm.status import NodeStatus
    from ndbtop.tui.format import status_text

    data = NodeStatus(3, "NDB", "UNKNOWN", 525315, 525315, 0, 2, 0, 1, "10.0.0.3")
    api = NodeStatus(9, "API", "UNKNOWN")
    assert data.connected and not api.connected
    assert not NodeStatus(4, "NDB", "NO_CONTACT").connected
    assert status_text("UNKNOWN", "NDB").plain == "UNKNOWN (connected)"
    assert status_text("NO_CONTACT", "NDB").plain == "NO_CONTACT"
