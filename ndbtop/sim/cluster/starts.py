"""Data nodes starting: processes launched, start types, the phases of a start plan, and
the events a start reports (StartPhaseCompleted, redo log initialisation, NDBStartCompleted).

A failure can be injected: :meth:`NodeStarts.fail_restarts` makes a data node's
node restarts hang in one start phase, as a node that cannot finish its start
does (it stays STARTING and never reports the phase completed).
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.sim.cluster.datanode import NOT_STARTED, STARTED, STARTING, RestartReport, SimDataNode
from ndbtop.sim.cluster.state import ClusterState
from ndbtop.sim.startplan import (
    INITIAL_NODE_RESTART,
    INITIAL_START,
    NODE_RESTART,
    REDO_INIT_PHASE,
    RS_RESTART_COMPLETED,
    START_PHASES,
    SYSTEM_RESTART,
    StartStep,
    initial_start_plan,
    node_restart_plan,
    system_restart_plan,
)
from ndbtop.sim.workload import noise

DBLQH = 247


class NodeStarts(ClusterState):
    """How data nodes come up, phase by phase."""

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
        node.state = STARTING
        node.start_phase = 0
        node.step = 0
        node.start_began = node.step_started = node.phase_started = self.now
        node.redo_init_started = None
        if node.start_type == SYSTEM_RESTART and self._group_missing():
            # A system restart needs a node of every node group: the node waits for the
            # others to connect (as after a node group was lost).
            node.plan = ()
            self._notify()
            return
        node.plan = self._plan(node.start_type, node.node_id)
        waiting = [n for n in self.data_nodes.values()
                   if n is not node and n.state == STARTING and not n.plan]
        for other in waiting:
            other.state = NOT_STARTED
            self._begin_start(other)
        if node.start_type in (NODE_RESTART, INITIAL_NODE_RESTART):
            report = node.restart_report
            if report is None or report.finished is not None:
                node.restart_report = RestartReport(status=0, began=self.now)
        cfg = self.config
        self.emit(10, node.node_id, cfg.ndb_version, cfg.ndb_version)
        self._enter_step(node)
        self._notify()

    def _group_missing(self) -> bool:
        """True when some node group has no data node connected."""
        alive: dict[int, bool] = {}
        for n in self.data_nodes.values():
            if n.node_group is not None:
                alive[n.node_group] = alive.get(n.node_group, False) or n.alive
        return not all(alive.values())

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
