"""The simulated cluster: one state that both simulated servers serve.

Time is simulated seconds since the scenario began. The model is event
driven: timed actions (phase completions, periodic reports, scenario steps)
sit in a heap and run in order as :meth:`SimCluster.advance_to` reaches them;
between actions, counters grow at the current rates. With the same seed and
the same requests at the same simulated times, a run reproduces exactly.

Node control follows the management server's rules: a restart or stop is
refused while a data node is starting (5063) unless forced or aborted,
stopping the last started node of a node group is refused (5028) unless
forced, and a forced one takes every data node down.

A failure can be injected: :meth:`SimCluster.fail_restarts` makes a data
node's node restarts hang in one start phase, as a node that cannot finish
its start does (it stays STARTING and never reports the phase completed).
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.status import NodeStatus
from ndbtop.sim.backup import SimBackups
from ndbtop.sim.config import ClusterConfig
from ndbtop.sim.datanode import (
    NO_CONTACT,
    NOT_STARTED,
    SHUTTING_DOWN,
    SINGLE_USER,
    STARTED,
    STARTING,
    RestartReport,
    SimDataNode,
)
from ndbtop.sim.eventbus import EventBus
from ndbtop.sim.startplan import (
    INITIAL_NODE_RESTART,
    INITIAL_START,
    NODE_RESTART,
    REDO_INIT_PHASE,
    RS_NODE_FAILED,
    RS_NODE_FAILURE_COMPLETED,
    RS_RESTART_COMPLETED,
    START_PHASES,
    SYSTEM_RESTART,
    StartStep,
    initial_start_plan,
    node_restart_plan,
    system_restart_plan,
)
from ndbtop.sim.workload import Workload, noise

DBLQH = 247
DBTUP = 249
DBACC = 248
STATS_INTERVAL = 5.0
LCP_INTERVAL = 600.0
LCP_DURATION = 45.0
SHUTDOWN_LEVEL_SECONDS = 0.6
INTEGRATE_STEP = 1.0
MAX_INTEGRATE_CHUNK = 60.0


@dataclass(frozen=True, slots=True)
class ControlOutcome:
    """The result of a node-control request.

    ``error`` is (code, text) for a refusal; ``nodes`` the data nodes acted on;
    ``done`` tells when the server may reply (the nodes stopped, or were
    ordered to start).
    """

    error: tuple[int, str] | None
    nodes: tuple[int, ...] = ()
    done: Callable[[], bool] | None = None
    left_started: Callable[[], bool] | None = None
    """For a restart: every target has left STARTED (the server's first wait, 12 s)."""

    @property
    def ok(self) -> bool:
        """True when the request was accepted."""
        return self.error is None


def _refuse(code: int) -> ControlOutcome:
    return ControlOutcome((code, ec.ndb_error_string(code)))


class SimCluster:
    """Nodes, their lifecycle, the workload and the events, in simulated time."""

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
        self._joint_plan: tuple[float, int, tuple[StartStep, ...]] | None = None
        """How the hosts' disks behave: ``normal``, ``synced_redo`` (S1) or ``fast_redo``."""
        self.single_user_api: int | None = None
        """The API node that holds single-user mode (data nodes report it as
        ``is_single_user`` of that API node)."""
        self.stuck_stops: dict[int, str] = {}
        """Data nodes that do not obey a STOP_REQ: ``"started"`` (they never leave
        STARTED) or ``"stopping"`` (they never finish shutting down)."""
        self.hung_restarts: dict[int, int] = {}
        """Data nodes whose node restarts never finish: node id -> the start phase they
        hang in (see :meth:`fail_restarts`)."""
        self.backups = SimBackups(self)
        self.at(STATS_INTERVAL, self._report_statistics)
        self.at(LCP_INTERVAL, self._local_checkpoint)

    # Time

    def place_data_nodes(self, hosts: tuple[str, ...]) -> None:
        """Put the data nodes on ``hosts``, in turn (their configured and reported host)."""
        placed = []
        for i, cfg in enumerate(self.config.data_nodes):
            new = replace(cfg, host=hosts[i % len(hosts)])
            self.data_nodes[cfg.node_id].cfg = new
            placed.append(new)
        self.config = replace(self.config, data_nodes=tuple(placed))

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

    # Status as the management server reports it

    def node_statuses(self, mgmd_id: int | None = None) -> list[NodeStatus]:
        """Every configured node as ``get status`` describes it."""
        cfg = self.config
        version = cfg.ndb_version
        out: list[NodeStatus] = []
        for node in self.data_nodes.values():
            if node.state == NO_CONTACT:
                out.append(NodeStatus(node.node_id, "NDB", "NO_CONTACT", node_group=0))
                continue
            phase = (
                node.stop_level
                if node.state == SHUTTING_DOWN
                else (node.start_phase if node.state == STARTING else 0)
            )
            out.append(
                NodeStatus(
                    node.node_id,
                    "NDB",
                    node.state,
                    version,
                    version,
                    phase,
                    node.dynamic_id,
                    node.node_group,
                    node.connect_count,
                    node.cfg.host,
                    False,
                )
            )
        me = mgmd_id if mgmd_id is not None else self.mgmd_id
        for m in cfg.mgm_nodes:
            alive = m.node_id == me or self.mgmd_alive.get(m.node_id, False)
            out.append(
                NodeStatus(
                    m.node_id,
                    "MGM",
                    "CONNECTED" if alive else "NO_CONTACT",
                    version if alive else 0,
                    version if alive else 0,
                    address=(m.host or "") if alive else "",
                    is_single_user=False,
                )
            )
        any_alive = any(n.alive for n in self.data_nodes.values())
        for a in cfg.api_nodes:
            if a.node_id in self.api_connected and any_alive:
                out.append(
                    NodeStatus(
                        a.node_id,
                        "API",
                        "CONNECTED",
                        version,
                        version,
                        address=a.host or "127.0.0.1",
                        is_single_user=a.node_id == self.single_user_api,
                    )
                )
            else:
                out.append(
                    NodeStatus(
                        a.node_id,
                        "API",
                        "NO_CONTACT" if any_alive else "UNKNOWN",
                        is_single_user=any_alive and a.node_id == self.single_user_api,
                    )
                )
        return out

    def alive_data_nodes(self) -> int:
        """Data nodes a DBINFO scan reaches (started ones), when the SQL node is connected."""
        sql = self.config.sql_node_id
        if sql is not None and sql not in self.api_connected:
            return 0
        return sum(1 for n in self.data_nodes.values() if n.serving)

    # Processes started by an operator (scenario scripts)

    def boot_started(
        self,
        node_ids: Iterable[int] | None = None,
        uptime: float = 86400.0,
        data_fraction: float = 0.3,
    ) -> None:
        """Nodes that were already started before the simulation began (no events)."""
        ids = list(self.data_nodes) if node_ids is None else list(node_ids)
        for node_id in ids:
            node = self.data_nodes[node_id]
            node.state = STARTED
            node.process_started = self.now - uptime
            node.started_at = self.now - uptime
            node.has_filesystem = True
            node.connect_count = 1
            node.dynamic_id = self.next_dynamic_id
            self.next_dynamic_id += 1
            node.data_pages_used = int(node.data_pages_total * data_fraction)
        self.ever_started = True
        self._connect_apis()

    def launch(
        self, node_ids: Iterable[int], *, initial: bool = False, nostart: bool = False
    ) -> None:
        """Start ``ndbmtd`` processes (``--initial`` wipes the node's file system)."""
        for node_id in node_ids:
            node = self.data_nodes[node_id]
            if node.alive:
                continue
            if initial:
                node.has_filesystem = False
            self._connect_process(node)
            if not nostart:
                self.after(0.5, lambda n=node: self._begin_start(n))

    def _connect_process(self, node: SimDataNode) -> None:
        node.running_config = self.config
        node.state = NOT_STARTED
        node.start_phase = 0
        node.stop_level = 0
        node.connect_count += 1
        node.process_started = self.now
        node.started_at = None
        node.reset_counters()
        self.emit(0, self.mgmd_id, node.node_id)

    # Starting

    def _start_type(self, node: SimDataNode) -> int:
        others_serving = any(n.serving for n in self.data_nodes.values() if n is not node)
        if others_serving:
            return NODE_RESTART if node.has_filesystem else INITIAL_NODE_RESTART
        if not node.has_filesystem and not self.ever_started:
            return INITIAL_START
        return SYSTEM_RESTART

    def _redo_init_seconds(self) -> float:
        return self.config.redo_log_mb / self.config.redo_init_mb_per_sec

    def _plan(self, start_type: int, node_id: int) -> tuple[StartStep, ...]:
        redo_phase = self.config.redo_init_phase
        if start_type == INITIAL_START and redo_phase == REDO_INIT_PHASE:
            # Each node creates its own files; NDBCNTR then holds them all in phase 3
            # until the slowest one is done.
            def share(n: int) -> float:
                return 1.0 + 0.03 * noise(self.seed, n, 31)

            base = self._redo_init_seconds()
            slowest = max(share(n) for n in self.data_nodes)
            mine = share(node_id)
            return initial_start_plan(base * mine, redo_phase=redo_phase,
                                      wait_for_others=base * (slowest - mine))
        if start_type in (INITIAL_START, SYSTEM_RESTART):
            # The nodes of a system start pass the start phases together (NDBCNTR's wait
            # points): nodes that begin it at the same instant share one plan.
            joint = self._joint_plan
            if joint is not None and joint[:2] == (self.now, start_type):
                return joint[2]
        jitter = 1.0 + 0.02 * (self.rng.random() - 0.5)
        if start_type in (INITIAL_START, SYSTEM_RESTART):
            plan = (
                initial_start_plan(self._redo_init_seconds() * jitter, redo_phase=redo_phase)
                if start_type == INITIAL_START
                else system_restart_plan()
            )
            self._joint_plan = (self.now, start_type, plan)
            return plan
        profile = self.config.restart_profile
        initial = start_type == INITIAL_NODE_RESTART
        return node_restart_plan(profile, initial, self._redo_init_seconds() * jitter, redo_phase)

    def _begin_start(self, node: SimDataNode) -> None:
        if node.state != NOT_STARTED:
            return
        node.start_type = self._start_type(node)
        node.plan = self._plan(node.start_type, node.node_id)
        node.state = STARTING
        node.start_phase = 0
        node.step = 0
        node.start_began = node.step_started = node.phase_started = self.now
        node.redo_init_started = None
        if node.start_type in (NODE_RESTART, INITIAL_NODE_RESTART):
            report = node.restart_report
            if report is None or report.finished is not None:
                node.restart_report = RestartReport(status=0, began=self.now)
        cfg = self.config
        self.emit(10, node.node_id, cfg.ndb_version, cfg.ndb_version)
        self._enter_step(node)
        self._notify()

    def _enter_step(self, node: SimDataNode) -> None:
        step = node.plan[node.step]
        node.step_started = self.now
        if node.restart_report is not None and step.restart_status is not None:
            node.restart_report.status = step.restart_status
        if step.activity == "redo_init":
            node.redo_init_started = self.now
            node.redo_init_seconds = step.seconds
            self._report_redo_init(node, node.start_began)
        if step.label == "copy fragments" and (master := self.master()) is not None:
            self.emit(24, master.node_id, node.node_id)
        if self._hangs(node):
            return
        generation = node.generation
        self.after(step.seconds, lambda: self._finish_step(node, generation))

    def _hangs(self, node: SimDataNode) -> bool:
        """True when the step just entered is the first of the phase a failing node hangs in."""
        phase = self.hung_restarts.get(node.node_id)
        if phase is None or node.start_type not in (NODE_RESTART, INITIAL_NODE_RESTART):
            return False
        step = node.plan[node.step]
        first = node.step == 0 or node.plan[node.step - 1].phase != step.phase
        return step.phase == phase and first

    def fail_restarts(self, node_id: int, phase: int) -> None:
        """Make every node restart of data node ``node_id`` hang in start ``phase``.

        The node stops and begins its start as usual, completes the phases before
        ``phase`` (each reported by StartPhaseCompleted), then stays STARTING for
        good: ``get status`` keeps reporting the phase before as the last completed
        one, ``restart_info`` keeps the status of the step it hangs in, and no
        NDBStartCompleted follows. While it hangs the management server refuses to
        restart or stop other nodes (5063), as it does for any starting node; a
        restart with ``-a`` or ``-f`` is accepted and its start hangs again. Starts
        of the whole cluster (initial start, system restart) are not affected.
        ``ValueError`` names a node that is not a data node or an unknown phase.
        """
        if node_id not in self.data_nodes:
            ids = ", ".join(map(str, self.data_nodes))
            raise ValueError(
                f"cannot fail node {node_id}: not a data node of this cluster (data nodes: {ids})"
            )
        if phase not in START_PHASES:
            phases = ", ".join(map(str, START_PHASES))
            raise ValueError(f"cannot hang a start in phase {phase} (start phases: {phases})")
        self.hung_restarts[node_id] = phase

    def _finish_step(self, node: SimDataNode, generation: int) -> None:
        if node.generation != generation or node.state != STARTING:
            return
        step = node.plan[node.step]
        report = node.restart_report
        if report is not None and step.restart_column:
            report.durations[step.restart_column] = (
                report.durations.get(step.restart_column, 0.0) + self.now - node.step_started
            )
        self._step_events(node, step)
        node.step += 1
        last = node.step >= len(node.plan)
        if last or node.plan[node.step].phase != step.phase:
            self._complete_phase(node, step.phase)
        if last:
            self._node_started(node)
        else:
            self._enter_step(node)
        self._notify()

    def _step_events(self, node: SimDataNode, step: StartStep) -> None:
        master = self.master()
        if step.activity == "redo_init":
            ref = (DBLQH << 16) | node.node_id
            total_files, total_mb = node.redo_total_files, node.redo_total_mb
            self.emit(72, node.node_id, ref, total_files, total_files, total_mb, total_mb)
        elif step.label == "copy metadata" and master is not None:
            self.emit(22, master.node_id, node.node_id)
            self.emit(23, master.node_id, node.node_id)
        elif step.label == "copy fragments" and master is not None:
            self.emit(26, master.node_id, node.node_id)
        elif step.activity == "restore":
            self.emit(86, node.node_id, self.lcp_id)

    def _complete_phase(self, node: SimDataNode, phase: int) -> None:
        # Phase 0 is reported too: a data node logs "Start phase 0 completed" once its
        # memory is allocated and touched, before it connects to the others.
        if phase == 1:
            if not node.dynamic_id:
                node.dynamic_id = self.next_dynamic_id
                self.next_dynamic_id += 1
            # The president is the oldest member: the lowest dynamic id of the nodes that
            # have joined, started or not.
            members = [n for n in self.data_nodes.values() if n.alive and n.dynamic_id]
            president = min(members, key=lambda n: n.dynamic_id).node_id
            self.emit(14, node.node_id, node.node_id, president, node.dynamic_id)
        node.start_phase = phase
        node.phase_started = self.now
        self.emit(13, node.node_id, phase, node.start_type or 0)

    def _node_started(self, node: SimDataNode) -> None:
        node.state = STARTED
        node.start_phase = 0
        node.started_at = self.now
        node.has_filesystem = True
        report = node.restart_report
        if report is not None and report.finished is None:
            report.status = RS_RESTART_COMPLETED
            report.finished = self.now
        cfg = self.config
        self.emit(11, node.node_id, cfg.ndb_version, cfg.ndb_version)
        if not self.ever_started:
            self.ever_started = True
        self._connect_apis()

    def _connect_apis(self) -> None:
        wanted = list(self.config.connected_api)
        if self.config.sql_node_id is not None:
            wanted.insert(0, self.config.sql_node_id)
        master = self.master()
        for api in wanted:
            if api not in self.api_connected:
                self.api_connected.add(api)
                if master is not None:
                    self.emit(51, master.node_id, api, self.config.ndb_version, 0)

    def _report_redo_init(self, node: SimDataNode, start_began: float) -> None:
        step = node.current_step()
        if step is None or step.activity != "redo_init" or node.start_began != start_began:
            return
        files, mb = node.redo_init_progress(self.now)
        ref = (DBLQH << 16) | node.node_id
        self.emit(71, node.node_id, ref, node.redo_total_files, files, node.redo_total_mb, mb)
        every = node.running_config.startup_status_report_frequency
        if every > 0:
            self.after(every, lambda: self._report_redo_init(node, start_began))

    def change_config(self, **changes: object) -> int:
        """Install a new configuration (ndb_mgmd --reload): the next generation with the
        given parameters. Running data nodes keep the old one until they restart."""
        self.config = replace(self.config, generation=self.config.generation + 1,
                              **changes)  # type: ignore[arg-type]
        return self.config.generation

    # Stopping

    def _begin_shutdown(
        self, node: SimDataNode, *, restart: bool, nostart: bool, initial: bool, abort: bool
    ) -> None:
        if node.state in (NO_CONTACT, SHUTTING_DOWN):
            return
        stuck = self.stuck_stops.get(node.node_id)
        if stuck == "started":
            return
        node.generation += 1
        generation = node.generation
        was_serving = node.serving
        node.state = SHUTTING_DOWN
        node.stop_level = 1
        node.start_phase = 0
        self.emit(17, node.node_id, 0)
        if was_serving and any(n.serving for n in self.data_nodes.values() if n is not node):
            node.restart_report = RestartReport(status=RS_NODE_FAILED, began=self.now)
        step = 0.0 if abort else SHUTDOWN_LEVEL_SECONDS
        for level in (2, 3, 4):
            self.after(step * (level - 1), lambda lv=level: self._stop_level(node, generation, lv))
        if stuck != "stopping":
            self.after(
                step * 4, lambda: self._stopped(node, generation, restart, nostart, initial)
            )
        self._notify()

    def _stop_level(self, node: SimDataNode, generation: int, level: int) -> None:
        if node.generation == generation and node.state == SHUTTING_DOWN:
            node.stop_level = level
            self._notify()

    def _stopped(
        self, node: SimDataNode, generation: int, restart: bool, nostart: bool, initial: bool
    ) -> None:
        if node.generation != generation or node.state != SHUTTING_DOWN:
            return
        action = (1 if restart else 0) | (2 if nostart else 0) | (4 if initial else 0)
        self.emit(53, node.node_id, action, 0)
        node.state = NO_CONTACT
        node.stop_level = 0
        node.dynamic_id = 0
        node.process_started = None
        node.started_at = None
        node.generation += 1
        node.stops += 1
        self.emit(1, self.mgmd_id, node.node_id)
        for other in self.data_nodes.values():
            if other.serving:
                self.emit(28, other.node_id, node.node_id, 0)
        if (master := self.master()) is not None:
            self.emit(27, master.node_id, 0, node.node_id, 0)
        report = node.restart_report
        if report is not None and report.status == RS_NODE_FAILED:
            report.durations["secs_to_complete_node_failure"] = (
                self.config.restart_profile.node_failure
            )
            report.status = RS_NODE_FAILURE_COMPLETED
        if initial:
            node.has_filesystem = False
        if restart:
            self._connect_process(node)
            if not nostart:
                self.after(1.0, lambda: self._begin_start(node))
        if not any(n.alive for n in self.data_nodes.values()):
            self.api_connected.clear()
        self._notify()

    # Requests from management clients

    def _busy(self) -> bool:
        # MgmtSrvr::is_any_node_starting: only a starting node blocks; a stopping one
        # does not (stopping the rest of its group is then refused with 5028).
        return any(n.state == STARTING for n in self.data_nodes.values())

    def _check_targets(self, node_ids: tuple[int, ...]) -> ControlOutcome | None:
        for node_id in node_ids:
            if node_id not in self.data_nodes:
                return _refuse(ec.WRONG_PROCESS_TYPE)
            if not self.data_nodes[node_id].alive:
                return _refuse(ec.NO_CONTACT_WITH_PROCESS)
        return None

    def _would_crash(self, node_ids: tuple[int, ...]) -> bool:
        """True when stopping these nodes leaves a node group with no started node."""
        groups: dict[int, list[SimDataNode]] = {}
        for n in self.data_nodes.values():
            if n.node_group is not None and n.serving:
                groups.setdefault(n.node_group, []).append(n)
        return any(
            members and all(m.node_id in node_ids for m in members) for members in groups.values()
        )

    def restart_nodes(
        self,
        node_ids: tuple[int, ...],
        *,
        initial: bool = False,
        nostart: bool = False,
        abort: bool = False,
        force: bool = False,
    ) -> ControlOutcome:
        """``restart node v2``."""
        if any(n.state == SINGLE_USER for n in self.data_nodes.values()):
            return _refuse(ec.OPERATION_NOT_ALLOWED_START_STOP)
        if self._busy() and not (force or abort):
            return _refuse(ec.OPERATION_NOT_ALLOWED_START_STOP)
        refusal = self._check_targets(node_ids)
        if refusal is not None:
            return refusal
        targets = node_ids
        if self._would_crash(node_ids):
            if not force:
                return _refuse(ec.NODE_SHUTDOWN_WOULD_CAUSE_SYSTEM_CRASH)
            # Services.cpp: restartDB(nostart, initialstart, abort=false), every data node.
            targets = tuple(n.node_id for n in self.data_nodes.values() if n.alive)
            abort = False
        return self._shutdown(targets, restart=True, nostart=nostart, initial=initial, abort=abort)

    def stop_nodes(
        self, node_ids: tuple[int, ...], *, abort: bool = False, force: bool = False
    ) -> ControlOutcome:
        """``stop v2``."""
        if self._busy() and not (force or abort):
            return _refuse(ec.OPERATION_NOT_ALLOWED_START_STOP)
        refusal = self._check_targets(node_ids)
        if refusal is not None:
            return refusal
        targets = node_ids
        if self._would_crash(node_ids):
            if not force:
                return _refuse(ec.NODE_SHUTDOWN_WOULD_CAUSE_SYSTEM_CRASH)
            targets = tuple(n.node_id for n in self.data_nodes.values() if n.alive)
        return self._shutdown(targets, restart=False, nostart=False, initial=False, abort=abort)

    def restart_all(
        self, *, initial: bool = False, nostart: bool = False, abort: bool = False
    ) -> ControlOutcome:
        """``restart all``: every connected data node (a system restart follows)."""
        targets = tuple(n.node_id for n in self.data_nodes.values() if n.alive)
        return self._shutdown(targets, restart=True, nostart=nostart, initial=initial, abort=abort)

    def stop_all(self, *, abort: bool = False) -> ControlOutcome:
        """``stop all`` with ``stop: db``."""
        targets = tuple(n.node_id for n in self.data_nodes.values() if n.alive)
        return self._shutdown(targets, restart=False, nostart=False, initial=False, abort=abort)

    def _shutdown(
        self, targets: tuple[int, ...], *, restart: bool, nostart: bool, initial: bool, abort: bool
    ) -> ControlOutcome:
        marks = {t: self.data_nodes[t].stops for t in targets}
        for t in targets:
            self._begin_shutdown(
                self.data_nodes[t], restart=restart, nostart=nostart, initial=initial, abort=abort
            )

        def done() -> bool:
            return all(self.data_nodes[t].stops > marks[t] for t in targets)

        def left_started() -> bool:
            return all(self.data_nodes[t].state != STARTED for t in targets)

        return ControlOutcome(None, targets, done, left_started if restart else None)

    def start_node(self, node_id: int) -> ControlOutcome:
        """``start``: a node left NOT_STARTED begins its start."""
        if node_id not in self.data_nodes:
            return _refuse(ec.WRONG_PROCESS_TYPE)
        node = self.data_nodes[node_id]
        if not node.alive:
            return _refuse(ec.NO_CONTACT_WITH_PROCESS)
        if node.state == NOT_STARTED:
            self._begin_start(node)
        return ControlOutcome(None, (node_id,))

    def start_all(self) -> ControlOutcome:
        """``start all``: the start order reaches every connected data node."""
        reached = []
        for node in self.data_nodes.values():
            if node.alive:
                reached.append(node.node_id)
                if node.state == NOT_STARTED:
                    self._begin_start(node)
        return ControlOutcome(None, tuple(reached))

    def enter_single_user(self, api_id: int) -> ControlOutcome:
        """``enter single user``: only ``api_id`` may use the cluster."""
        if self.config.node_type(api_id) != "API":
            return _refuse(ec.NODE_NOT_API_NODE)
        serving = [n for n in self.data_nodes.values() if n.serving]
        if not serving:
            return _refuse(ec.NO_CONTACT_WITH_DB_NODES)
        self.emit(52, serving[0].node_id, 0, api_id)
        for n in serving:
            n.state = SINGLE_USER
        self.single_user_api = api_id
        self.emit(52, serving[0].node_id, 1, api_id)
        self._notify()
        return ControlOutcome(None, tuple(n.node_id for n in serving))

    def exit_single_user(self) -> ControlOutcome:
        """``exit single user``."""
        nodes = [n for n in self.data_nodes.values() if n.state == SINGLE_USER]
        for n in nodes:
            n.state = STARTED
        self.single_user_api = None
        if nodes:
            self.emit(52, nodes[0].node_id, 2, 0)
        self._notify()
        return ControlOutcome(None, tuple(n.node_id for n in nodes))

    def create_nodegroup(self, node_ids: tuple[int, ...]) -> int:
        """Put nodes that have no node group into a new one; returns its id."""
        used = {n.node_group for n in self.data_nodes.values() if n.node_group is not None}
        group = max(used, default=-1) + 1
        for node_id in node_ids:
            self.data_nodes[node_id].node_group = group
        self._notify()
        return group

    def set_cluster_loglevel(self, category: int, level: int) -> None:
        """Change the cluster log's level for one category (250..262)."""
        self.bus.cluster_log_levels[category] = level

    # Periodic reports

    def _report_statistics(self) -> None:
        self.after(STATS_INTERVAL, self._report_statistics)
        want_trans = self.bus.wants(35)
        want_job = self.bus.wants(39)
        for node in self.data_nodes.values():
            if not node.serving:
                node.take_interval_counters()
                continue
            tc, ops = node.take_interval_counters()
            if want_trans:
                self.emit(
                    35,
                    node.node_id,
                    *(
                        int(tc[k])
                        for k in (
                            "TRANSACTIONS",
                            "COMMITS",
                            "READS",
                            "SIMPLE_READS",
                            "WRITES",
                            "ATTRINFO",
                        )
                    ),
                    int(ops / STATS_INTERVAL * 0.002),
                    int(tc["ABORTS"]),
                    int(tc["TABLE_SCANS"]),
                    int(tc["RANGE_SCANS"]),
                )
            if self.bus.wants(36):
                self.emit(36, node.node_id, int(ops))
            if not want_job:
                continue
            busy = sum(node.loads) / max(len(node.loads), 1) / 100.0
            jitter = noise(self.seed, int(self.now), node.node_id, 39)
            self.emit(39, node.node_id, int(8 + 60 * busy + 3 * jitter))
            tps = self.workload.tps / max(sum(1 for n in self.data_nodes.values() if n.serving), 1)
            for peer in self.data_nodes.values():
                if peer is node or not peer.serving:
                    continue
                size = int(
                    min(
                        65535,
                        180
                        + tps * 1.6
                        + 40 * noise(self.seed, int(self.now), node.node_id, peer.node_id),
                    )
                )
                self.emit(40, node.node_id, peer.node_id, max(size, 64))
                self.emit(41, node.node_id, peer.node_id, max(int(size * 0.93), 64))

    def _local_checkpoint(self) -> None:
        self.after(LCP_INTERVAL, self._local_checkpoint)
        master = self.master()
        if master is None:
            return
        self.lcp_id += 1
        gci = int(self.now / 2) + 1000
        lcp = self.lcp_id
        self.emit(6, master.node_id, lcp, gci - 300, gci - 2)
        self.after(LCP_DURATION, lambda: self._lcp_done(lcp))

    def _lcp_done(self, lcp: int) -> None:
        master = self.master()
        if master is not None:
            self.emit(7, master.node_id, lcp)

    def index_pages(self, node: SimDataNode) -> tuple[int, int]:
        """``IndexMemory`` pages (8 KB) a node uses and has: filled half as much as its
        ``DataMemory``, as hash indexes take less room than the rows they point to."""
        total = self.config.index_memory_mb * 1024 // 8
        used = node.data_pages_used * total // (2 * node.data_pages_total or 1)
        return used, total

    def memory_usage_words(self, node: SimDataNode) -> list[tuple[int, ...]]:
        """MemoryUsage (event 50) words a node reports for ``REPORT MEMORY``: data then index."""
        data = (0, 32768, node.data_pages_used, node.data_pages_total, DBTUP)
        index = (0, 8192, *self.index_pages(node), DBACC)
        return [data, index]

    def _notify(self) -> None:
        if self.changed is not None:
            self.changed()
