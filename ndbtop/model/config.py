"""The cluster configuration as the management server holds it.

``get status`` leaves most fields of a node it has no contact with at zero
(node group 0, empty address). The configuration is where the truth about node
groups, hosts and redo log sizes lives; these classes hold what ndbtop reads
out of it, independent of the wire format it arrived in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ndbtop.mgm.status import NodeStatus

NO_NODE_GROUP = 65536
"""Configured node group of a data node in no node group (added before ``CREATE NODEGROUP``)."""

LIVE_GROUP_STATES = frozenset({"STARTED", "SINGLE USER MODE"})
"""Statuses in which the node group ``get status`` reports is the node's own, settled one."""


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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

    @property
    def redo_log_bytes(self) -> int:
        """Redo log bytes: NoOfFragmentLogParts x NoOfFragmentLogFiles x FragmentLogFileSize."""
        return self.fragment_log_parts * self.fragment_log_files * self.fragment_log_file_size

    @property
    def in_node_group(self) -> bool:
        """False for a node configured with no node group."""
        return self.node_group != NO_NODE_GROUP


@dataclass(frozen=True, slots=True)
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
