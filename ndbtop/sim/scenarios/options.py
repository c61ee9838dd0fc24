"""What a scenario is, and what a user can choose when starting one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.sim.cluster import SimCluster

DEFAULT_FAIL_PHASE = 5
"""Where an injected failure hangs a node restart by default: phase 5, in which the
starting node copies and restores its data and waits for a local checkpoint."""


@dataclass(frozen=True, **SLOTS)
class ScenarioOptions:
    """Choices a user can make when starting a scenario."""

    seed: int = 1
    fast_redo: bool = False
    ndb_version: str | None = None
    fail_node: int | None = None
    """A data node whose node restarts hang in start phase ``fail_phase`` and never
    finish (:meth:`SimCluster.fail_restarts`)."""
    fail_phase: int = DEFAULT_FAIL_PHASE
    """The start phase ``fail_node`` hangs in."""
    data_node_hosts: tuple[str, ...] = ()
    """Host names or addresses the data nodes report instead of the scenario's own,
    given in turn (for reading them over SSH on loopback aliases)."""
    mgm_host: str | None = None
    """The host the (first) management server is configured on, instead of the
    scenario's own."""
    mgm_data_dir: str | None = None
    """The management servers' DataDir: each writes its cluster log file there
    (``ndb_<id>_cluster.log``, the real layout and rotation)."""
    report_frequency: int | None = None
    """StartupStatusReportFrequency of the data nodes (None: the scenario's own, the real
    default 0 for the initial start)."""


@dataclass(frozen=True, **SLOTS)
class Scenario:
    """A named scenario: what it shows, how fast the demo plays it, and how to build it."""

    name: str
    summary: str
    demo_speed: float
    build: Callable[[ScenarioOptions], SimCluster]
