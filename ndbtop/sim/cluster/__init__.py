"""The simulated cluster: one state that both simulated servers serve.

The model is event driven (:mod:`.state` holds the clock and the shared state).
:mod:`.starts` and :mod:`.stops` are the data nodes' lifecycle (each node in
:mod:`.datanode`), :mod:`.control` the management server's rules on requests,
:mod:`.reports` the events a running cluster sends by itself, :mod:`.backups`
and :mod:`.arbitration` those two protocols, and :mod:`.status` what the
servers read back. A new behaviour of the cluster goes here; a scripted
situation that uses it goes to :mod:`ndbtop.sim.scenarios`. With the same seed
and the same requests at the same simulated times, a run reproduces exactly.
"""

from __future__ import annotations

from ndbtop.sim.cluster.arbitration import SimArbitration
from ndbtop.sim.cluster.backups import SimBackups
from ndbtop.sim.cluster.control import ControlOutcome, NodeControl
from ndbtop.sim.cluster.reports import PeriodicReports
from ndbtop.sim.cluster.status import ClusterStatus
from ndbtop.sim.config import ClusterConfig

__all__ = ["ControlOutcome", "SimCluster"]


class SimCluster(NodeControl, PeriodicReports, ClusterStatus):
    """Nodes, their lifecycle, the workload and the events, in simulated time."""

    def __init__(self, config: ClusterConfig, seed: int = 1) -> None:
        super().__init__(config, seed)
        self.backups = SimBackups(self)
        self.arbitration = SimArbitration(self)
        self.start_reports()
