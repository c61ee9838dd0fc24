"""The simulated cluster's state and its clock: what every part of the simulation shares.

Time is simulated seconds since the scenario began. Timed actions (phase
completions, periodic reports, scenario steps) sit in a heap and run in order
as :meth:`ClusterState.advance_to` reaches them; between actions, counters grow
at the current rates.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import replace

from ndbtop.sim.cluster.datanode import SimDataNode
from ndbtop.sim.cluster.transactions import SimTransaction
from ndbtop.sim.config import ClusterConfig
from ndbtop.sim.eventbus import EventBus
from ndbtop.sim.replication import SimReplication
from ndbtop.sim.startplan import StartStep
from ndbtop.sim.workload import Workload

INTEGRATE_STEP = 1.0
MAX_INTEGRATE_CHUNK = 60.0


class ClusterState:
    """Nodes, their lifecycle state, the workload and the event bus, in simulated time."""

    def __init__(self, config: ClusterConfig, seed: int = 1) -> None:
        self.config = config
        self.seed = seed
        self.rng = random.Random(seed)
        self.now = 0.0
        self.bus = EventBus()
        self.workload = Workload()
        self.data_nodes = {d.node_id: SimDataNode(d, config) for d in config.data_nodes}
        self.mgmd_alive = {m.node_id: True for m in config.mgm_nodes}
        self.api_connected: set[int] = set()
        self.replication: SimReplication | None = None
        """The replication channel from this cluster's SQL node to a replica's, when the
        scenario plays one (its replica SQL node is served beside this cluster's)."""
        self.log_filter = {0: 1, 1: 0, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}
        self.ever_started = False
        self.next_dynamic_id = 1
        self.lcp_id = 0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._last_integrated = 0.0
        self.changed: Callable[[], None] | None = None
        threads = sum(len(d.threads) for d in config.data_nodes)
        self.integrate_step = max(INTEGRATE_STEP, threads / 100)
        """Simulated seconds between counter updates (longer for big clusters)."""
        self.disk_profile = "normal"
        """How the hosts' disks behave: ``normal``, ``synced_redo`` (S1) or ``fast_redo``."""
        self._joint_plan: tuple[float, int, tuple[StartStep, ...]] | None = None
        self.single_user_api: int | None = None
        """The API node that holds single-user mode (data nodes report it as
        ``is_single_user`` of that API node)."""
        self.stuck_stops: dict[int, str] = {}
        """Data nodes that do not obey a STOP_REQ: ``"started"`` (they never leave
        STARTED) or ``"stopping"`` (they never finish shutting down)."""
        self.error_logs: dict[int, str] = {}
        """The ``ndb_<id>_error.log`` each data node's simulated host holds."""
        self.full_data_dirs: set[int] = set()
        """Data nodes whose DataDir's file system is full."""
        self.open_transactions: list[SimTransaction] = []
        """Transactions a scenario holds open, with their row locks (none by default)."""
        self.slow_stops: dict[int, tuple[float, float]] = {}
        """Data nodes slow to obey a STOP_REQ: (seconds they stay STARTED first, extra
        seconds they take to shut down); they end NOT_STARTED or stopped all the same."""
        self.link_pressure: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        """Send buffer pressure on a link (node, remote node) as ``transporters`` reports
        it: overloaded, overload_count, slowdown, slowdown_count."""
        self.hung_restarts: dict[int, int] = {}
        """Data nodes whose node restarts never finish: node id -> the start phase they
        hang in (see :meth:`fail_restarts`)."""

    # Time

    def place_data_nodes(self, hosts: tuple[str, ...]) -> None:
        """Put the data nodes on ``hosts``, in turn (their configured and reported host)."""
        placed = []
        for i, cfg in enumerate(self.config.data_nodes):
            new = replace(cfg, host=hosts[i % len(hosts)])
            self.data_nodes[cfg.node_id].cfg = new
            placed.append(new)
        self.config = replace(self.config, data_nodes=tuple(placed))

    def place_mgm_nodes(self, host: str | None, data_dir: str | None) -> None:
        """Put the first management node on ``host`` and every management node's DataDir
        at ``data_dir`` (where each writes its cluster log), where given."""
        slots = []
        for i, slot in enumerate(self.config.mgm_nodes):
            if host and i == 0:
                slot = replace(slot, host=host)
            if data_dir:
                slot = replace(slot, data_dir=data_dir)
            slots.append(slot)
        self.config = replace(self.config, mgm_nodes=tuple(slots))

    def at(self, when: float, action: Callable[[], None]) -> None:
        """Run ``action`` when simulated time reaches ``when``."""
        heapq.heappush(self._heap, (when, next(self._order), action))

    def after(self, delay: float, action: Callable[[], None]) -> None:
        """Run ``action`` ``delay`` simulated seconds from now."""
        self.at(self.now + max(delay, 0.0), action)

    def advance_to(self, target: float) -> None:
        """Run every action due up to ``target`` and grow the counters in between."""
        while self._heap and self._heap[0][0] <= target:
            when, _, action = heapq.heappop(self._heap)
            self._integrate_to(max(when, self.now))
            action()
        target = max(target, self.now)
        while target - self._last_integrated > MAX_INTEGRATE_CHUNK:
            self._integrate_to(self._last_integrated + MAX_INTEGRATE_CHUNK, force=True)
        self._integrate_to(target, force=True)
        if self.changed is not None:
            self.changed()

    def advance(self, seconds: float) -> None:
        """Advance by ``seconds`` of simulated time."""
        self.advance_to(self.now + seconds)

    def _integrate_to(self, when: float, force: bool = False) -> None:
        dt = when - self._last_integrated
        self.now = when
        # Between timed actions counters grow in steps of at least integrate_step: a
        # large cluster has hundreds of actions per simulated minute during restarts.
        if dt <= 0 or (dt < self.integrate_step and not force):
            return
        serving = [n for n in self.data_nodes.values() if n.serving]
        node_tps = self.workload.tps / len(serving) if serving else 0.0
        for node in self.data_nodes.values():
            node.integrate(dt, when, node_tps, self.workload, self.seed, int(when))
        self._last_integrated = when

    # Events

    def emit(self, event_type: int, source: int, *words: int) -> None:
        """Report an event from ``source`` with signal words 1..n."""
        self.bus.emit(self.now, event_type, source, tuple(w & 0xFFFFFFFF for w in words))

    @property
    def mgmd_id(self) -> int:
        """Node id of the first management server (it raises Connected/Disconnected)."""
        return self.config.mgm_nodes[0].node_id

    def master(self) -> SimDataNode | None:
        """The data node with the lowest dynamic id among the started ones."""
        live = [n for n in self.data_nodes.values() if n.serving and n.dynamic_id]
        return min(live, key=lambda n: n.dynamic_id) if live else None

    def change_config(self, **changes: object) -> int:
        """Install a new configuration (ndb_mgmd --reload): the next generation with the
        given parameters. Running data nodes keep the old one until they restart."""
        self.config = replace(self.config, generation=self.config.generation + 1,
                              **changes)  # type: ignore[arg-type]
        return self.config.generation

    def _notify(self) -> None:
        if self.changed is not None:
            self.changed()
