"""What replication to watch: the SQL nodes of both sides, and the lag past which it warns.

Light on purpose: the command line reads :data:`DEFAULT_LAG_THRESHOLD_S` at every start.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.ndbinfo.options import MysqlOptions

DEFAULT_LAG_THRESHOLD_S = 60.0
"""Seconds behind past which ``replication_lag`` warns (ndbtop's own threshold)."""
THIS_CLUSTER, REPLICA = "this cluster", "replica"
"""The sides of the SQL nodes named on the command line."""


@dataclass(frozen=True)
class EndpointSpec:
    """A SQL node to read, and which cluster it belongs to (in words)."""

    options: MysqlOptions
    side: str


@dataclass(frozen=True)
class ReplicationSetup:
    """The SQL nodes to read for replication, and the lag past which it warns."""

    endpoints: tuple[EndpointSpec, ...]
    lag_threshold_s: float = DEFAULT_LAG_THRESHOLD_S
