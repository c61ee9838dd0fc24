"""The simulated management server's configuration: the same topology as ``get status``,
packed as the real server packs it, read back by ndbtop's client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ndbtop.mgm.client import MgmClient
from ndbtop.model.config import NO_NODE_GROUP
from ndbtop.model.config_decode import config_from_blob, decode_config
from ndbtop.sim.cluster.datanode import STARTED
from ndbtop.sim.config_blob import pack_v1, pack_v2
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import CONFIG_CHANGE_AT, ScenarioOptions, build_scenario

StartSim = Callable[..., Awaitable[Simulator]]
MakeClient = Callable[..., MgmClient]
Raw = Callable[[int], Awaitable[Any]]


async def test_node_groups_come_from_the_configuration_not_the_zeros_of_get_status(
    start_sim: StartSim, make_client: MakeClient
) -> None:
    sim = await start_sim("node-groups")
    client = make_client(sim.connectstring)
    config = config_from_blob(await client.get_config_blob())
    assert {d.node_id: d.node_group for d in config.data_nodes} == {2: 0, 3: 1, 4: 0, 5: 1}
    assert config.data_node(5).host == "192.168.0.5"
    status = {n.node_id: n for n in await client.get_status()}
    node5 = status[5]
    assert (node5.status, node5.node_group, node5.address, node5.version) == \
        ("NO_CONTACT", 0, "", 0)
    assert {n.node_id for n in config.nodes} == set(status)
    assert {n.node_id: n.node_type for n in config.nodes} == {i: n.type for i, n in status.items()}


async def test_nodes_added_before_create_nodegroup_are_in_no_group(
    start_sim: StartSim, make_client: MakeClient
) -> None:
    sim = await start_sim("add-node")
    config = config_from_blob(await make_client(sim.connectstring).get_config_blob())
    groups = {d.node_id: d.node_group for d in config.data_nodes}
    assert groups == {3: 0, 4: 0, 5: NO_NODE_GROUP, 6: NO_NODE_GROUP}
    redo = config.data_node(3)
    assert redo.redo_log_bytes == 4 * 8 * 64 * 1024 * 1024


async def test_a_7_6_server_serves_get_config_only_in_the_v1_format(
    start_sim: StartSim, make_client: MakeClient, raw: Raw
) -> None:
    sim = await start_sim("node-restart")
    client = make_client(sim.connectstring)
    config = config_from_blob(await client.get_config_blob())
    assert {d.node_id: d.node_group for d in config.data_nodes} == {2: 0, 3: 0}
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(b"get config_v2\nversion: 1\n\n",
                        b"result: Unknown command, 'get config_v2'\n\n")


async def test_from_node_refusals_are_the_servers(start_sim: StartSim, raw: Raw) -> None:
    sim = await start_sim("node-groups")
    conn = await raw(sim.mgm_ports[1])
    await conn.exchange(b"get config_v2\nversion: 1\nfrom_node: 5\n\n",
                        b"get config reply\nresult: Data node 5 is not alive. \n\n")
    await conn.exchange(b"get config_v2\nversion: 1\nfrom_node: 50\n\n",
                        b"get config reply\nresult: Node 50 is not a data node. \n\n")


async def test_a_configuration_change_leaves_nodes_on_the_old_generation(
    start_sim: StartSim, manual_time: Any, advance: Any, make_client: MakeClient
) -> None:
    sim = await start_sim("config-change", time=manual_time)
    cluster = sim.cluster
    client = make_client(sim.connectstring)
    assert (config_from_blob(await client.get_config_blob())).generation == 4
    await advance(sim, manual_time, lambda: cluster.now > CONFIG_CHANGE_AT + 1)
    await advance(sim, manual_time, lambda: cluster.data_nodes[2].state == STARTED, step=2.0)
    config = config_from_blob(await client.get_config_blob())
    assert config.generation == 5 and config.data_node(3).data_memory == 12288 << 20
    running = {n: cluster.data_nodes[n].running_config.generation for n in (2, 3, 4, 5)}
    assert running == {2: 5, 3: 4, 4: 4, 5: 4}


def test_both_packings_decode_to_the_same_configuration() -> None:
    for name in ("node-groups", "add-node", "initial-start", "max"):
        config = build_scenario(name).config
        assert decode_config(pack_v1(config)) == decode_config(pack_v2(config))


def test_report_frequency_is_the_real_default_unless_asked() -> None:
    assert build_scenario("initial-start").config.startup_status_report_frequency == 0
    cluster = build_scenario("initial-start", ScenarioOptions(report_frequency=60))
    node = decode_config(pack_v2(cluster.config)).data_node(10)
    assert node.startup_status_report_frequency == 60
    assert "StartupStatusReportFrequency" not in node.defaulted
