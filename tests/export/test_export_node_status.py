"""Node status, versions and single-user mode as ``ndbtop export`` serves them, for
``get status`` replies as the management server gives them (mgm-protocol.md §2.2-2.4:
status strings of ``ndb_mgm_node_status``, versions as ``(A<<16)|(B<<8)|C``, and
``is_single_user`` only for clients that announced 8.0.22 or later)."""

from __future__ import annotations

from export_helpers import samples, up, value
from test_export_families import NODES, snapshot

from ndbtop.mgm.status import STATUS_STRINGS, NodeStatus, parse_status_reply
from ndbtop.mgm.wire import Reply, ReplyParser


def status_of(found: dict, node_id: str) -> dict[str, float]:
    return {dict(k[1])["status"]: v for k, v in found.items()
            if k[0] == "ndb_node_status" and dict(k[1])["node_id"] == node_id}


def test_every_node_has_every_status_at_0_or_1() -> None:
    found = samples(snapshot())
    for n in NODES:
        got = status_of(found, str(n.node_id))
        assert set(got) == set(STATUS_STRINGS)
        assert got == {s: 1.0 if s == n.status else 0.0 for s in STATUS_STRINGS}
    assert value(found, "ndb_node_status", node_id="3", node_type="NDB", status="NO_CONTACT") == 1
    assert value(found, "ndb_node_status", node_id="3", node_type="NDB", status="STARTED") == 0
    assert value(found, "ndb_node_status", node_id="1", node_type="MGM", status="CONNECTED") == 1


def test_a_status_change_moves_the_1_between_the_same_series() -> None:
    before = samples(snapshot(nodes=(NodeStatus(2, "NDB", "STARTING", start_phase=3),)))
    after = samples(snapshot(nodes=(NodeStatus(2, "NDB", "STARTED"),)))
    keys = {k for k in before if k[0] == "ndb_node_status"}
    assert keys == {k for k in after if k[0] == "ndb_node_status"}
    assert status_of(before, "2")["STARTING"] == status_of(after, "2")["STARTED"] == 1


def test_a_status_no_server_sends_today_is_served_beside_the_known_ones() -> None:
    found = samples(snapshot(nodes=(NodeStatus(2, "NDB", "PAUSED"),)))
    got = status_of(found, "2")
    assert got["PAUSED"] == 1 and sum(got.values()) == 1 and len(got) == len(STATUS_STRINGS) + 1


REPLY = [
    # As SVC getStatus prints it to a client that announced 8.0.22 or later (§2.2, §1.7).
    "node status", "nodes: 3",
    "node.2.type: NDB", "node.2.status: SINGLE USER MODE", "node.2.version: 525315",
    "node.2.mysql_version: 525315", "node.2.startphase: 0", "node.2.dynamic_id: 2",
    "node.2.node_group: 0", "node.2.connect_count: 1", "node.2.address: 10.0.0.2",
    "node.2.is_single_user: 0",
    "node.1.type: MGM", "node.1.status: CONNECTED", "node.1.version: 525315",
    "node.1.mysql_version: 525315", "node.1.startphase: 0", "node.1.dynamic_id: 0",
    "node.1.node_group: 0", "node.1.connect_count: 0", "node.1.address: 10.0.0.1",
    "node.1.is_single_user: 0",
    "node.50.type: API", "node.50.status: CONNECTED", "node.50.version: 525315",
    "node.50.mysql_version: 525315", "node.50.startphase: 0", "node.50.dynamic_id: 0",
    "node.50.node_group: 0", "node.50.connect_count: 0", "node.50.address: 10.0.0.50",
    "node.50.is_single_user: 1",
]


def reply_nodes(lines: list[str]) -> tuple[NodeStatus, ...]:
    parser = ReplyParser()
    replies = [parser.feed(line) for line in [*lines, ""]]
    reply = replies[-1]
    assert isinstance(reply, Reply)
    return parse_status_reply(reply)


def test_versions_and_single_user_mode_from_the_servers_reply() -> None:
    found = samples(snapshot(nodes=reply_nodes(REPLY)))
    # 525315 = 0x080403: 8.4.3 (§2.4).
    for node in ("1", "2", "50"):
        assert value(found, "ndb_node_version_info", node_id=node, version="8.4.3") == 1
    assert value(found, "ndb_single_user_mode", api_node_id="50") == 1
    assert status_of(found, "2")["SINGLE USER MODE"] == 1


def test_single_user_mode_without_the_holder_and_out_of_it() -> None:
    # A server before 8.0.22, or a client that did not announce it, sends no is_single_user.
    older = [line for line in REPLY if "is_single_user" not in line]
    found = samples(snapshot(nodes=reply_nodes(older)))
    assert value(found, "ndb_single_user_mode", api_node_id="") == 1
    found = samples(snapshot())
    assert value(found, "ndb_single_user_mode", api_node_id="") == 0
    assert [k for k in found if k[0] == "ndb_single_user_mode"] == [
        ("ndb_single_user_mode", frozenset({("api_node_id", "")}))]


def test_a_node_never_connected_has_no_version() -> None:
    found = samples(snapshot())
    versions = {dict(k[1])["node_id"] for k in found if k[0] == "ndb_node_version_info"}
    assert versions == {str(n.node_id) for n in NODES if n.version}
    assert "3" not in versions and "50" not in versions


def test_without_the_management_server_none_of_these_is_served() -> None:
    found = samples(snapshot(sources=up("events")))
    assert not {k[0] for k in found} & {"ndb_node_status", "ndb_node_version_info",
                                        "ndb_single_user_mode"}
