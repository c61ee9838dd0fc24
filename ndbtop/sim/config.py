"""Static configuration of a simulated cluster (what config.ini would say)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ndbtop.compat import SLOTS
from ndbtop.mgm.version import make_version
from ndbtop.sim.startplan import REDO_INIT_PHASE, RestartProfile
from ndbtop.sim.threads import ThreadSpec, classic_layout

DEFAULT_VERSION = make_version(8, 4, 3)


@dataclass(frozen=True, **SLOTS)
class DataNodeConfig:
    """One ``[ndbd]`` section: id, host, node group and thread layout."""

    node_id: int
    host: str
    node_group: int | None
    threads: tuple[ThreadSpec, ...]
    max_exec_threads: int = 0
    """MaxNoOfExecutionThreads the layout was made from (0: not set)."""
    data_dir: str = ""
    """DataDir (empty: ``/var/lib/mysql-cluster/<id>``)."""

    @property
    def datadir(self) -> str:
        """The DataDir the configuration gives."""
        return self.data_dir or f"/var/lib/mysql-cluster/{self.node_id}"


@dataclass(frozen=True, **SLOTS)
class NodeSlot:
    """One ``[ndb_mgmd]`` or ``[mysqld]``/``[api]`` section; ``host`` None means any host."""

    node_id: int
    host: str | None
    data_dir: str = ""
    """DataDir of a management node (empty: ``/var/lib/mysql-cluster``, and the simulated
    server writes no cluster log file; given, it writes ``ndb_<id>_cluster.log`` there)."""

    @property
    def datadir(self) -> str:
        """The DataDir the configuration gives."""
        return self.data_dir or "/var/lib/mysql-cluster"


@dataclass(frozen=True, **SLOTS)
class ClusterConfig:
    """Everything about a simulated cluster that does not change while it runs."""

    name: str
    mgm_nodes: tuple[NodeSlot, ...]
    data_nodes: tuple[DataNodeConfig, ...]
    api_nodes: tuple[NodeSlot, ...]
    ndb_version: int = DEFAULT_VERSION
    no_of_replicas: int = 2
    data_memory_mb: int = 12000
    index_memory_mb: int = 2000
    fragment_log_file_size_mb: int = 256
    no_of_fragment_log_files: int = 42
    fragment_log_parts: int = 4
    disk_page_buffer_mb: int = 64
    sql_node_id: int | None = None
    """API slot taken by the simulated SQL node once the cluster has started."""
    connected_api: tuple[int, ...] = ()
    """Further API slots that connect once the cluster has started."""
    restart_profile: RestartProfile = field(default_factory=RestartProfile)
    redo_init_mb_per_sec: float = 18.49
    """Logical redo-log initialisation speed per node during an initial start."""
    redo_init_phase: int = REDO_INIT_PHASE
    """The start phase that creates the redo log: 2 as in current releases, 4 as in the
    6.x field log that S1 replays."""
    host_cpus: int = 8
    generation: int = 1
    """ConfigGenerationNumber of this configuration."""
    startup_status_report_frequency: int = 0
    """Seconds between redo-log initialisation reports (0, the default: only the first and
    the completion)."""

    @property
    def redo_log_mb(self) -> int:
        """Redo log per data node: files x parts x file size."""
        return (
            self.no_of_fragment_log_files * self.fragment_log_parts * self.fragment_log_file_size_mb
        )

    @property
    def redo_log_files(self) -> int:
        """Redo log files per data node (every log part has its own set)."""
        return self.no_of_fragment_log_files * self.fragment_log_parts

    def node_type(self, node_id: int) -> str | None:
        """``NDB``, ``MGM``, ``API`` or None for an id not in the configuration."""
        if any(n.node_id == node_id for n in self.data_nodes):
            return "NDB"
        if any(n.node_id == node_id for n in self.mgm_nodes):
            return "MGM"
        if any(n.node_id == node_id for n in self.api_nodes):
            return "API"
        return None


def simple_config(
    name: str,
    data_nodes: tuple[tuple[int, str, int | None], ...],
    *,
    mgm: tuple[tuple[int, str], ...] = ((1, "10.0.0.1"),),
    api: tuple[tuple[int, str | None], ...] = (),
    max_exec_threads: int = 8,
    threads: tuple[ThreadSpec, ...] | None = None,
    **kwargs: object,
) -> ClusterConfig:
    """A configuration from (id, host, node group) triples, all with the same thread layout."""
    layout = threads if threads is not None else classic_layout(max_exec_threads)
    return ClusterConfig(
        name=name,
        mgm_nodes=tuple(NodeSlot(i, h) for i, h in mgm),
        data_nodes=tuple(DataNodeConfig(i, h, g, layout, max_exec_threads if threads is None else 0)
                         for i, h, g in data_nodes),
        api_nodes=tuple(NodeSlot(i, h) for i, h in api),
        **kwargs,  # type: ignore[arg-type]
    )
