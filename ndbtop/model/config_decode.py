"""From a ``get config`` reply body to the :class:`ClusterConfig` ndbtop uses.

A node's value of a parameter is its own entry when its section has one, else
the entry of the default section of its type (which holds the keys every
section of that type has, valued as in the first such section the server
holds), else ConfigInfo's default. Key ids come from
mgmapi_config_parameters.h and are scoped by section type.
"""

from __future__ import annotations

from ndbtop.mgm.config_fetch import ConfigUnavailable
from ndbtop.mgm.packed_config import (
    API_NODE,
    DATA_NODE,
    MAGIC_V1,
    MGM_NODE,
    ConfigFormatError,
    Entries,
    PackedConfig,
    Value,
    unpack,
)
from ndbtop.mgm.packed_config_v1 import unpack_v1
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.model.config_raw import RawConfig, RawSection

MB = 1024 * 1024

# System section.
SYS_CONFIG_GENERATION = 2
SYS_NAME = 3
# Every node section.
NODE_ID = 3
NODE_HOST = 5
NODE_DATADIR = 7
NODE_ARBIT_RANK = 200
MGM_LOG_DESTINATION = 147
# Data node sections.
DB_NO_REPLICAS = 101
DB_DATA_MEM = 112
DB_FILESYSTEM_PATH = 125
DB_NO_REDOLOG_FILES = 126
DB_REDOLOG_FILE_SIZE = 140
DB_DISK_PAGE_BUFFER_MEMORY = 160
DB_O_DIRECT = 168
DB_STARTUP_REPORT_FREQUENCY = 184
DB_MIN_FREE_PCT = 630
DB_NODEGROUP = 185
DB_MT_THREADS = 186
DB_INIT_REDO = 189
DB_MT_THREAD_CONFIG = 628
DB_NO_REDOLOG_PARTS = 632

DATA_PARAMETERS: dict[str, tuple[int, Value]] = {
    "HostName": (NODE_HOST, ""),
    "DataDir": (NODE_DATADIR, "."),
    "NoOfReplicas": (DB_NO_REPLICAS, 2),
    "DataMemory": (DB_DATA_MEM, 98 * MB),
    "NoOfFragmentLogFiles": (DB_NO_REDOLOG_FILES, 16),
    "FragmentLogFileSize": (DB_REDOLOG_FILE_SIZE, 16 * MB),
    "DiskPageBufferMemory": (DB_DISK_PAGE_BUFFER_MEMORY, 64 * MB),
    "ODirect": (DB_O_DIRECT, 0),
    "StartupStatusReportFrequency": (DB_STARTUP_REPORT_FREQUENCY, 0),
    "MaxNoOfExecutionThreads": (DB_MT_THREADS, 0),
    "InitFragmentLogFiles": (DB_INIT_REDO, "sparse"),
    "ThreadConfig": (DB_MT_THREAD_CONFIG, ""),
    "NoOfFragmentLogParts": (DB_NO_REDOLOG_PARTS, 4),
    "ArbitrationRank": (NODE_ARBIT_RANK, 0),
    "MinFreePct": (DB_MIN_FREE_PCT, 5),
}
"""Data-node parameters ndbtop reads: key id and ConfigInfo's default."""

NODE_TYPES = {DATA_NODE: "NDB", API_NODE: "API", MGM_NODE: "MGM"}
"""Section type to the node type names ``get status`` uses."""

def _text(value: Value) -> str:
    """A string parameter exactly as the server holds it (``--json`` keeps it; what shows
    it escapes it, :mod:`ndbtop.sanitise`)."""
    return value if isinstance(value, str) else str(value)


def decode_config(blob: bytes) -> ClusterConfig:
    """Decode a packed configuration (v2, or v1 from a 7.x server); :class:`ConfigFormatError`
    says why it cannot be."""
    return decode_packed(_unpack(blob))


def _unpack(blob: bytes) -> PackedConfig:
    return unpack_v1(blob) if blob[:8] == MAGIC_V1 else unpack(blob)


def decode_packed(packed: PackedConfig) -> ClusterConfig:
    """The :class:`ClusterConfig` of a configuration split into sections."""
    system = packed.system
    generation = system.get(SYS_CONFIG_GENERATION, 0)
    name = system.get(SYS_NAME, "")
    seen: set[int] = set()
    nodes: list[NodeConfig] = []
    data: list[tuple[int, dict[int, Value]]] = []
    for kind, own in packed.nodes:
        node_id = own[NODE_ID]
        assert isinstance(node_id, int)
        if not 1 <= node_id <= 255 or node_id in seen:
            raise ConfigFormatError(f"node id {node_id} is out of range or repeated")
        seen.add(node_id)
        values = _merged(packed.defaults[kind], own)
        nodes.append(NodeConfig(
            node_id=node_id,
            node_type=NODE_TYPES[kind],
            host=_text(values.get(NODE_HOST, "")),
            data_dir=_text(values.get(NODE_DATADIR, ".")),
            arbitration_rank=_int(values.get(NODE_ARBIT_RANK, 0), "ArbitrationRank"),
            log_destination=_text(values.get(MGM_LOG_DESTINATION, ""))
            if kind == MGM_NODE else "",
        ))
        if kind == DATA_NODE:
            data.append((node_id, values))
    replicas = _replicas(data)
    groups = _node_groups(data, replicas)
    data_nodes = tuple(_data_node(node_id, values, groups[node_id])
                       for node_id, values in sorted(data))
    return ClusterConfig(
        generation=_int(generation, "ConfigGenerationNumber"),
        name=_text(name),
        no_of_replicas=replicas,
        nodes=tuple(sorted(nodes, key=lambda n: n.node_id)),
        data_nodes=data_nodes,
    )


