"""The configuration model: redo log size, look-ups, and the node group that counts."""

from __future__ import annotations

import json

import pytest

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import (
    NO_NODE_GROUP,
    ClusterConfig,
    DataNodeConfig,
    NodeConfig,
    config_differences,
    effective_node_group,
    pending_restarts,
)
from ndbtop.model.ndbinfo import NdbinfoNode, NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import decode, encode

CONFIG = ClusterConfig(
    generation=7,
    name="MyCluster",
    no_of_replicas=2,
    nodes=(
        NodeConfig(1, "MGM", "10.0.0.1", "/var/lib/mgm", 1),
        NodeConfig(2, "NDB", "10.0.0.2", "/data/2", 0),
        NodeConfig(3, "NDB", "10.0.0.3", "/data/3", 0),
        NodeConfig(4, "NDB", "10.0.0.4", "/data/4", 0),
        NodeConfig(5, "NDB", "10.0.0.5", "/data/5", 0),
        NodeConfig(6, "NDB", "10.0.0.6", "/data/6", 0),
        NodeConfig(50, "API", "", ".", 0),
    ),
    data_nodes=(
        DataNodeConfig(2, 0, "10.0.0.2", "/data/2", "/data/2"),
        DataNodeConfig(3, 0, "10.0.0.3", "/data/3", "/data/3"),
        DataNodeConfig(4, 1, "10.0.0.4", "/data/4", "/data/4"),
        DataNodeConfig(5, 1, "10.0.0.5", "/data/5", "/data/5"),
        DataNodeConfig(6, NO_NODE_GROUP, "10.0.0.6", "/data/6", "/data/6"),
    ),
)


def status(node_id: int, state: str, group: int | None = 0) -> NodeStatus:
    return NodeStatus(node_id=node_id, type="NDB", status=state, node_group=group)


def test_redo_log_is_parts_times_files_times_size_and_one_gib_by_default() -> None:
    assert DataNodeConfig(2, 0).redo_log_bytes == 1 << 30
    node = DataNodeConfig(2, 0, fragment_log_parts=8, fragment_log_files=32,
                          fragment_log_file_size=64 << 20)
    assert node.redo_log_bytes == 8 * 32 * (64 << 20)


def test_nodes_are_looked_up_by_id_and_unknown_ids_give_none() -> None:
    assert CONFIG.data_node(5).host == "10.0.0.5"
    assert CONFIG.data_node(1) is None and CONFIG.data_node(99) is None
    assert CONFIG.node(50).node_type == "API" and CONFIG.node(50).host == ""
    assert CONFIG.node(77) is None


@pytest.mark.parametrize("state", ["NO_CONTACT", "NOT_STARTED", "STARTING", "SHUTTING_DOWN",
                                   "RESTARTING", "UNKNOWN"])
def test_a_node_not_started_takes_the_configured_group_never_the_zero_on_the_wire(
        state: str) -> None:
    assert effective_node_group(status(5, state, 0), CONFIG) == 1
    assert effective_node_group(status(6, state, 0), CONFIG) == NO_NODE_GROUP


@pytest.mark.parametrize("state", ["STARTED", "SINGLE USER MODE"])
def test_a_started_node_takes_its_live_group(state: str) -> None:
    # After CREATE NODEGROUP the live group of a started node differs from the configuration.
    assert effective_node_group(status(6, state, 2), CONFIG) == 2
    assert effective_node_group(status(5, state, 1), None) == 1
    assert effective_node_group(status(6, state, None), CONFIG) == NO_NODE_GROUP


def test_without_configuration_a_node_not_started_has_no_known_group() -> None:
    assert effective_node_group(status(5, "NO_CONTACT", 0), None) is None
    assert effective_node_group(status(9, "NO_CONTACT", 0), CONFIG) is None


def test_the_snapshot_has_no_configuration_until_one_is_decoded() -> None:
    snap = ClusterSnapshot(taken_at=0.0, wall=0.0, interval=1.0, sources=())
    assert snap.config is None


def test_a_configuration_is_recorded_and_read_back_with_its_defaulted_parameters() -> None:
    marked = DataNodeConfig(2, 0, defaulted=frozenset({"DataMemory", "NoOfFragmentLogFiles"}))
    config = ClusterConfig(3, "c", 2, (NodeConfig(2, "NDB"),), (marked,))
    snap = ClusterSnapshot(taken_at=0.0, wall=0.0, interval=1.0, sources=(), config=config)
    back = decode(json.loads(json.dumps(encode(snap))))
    assert back == snap
    assert back.config.data_nodes[0].defaulted == frozenset({"DataMemory",
                                                              "NoOfFragmentLogFiles"})


def sample_with(generations: dict[int, int], values: tuple[tuple[int, int, str], ...] = ()
                ) -> NdbinfoSample:
    nodes = tuple(NdbinfoNode(n, 100, "STARTED", 0, g) for n, g in generations.items())
    return NdbinfoSample(taken_at=1.0, ndb_version=None, nodes=nodes, config_values=values,
                         read_at=(("nodes", 1.0), ("config_values", 1.0)))


def test_the_differences_are_worked_out_once_per_reading_of_either() -> None:
    values = ((2, 112, str(98 * 1024 * 1024)), (4, 112, "12884901888"))
    first = config_differences(CONFIG, sample_with({2: 7}, values))
    again = config_differences(CONFIG, sample_with({2: 8}, values))
    assert again is first, "the same configuration and rows: the same answer"
    assert dict(first) == {2: (), 4: ("DataMemory",)}
    reread = ((2, 112, "1"), (4, 112, "12884901888"))
    assert config_differences(CONFIG, sample_with({2: 7}, reread)) == {
        2: ("DataMemory",), 4: ("DataMemory",)}
    assert config_differences(CONFIG, sample_with({2: 7}, values)) == first


def test_a_node_on_an_older_generation_or_with_other_values_needs_a_restart() -> None:
    sample = sample_with({2: 7, 3: 6, 4: 7}, (
        (2, 112, str(98 * 1024 * 1024)), (2, 185, "0"),
        (4, 112, "12884901888"), (4, 185, "1"),
    ))
    assert config_differences(CONFIG, sample) == {2: (), 4: ("DataMemory",)}
    assert pending_restarts(CONFIG, sample) == {2: False, 3: True, 4: True, 5: False,
                                                6: False}
    assert pending_restarts(CONFIG, None) == dict.fromkeys((2, 3, 4, 5, 6))
    assert pending_restarts(None, sample) == {}
