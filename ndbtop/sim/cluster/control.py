"""Requests from management clients, as the management server rules on them.

Read in MgmtSrvr::restartNodes/stopNodes/sendSTOP_REQ, MgmApiSession::restart/stop and
Ndbcntr::execSTOP_REQ (server-rules.md §2, §3, §6): a restart is refused in single-user
mode (5063) even forced; a restart or stop is refused while a data node is starting
(5063) unless forced or aborted; several nodes without abort are refused (5031), and
with force retried once as an abort; one node with abort is killed at once, with no
node-group check (on the last started node of a group every data node then shuts down);
otherwise losing the last started node of a node group is refused (5028) unless forced,
and a forced one takes every data node down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ndbtop.compat import SLOTS
from ndbtop.mgm import errorcodes as ec
from ndbtop.sim.cluster.datanode import NOT_STARTED, SINGLE_USER, STARTED, STARTING, SimDataNode
from ndbtop.sim.cluster.stops import NodeStops


@dataclass(frozen=True, **SLOTS)
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
    start: Callable[[], None] | None = None
    """For a restart the server completes: the START_ORD it sends to every target once
    both of its waits succeeded (never after 5024 or 5025)."""

    @property
    def ok(self) -> bool:
        """True when the request was accepted."""
        return self.error is None


def _refuse(code: int) -> ControlOutcome:
    return ControlOutcome((code, ec.ndb_error_string(code)))


class NodeControl(NodeStops):
    """Restart, stop, start, single-user mode and node groups, on request."""

    def _busy(self) -> bool:
        # MgmtSrvr::is_any_node_starting: only a starting node blocks; a stopping one
        # does not (stopping the rest of its group is then refused with 5028).
        return any(n.state == STARTING for n in self.data_nodes.values())

    def _another_starting(self, node_ids: tuple[int, ...]) -> bool:
        return any(n.state == STARTING and n.node_id not in node_ids
                   for n in self.data_nodes.values())

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
        server_waits: bool = False,
    ) -> ControlOutcome:
        """``restart node v2``.

        With ``server_waits`` the caller plays MgmtSrvr::restartNodes: the nodes stop to
        NOT_STARTED (the STOP_REQ always carries nostart) and the caller sends the
        outcome's ``start`` once its waits succeeded. Without it the nodes start again
        by themselves (a restart as a scenario orders it).
        """
        if any(n.state == SINGLE_USER for n in self.data_nodes.values()):
            return _refuse(ec.OPERATION_NOT_ALLOWED_START_STOP)
        chosen = self._targets(node_ids, abort=abort, force=force)
        if isinstance(chosen, ControlOutcome):
            return chosen
        targets, abort = chosen
        outcome = self._shutdown(targets, restart=True, nostart=nostart or server_waits,
                                 initial=initial, abort=abort)
        return self._with_start(outcome, server_waits and not nostart)

    def stop_nodes(
        self, node_ids: tuple[int, ...], *, abort: bool = False, force: bool = False
    ) -> ControlOutcome:
        """``stop v2``."""
        chosen = self._targets(node_ids, abort=abort, force=force)
        if isinstance(chosen, ControlOutcome):
            return chosen
        targets, abort = chosen
        return self._shutdown(targets, restart=False, nostart=False, initial=False, abort=abort)

    def _targets(
        self, node_ids: tuple[int, ...], *, abort: bool, force: bool
    ) -> ControlOutcome | tuple[tuple[int, ...], bool]:
        """The data nodes a restart or stop acts on (every one when forced past 5028:
        restartDB/shutdownDB, without abort) and whether they are aborted; or the
        refusal."""
        if self._busy() and not (force or abort):
            return _refuse(ec.OPERATION_NOT_ALLOWED_START_STOP)
        refusal = self._check_targets(node_ids)
        if refusal is not None:
            return refusal
        several = len(set(node_ids)) > 1
        if several and not abort:
            # execSTOP_REQ: UnsupportedNodeShutdown; Services.cpp retries it with abort
            # when forced.
            if not force:
                return _refuse(ec.UNSUPPORTED_NODE_SHUTDOWN)
            abort = True
        if not (abort and not several) and self._another_starting(node_ids):
            # execSTOP_REQ at the master: a request that is not one node with abort meets
            # !c_start.m_starting.isclear(): StopRef::NodeShutdownInProgress. -f does not
            # turn it into restartDB (only 5028 and 5031 do).
            return _refuse(ec.NODE_SHUTDOWN_IN_PROGRESS)
        if abort and not several:
            # execSTOP_REQ kills one node with abort before any node-group check; the
            # other nodes see it fail (and their group lost) before it comes back.
            node = self.data_nodes[node_ids[0]]
            if node.serving and self._would_crash(node_ids):
                self.after(0.0, lambda: self._lose_node_group(node))
            return node_ids, True
        if not self._would_crash(node_ids):
            return node_ids, abort
        if not force:
            return _refuse(ec.NODE_SHUTDOWN_WOULD_CAUSE_SYSTEM_CRASH)
        return tuple(n.node_id for n in self.data_nodes.values() if n.alive), False

    def restart_all(
        self, *, initial: bool = False, nostart: bool = False, abort: bool = False,
        server_waits: bool = False,
    ) -> ControlOutcome:
        """``restart all``: every connected data node (a system restart follows); with
        ``server_waits`` the caller sends the START_ORD, as for :meth:`restart_nodes`."""
        targets = tuple(n.node_id for n in self.data_nodes.values() if n.alive)
        outcome = self._shutdown(targets, restart=True, nostart=nostart or server_waits,
                                 initial=initial, abort=abort)
        return self._with_start(outcome, server_waits and not nostart)

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

    def _with_start(self, outcome: ControlOutcome, start: bool) -> ControlOutcome:
        """The outcome with the START_ORD the server sends after its waits, if it will."""
        if not start:
            return outcome
        targets = outcome.nodes

        def start_all() -> None:
            for t in targets:
                self.start_node(t)

        return replace(outcome, start=start_all)

    def start_node(self, node_id: int) -> ControlOutcome:
        """``start``: a node left NOT_STARTED begins its start."""
        refusal = self._check_targets((node_id,))
        if refusal is not None:
            return refusal
        node = self.data_nodes[node_id]
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