def config_from_blob(blob: bytes) -> ClusterConfig:
    """Decode what ``get config`` sent; :class:`ConfigUnavailable` (one line) when it cannot
    be decoded."""
    try:
        return decode_config(blob)
    except ConfigFormatError as exc:
        raise ConfigUnavailable(f"configuration unavailable: {exc}") from None


def raw_config(packed: PackedConfig) -> RawConfig:
    """Every parameter of every section: a node's own entry, else its default section's."""
    generation = packed.system.get(SYS_CONFIG_GENERATION, 0)
    sections = tuple(sorted(
        (RawSection(kind, int(own[NODE_ID]), _merged(packed.defaults[kind], own))
         for kind, own in packed.nodes), key=lambda s: s.node_id))
    return RawConfig(generation=_int(generation, "ConfigGenerationNumber"),
                     system=dict(packed.system), sections=sections)


def config_and_raw_from_blob(blob: bytes) -> tuple[ClusterConfig, RawConfig]:
    """:func:`config_from_blob` and every parameter of the same blob, decoded once."""
    try:
        packed = _unpack(blob)
        return decode_packed(packed), raw_config(packed)
    except ConfigFormatError as exc:
        raise ConfigUnavailable(f"configuration unavailable: {exc}") from None


def _merged(default: Entries, own: Entries) -> dict[int, Value]:
    values = dict(default)
    values.update(own)
    return values


def _int(value: Value, name: str) -> int:
    if not isinstance(value, int):
        raise ConfigFormatError(f"{name} is not a number")
    return value


def _replicas(data: list[tuple[int, dict[int, Value]]]) -> int:
    for _node_id, values in data:
        if DB_NO_REPLICAS in values:
            return _int(values[DB_NO_REPLICAS], "NoOfReplicas")
    return 2


def _node_groups(data: list[tuple[int, dict[int, Value]]], replicas: int) -> dict[int, int]:
    """Each data node's group: the configured one, else the automatic assignment (nodes
    without a group in node-id order, each to the lowest group with room)."""
    groups: dict[int, int] = {}
    members: dict[int, int] = {}
    for node_id, values in data:
        if DB_NODEGROUP in values:
            group = _int(values[DB_NODEGROUP], "NodeGroup")
            groups[node_id] = group
            if group != NO_NODE_GROUP:
                members[group] = members.get(group, 0) + 1
    for node_id, _values in sorted(data):
        if node_id in groups:
            continue
        group = 0
        while members.get(group, 0) >= max(replicas, 1):
            group += 1
        groups[node_id] = group
        members[group] = members.get(group, 0) + 1
    return groups


def _data_node(node_id: int, values: dict[int, Value], group: int) -> DataNodeConfig:
    defaulted = []
    resolved: dict[str, Value] = {}
    for name, (key, default) in DATA_PARAMETERS.items():
        value = values.get(key, default)
        if type(value) is not type(default):
            raise ConfigFormatError(f"{name} of node {node_id} has the wrong type")
        resolved[name] = value
        if value == default:
            defaulted.append(name)
    data_dir = _text(resolved["DataDir"])
    fs_path = values.get(DB_FILESYSTEM_PATH)
    return DataNodeConfig(
        node_id=node_id,
        node_group=group,
        host=_text(resolved["HostName"]),
        data_dir=data_dir,
        file_system_path=_text(fs_path) if isinstance(fs_path, str) and fs_path else data_dir,
        data_memory=int(resolved["DataMemory"]),
        disk_page_buffer_memory=int(resolved["DiskPageBufferMemory"]),
        fragment_log_parts=int(resolved["NoOfFragmentLogParts"]),
        fragment_log_files=int(resolved["NoOfFragmentLogFiles"]),
        fragment_log_file_size=int(resolved["FragmentLogFileSize"]),
        init_fragment_log_files=_text(resolved["InitFragmentLogFiles"]),
        odirect=bool(resolved["ODirect"]),
        startup_status_report_frequency=int(resolved["StartupStatusReportFrequency"]),
        arbitration_rank=int(resolved["ArbitrationRank"]),
        max_execution_threads=int(resolved["MaxNoOfExecutionThreads"]),
        thread_config=_text(resolved["ThreadConfig"]),
        min_free_pct=int(resolved["MinFreePct"]),
        defaulted=frozenset(defaulted),
    )
