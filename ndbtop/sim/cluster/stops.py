"""Data nodes stopping: the shutdown levels, the events of a node failure, and the restart
that follows when one was asked for."""

from __future__ import annotations

from ndbtop.sim.cluster.datanode import (
    NO_CONTACT,
    NOT_STARTED,
    SHUTTING_DOWN,
    STARTED,
    RestartReport,
    SimDataNode,
)
from ndbtop.sim.cluster.starts import NodeStarts
from ndbtop.sim.startplan import RS_NODE_FAILED, RS_NODE_FAILURE_COMPLETED

SHUTDOWN_LEVEL_SECONDS = 0.6
NODE_GROUP_LOST = 6302
"""NDBD_EXIT_... "All nodes in a node group are unavailable": the exit of every data node
once a node group has no started node left."""


class NodeStops(NodeStarts):
    """How data nodes go down (and come back, for a restart)."""

    # Stopping

    def _begin_shutdown(
        self, node: SimDataNode, *, restart: bool, nostart: bool, initial: bool, abort: bool
    ) -> None:
        if node.state in (NO_CONTACT, SHUTTING_DOWN):
            return
        stuck = self.stuck_stops.get(node.node_id)
        if stuck == "started":
            return
        late, slow = self.slow_stops.get(node.node_id, (0.0, 0.0))
        if late > 0 and node.state == STARTED:
            generation = node.generation

            def begin() -> None:
                if node.generation == generation and node.state == STARTED:
                    self._shut_down(node, restart=restart, nostart=nostart, initial=initial,
                                    abort=abort, slow=slow)

            self.after(late, begin)
            return
        self._shut_down(node, restart=restart, nostart=nostart, initial=initial, abort=abort,
                        slow=slow)

    def _shut_down(self, node: SimDataNode, *, restart: bool, nostart: bool, initial: bool,
                   abort: bool, slow: float) -> None:
        stuck = self.stuck_stops.get(node.node_id)
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
        step += slow / 4
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

    def _lose_node_group(self, killed: SimDataNode) -> None:
        """A node group has no started node left: every other data node of the cluster
        shuts down (NDBStopForced, exit 6302), as a real cluster does."""
        for other in self.data_nodes.values():
            if other is killed or other.state in (NO_CONTACT, NOT_STARTED):
                continue
            other.generation += 1
            self.emit(59, other.node_id, 0, 0, NODE_GROUP_LOST, 255, 0)
            other.state = NO_CONTACT
            other.stop_level = 0
            other.start_phase = 0
            other.dynamic_id = 0
            other.process_started = None
            other.started_at = None
            other.stops += 1
            self.emit(1, self.mgmd_id, other.node_id)
        self.api_connected.clear()
        self._notify()
