"""The cluster configuration as the management server holds it.

``get status`` leaves most fields of a node it has no contact with at zero
(node group 0, empty address). The configuration is where the truth about node
groups, hosts and redo log sizes lives; these classes hold what ndbtop reads
out of it, independent of the wire format it arrived in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.ndbinfo import NdbinfoSample

NO_NODE_GROUP = 65536
"""Configured node group of a data node in no node group (added before ``CREATE NODEGROUP``)."""

LIVE_GROUP_STATES = frozenset({"STARTED", "SINGLE USER MODE"})
"""Statuses in which the node group ``get status`` reports is the node's own, settled one."""


@dataclass(frozen=True, **SLOTS)
class NodeConfig:
    """One node section of any type.

    ``node_type`` uses the names ``get status`` uses (``NDB``, ``API``,
    ``MGM``); ``host`` is ``HostName``, empty when the node may connect from
    any host.
    """

    node_id: int
    node_type: str
    host: str = ""
    data_dir: str = "."
    arbitration_rank: int = 0
    log_destination: str = ""
    """LogDestination of a management node ("" when not set: the server's default file)."""


@dataclass(frozen=True, **SLOTS)
class DataNodeConfig:
    """The parameters of one data node that ndbtop shows or relies on.

    Sizes are in bytes, ``startup_status_report_frequency`` in seconds (0:
    the node reports redo log initialisation only at its start and its end).
    ``defaulted`` names the parameters (``DataMemory``...) whose value is
    ConfigInfo's default because the configuration does not set them.
    """

    node_id: int
    node_group: int
    host: str = ""
    data_dir: str = "."
    file_system_path: str = "."
    data_memory: int = 98 * 1024 * 1024
    disk_page_buffer_memory: int = 64 * 1024 * 1024
    fragment_log_parts: int = 4
    fragment_log_files: int = 16
    fragment_log_file_size: int = 16 * 1024 * 1024
    init_fragment_log_files: str = "sparse"
    odirect: bool = False
    startup_status_report_frequency: int = 0
    arbitration_rank: int = 0
    defaulted: frozenset[str] = field(default_factory=frozenset)
    max_execution_threads: int = 0
    """MaxNoOfExecutionThreads (0: not set)."""
    thread_config: str = ""
    """ThreadConfig ("" when not set)."""
    min_free_pct: int = 5
    """MinFreePct: the share of DataMemory kept as spare pages for restarts
    (``init_resource_spare``): inserts can fail with 827 from about 100 - this % in use."""

    @property
    def redo_log_bytes(self) -> int:
        """Redo log bytes: NoOfFragmentLogParts x NoOfFragmentLogFiles x FragmentLogFileSize."""
        return self.fragment_log_parts * self.fragment_log_files * self.fragment_log_file_size

    @property
    def redo_init_full(self) -> bool:
        """InitFragmentLogFiles=FULL: the redo log is written out in full at an initial start
        (and the redo-init events count files, not MB: redo-init.md §6)."""
        return self.init_fragment_log_files.lower() == "full"

    @property
    def in_node_group(self) -> bool:
        """False for a node configured with no node group."""
        return self.node_group != NO_NODE_GROUP


@dataclass(frozen=True, **SLOTS)
class ClusterConfig:
    """One generation of the cluster configuration.

    ``nodes`` holds every node section (data, API and management nodes) by id;
    ``data_nodes`` the data nodes' parameters, by id.
    """

    generation: int
    name: str
    no_of_replicas: int
    nodes: tuple[NodeConfig, ...]
    data_nodes: tuple[DataNodeConfig, ...]

    def data_node(self, node_id: int) -> DataNodeConfig | None:
        """The configuration of one data node, or None if it is not a configured data node."""
        return next((d for d in self.data_nodes if d.node_id == node_id), None)

    def node(self, node_id: int) -> NodeConfig | None:
        """The section of one node of any type, or None."""
        return next((n for n in self.nodes if n.node_id == node_id), None)


def effective_node_group(node: NodeStatus, config: ClusterConfig | None) -> int | None:
    """The node group to use for a data node.

    The live ``get status`` value counts only for a STARTED (or single-user)
    node: for any other the server sends 0 or a value not yet settled
    (server-rules §1). Otherwise the configured group; None when unknown (no
    configuration and the node not started). NO_NODE_GROUP for a node in no
    node group.
    """
    if node.status in LIVE_GROUP_STATES:
        return NO_NODE_GROUP if node.node_group is None else node.node_group
    if config is None:
        return None
    configured = config.data_node(node.node_id)
    return None if configured is None else configured.node_group


