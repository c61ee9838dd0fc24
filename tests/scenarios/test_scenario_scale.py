"""The ``large`` and ``max`` scenarios, watched through both protocols: 48 and 144 data
nodes in node groups of two, 32 threads each, two management servers and the API slots
left over."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scenario_watch import Watch, assert_reference_texts

from ndbtop.compat import zip_strict
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring

CPU_BY_THREAD = (
    "SELECT c.node_id, c.thr_no, t.thread_name, c.OS_user FROM ndbinfo.cpustat c "
    "JOIN ndbinfo.threads t ON c.node_id = t.node_id AND c.thr_no = t.thr_no"
)


@pytest.mark.parametrize(
    ("name", "data_nodes", "api_nodes"), [("large", 48, 100), ("max", 144, 109)]
)
async def test_every_node_answers_both_protocols(
    watch: Watch, make_client: Callable[..., MgmClient], name: str, data_nodes: int, api_nodes: int
) -> None:
    w = await watch(name)
    await w.run_to(30.0, step=10.0)
    status = await w.status()
    by_type: dict[str, list[int]] = {}
    for node in status.values():
        by_type.setdefault(node.type, []).append(node.node_id)
    assert sorted(by_type["NDB"]) == list(range(1, data_nodes + 1))
    assert sorted(by_type["MGM"]) == [data_nodes + 1, data_nodes + 2]
    assert len(by_type["API"]) == api_nodes
    for node_id in by_type["NDB"]:
        node = status[node_id]
        assert (node.status, node.node_group) == ("STARTED", (node_id - 1) // 2)
    assert {status[m].status for m in by_type["MGM"]} == {"CONNECTED"}
    assert {status[a].status for a in by_type["API"]} <= {"CONNECTED", "NO_CONTACT"}

    # Both management servers answer, each naming itself.
    addresses = parse_connectstring(w.sim.connectstring).addresses
    assert len(addresses) == 2
    for address, mgmd in zip_strict(addresses, by_type["MGM"]):
        client = make_client(f"{address.host}:{address.port}")
        assert await client.get_mgmd_nodeid() == mgmd
        assert len(await client.get_status(["NDB"])) == data_nodes

    rows = await w.query(CPU_BY_THREAD)
    assert len(rows) == data_nodes * 32
    per_node: dict[int, int] = {}
    for node_id, *_ in rows:
        per_node[node_id] = per_node.get(node_id, 0) + 1
    assert per_node == dict.fromkeys(range(1, data_nodes + 1), 32)
    if name == "large":
        assert len(rows) == 1536
    assert_reference_texts(w.events)