def resolve_groups(nodes: Sequence[NodeStatus], config: ClusterConfig | None
                   ) -> tuple[NodeStatus, ...]:
    """The ``get status`` nodes with the node group that counts for each data node.

    A data node's ``node_group`` becomes :func:`effective_node_group`'s, in the
    convention of :class:`NodeStatus`: None for a node in no node group, and
    None too when the group is unknown (see :func:`unknown_groups`). Nodes whose
    group does not change are the same objects.
    """
    out: list[NodeStatus] = []
    for n in nodes:
        if n.type == "NDB":
            group = effective_node_group(n, config)
            value = None if group is None or group == NO_NODE_GROUP else group
            if value != n.node_group:
                n = replace(n, node_group=value)
        out.append(n)
    return tuple(out)


def unknown_groups(nodes: Sequence[NodeStatus], config: ClusterConfig | None
                   ) -> tuple[int, ...]:
    """Data nodes whose node group cannot be known: not started and not in the configuration
    (or no configuration was read). Their ``get status`` group is only a placeholder."""
    return tuple(n.node_id for n in nodes
                 if n.type == "NDB" and effective_node_group(n, config) is None)


def not_connected_text(node_id: int, config: ClusterConfig | None) -> str:
    """How ``ndb_mgm show`` prints a node that is not connected, with its configured host."""
    section = config.node(node_id) if config is not None else None
    if section is None:
        return "not connected"
    return f"not connected, accepting connect from {section.host or 'any host'}"


COMPARED: dict[int, tuple[str, str]] = {
    112: ("DataMemory", "data_memory"),
    126: ("NoOfFragmentLogFiles", "fragment_log_files"),
    140: ("FragmentLogFileSize", "fragment_log_file_size"),
    160: ("DiskPageBufferMemory", "disk_page_buffer_memory"),
    168: ("ODirect", "odirect"),
    184: ("StartupStatusReportFrequency", "startup_status_report_frequency"),
    185: ("NodeGroup", "node_group"),
    186: ("MaxNoOfExecutionThreads", "max_execution_threads"),
    200: ("ArbitrationRank", "arbitration_rank"),
    632: ("NoOfFragmentLogParts", "fragment_log_parts"),
}
"""Parameters compared with ``ndbinfo.config_values`` (id: name, DataNodeConfig field)."""


_DIFFERENCES: list[tuple[ClusterConfig, tuple[tuple[int, int, str], ...],
                         Mapping[int, tuple[str, ...]]]] = []
"""The last answer, by the very configuration and ``config_values`` rows it came from."""


def config_differences(config: ClusterConfig | None, sample: NdbinfoSample | None
                       ) -> Mapping[int, tuple[str, ...]]:
    """For each data node ``ndbinfo.config_values`` reports, the parameters whose value it
    runs with differs from the management server's configuration (worked out once per
    reading of either)."""
    if config is None or sample is None or not sample.config_values:
        return {}
    values = sample.config_values
    if _DIFFERENCES and _DIFFERENCES[0][0] is config and _DIFFERENCES[0][1] is values:
        return _DIFFERENCES[0][2]
    out = MappingProxyType(_differences(config, values))
    _DIFFERENCES[:] = [(config, values, out)]
    return out


def forget_differences() -> None:
    """Drop the answer :func:`config_differences` remembers."""
    _DIFFERENCES.clear()


def _differences(config: ClusterConfig, config_values: tuple[tuple[int, int, str], ...]
                 ) -> dict[int, tuple[str, ...]]:
    running: dict[int, dict[int, str]] = {}
    for node_id, param, value in config_values:
        running.setdefault(node_id, {})[param] = value
    out: dict[int, tuple[str, ...]] = {}
    for d in config.data_nodes:
        values = running.get(d.node_id)
        if values is None:
            continue
        differ = []
        for param, (name, field_name) in COMPARED.items():
            if param in values and values[param].strip() != str(int(getattr(d, field_name))):
                differ.append(name)
        out[d.node_id] = tuple(differ)
    return out


def pending_restarts(config: ClusterConfig | None, sample: NdbinfoSample | None
                     ) -> dict[int, bool | None]:
    """For each configured data node, whether it still runs an older configuration than the
    management server's (a restart brings it onto the current one).

    A node is behind when ``ndbinfo.nodes.config_generation`` is older, or when a
    parameter of ``ndbinfo.config_values`` differs. None for every node without a
    SQL node's sample; False for a node that is not running (it takes the current
    configuration when it starts).
    """
    if config is None:
        return {}
    if sample is None or sample.panel_read_at("nodes") is None:
        return {d.node_id: None for d in config.data_nodes}
    running = {n.node_id: n.config_generation for n in sample.nodes}
    differ = config_differences(config, sample)
    return {d.node_id: (d.node_id in running
                        and (running[d.node_id] < config.generation
                             or bool(differ.get(d.node_id))))
            for d in config.data_nodes}
