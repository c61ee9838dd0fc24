"""The simulated ndb_mgmd's node control: restart, stop, start, single-user mode, backups
and node groups, each replying only once the nodes did what the real server waits for."""

from __future__ import annotations

import asyncio

from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.wire import format_block
from ndbtop.sim.cluster import ControlOutcome
from ndbtop.sim.cluster.datanode import SINGLE_USER, STARTING
from ndbtop.sim.mgmd.handlers import Handlers, Session, node_ids

LEAVE_STARTED_WAIT = 12.0
"""Simulated seconds a restarted node has to leave STARTED (else 5024)."""
NOT_STARTED_WAIT = 120.0
"""Simulated seconds restarted nodes have to reach NOT_STARTED (else 5025)."""
STOP_WAIT = 3600.0
"""Simulated seconds a stop waits for the nodes' STOP_CONF (the real server has no limit)."""
BACKUP_WAIT_LIMIT = 48 * 3600.0
"""Simulated seconds a ``start backup`` waits for its backup (mgmapi's own limit)."""


class ControlHandlers(Handlers):
    """Commands that change the cluster."""

    async def _restart(self, session: Session, args: dict, version: int) -> bytes:
        ids = node_ids(str(args["node"]))
        if ids and all(self._is_mgmd(i) for i in ids):
            return await self._control_mgmd("restart reply", ids, args, version, restart=True)
        outcome = self.cluster.restart_nodes(
            ids,
            initial=bool(args.get("initialstart", 0)),
            nostart=bool(args.get("nostart", 0)),
            abort=bool(args.get("abort", 0)),
            force=bool(args.get("force", 0)),
            server_waits=True,
        )
        count, error = await self._complete(outcome)
        fields: list[tuple[str, object]] = [
            ("result", "Ok" if error is None else f"{error[0]}-{error[1]}"),
            ("restarted", count),
        ]
        if version > 1:
            fields.append(("disconnect", 0))
        return format_block("restart reply", fields)

    async def _restart_all(self, session: Session, args: dict) -> bytes:
        outcome = self.cluster.restart_all(
            initial=bool(args.get("initialstart", 0)),
            nostart=bool(args.get("nostart", 0)),
            abort=bool(args.get("abort", 0)),
            server_waits=True,
        )
        count, error = await self._complete(outcome)
        # MgmApiSession::restartAll prints "<code>-<text>" as restart does.
        result = "Ok" if error is None else f"{error[0]}-{error[1]}"
        return format_block("restart reply", [("result", result), ("restarted", count)])

    async def _stop(self, session: Session, args: dict, version: int) -> bytes:
        ids = node_ids(str(args["node"]))
        if not ids:
            return format_block("stop reply", [("result", "empty node list")])
        if all(self._is_mgmd(i) for i in ids):
            return await self._control_mgmd("stop reply", ids, args, version, restart=False)
        outcome = self.cluster.stop_nodes(
            ids, abort=bool(args.get("abort", 0)), force=bool(args.get("force", 0))
        )
        count, error = await self._complete(outcome)
        fields: list[tuple[str, object]] = [
            ("result", "Ok" if error is None else error[1]),
            ("stopped", count),
        ]
        if version > 1:
            fields.append(("disconnect", 0))
        return format_block("stop reply", fields)

    async def _stop_all(self, session: Session, args: dict) -> bytes:
        tostop = str(args.get("stop", "db"))
        count, error = 0, None
        if "db" in tostop:
            count, error = await self._complete(self.cluster.stop_all(abort=bool(args["abort"])))
        fields: list[tuple[str, object]] = [
            ("result", "Ok" if error is None else error[1]),
            ("stopped", count),
        ]
        if "stop" in args:
            fields.append(("disconnect", 1 if "mgm" in tostop else 0))
        return format_block("stop reply", fields)

    async def _start(self, session: Session, args: dict) -> bytes:
        outcome = self.cluster.start_node(int(args["node"]))
        result = "Ok" if outcome.ok else outcome.error[1]  # type: ignore[index]
        return format_block("start reply", [("result", result)])

    async def _start_all(self, session: Session, args: dict) -> bytes:
        outcome = self.cluster.start_all()
        return format_block("start reply", [("result", "Ok"), ("started", len(outcome.nodes))])

    async def _enter_single_user(self, session: Session, args: dict) -> bytes:
        outcome = self.cluster.enter_single_user(int(args["nodeId"]))
        result = "Ok" if outcome.ok else outcome.error[1]  # type: ignore[index]
        return format_block("enter single user reply", [("result", result)])

    async def _exit_single_user(self, session: Session, args: dict) -> bytes:
        self.cluster.exit_single_user()
        return format_block("exit single user reply", [("result", "Ok")])

    async def _start_backup(self, session: Session, args: dict) -> bytes:
        # MgmtSrvr::startBackup: completed 0 answers once the request is sent, 1 once the
        # backup started, 2 once it ended; an abort while waiting answers its reason.
        completed = int(args.get("completed", 2))
        backups = self.cluster.backups
        error, backup_id = backups.start(self.node_id, int(args.get("backupid", 0)) or None)
        if error is None and completed:
            def ready() -> bool:
                if completed == 1 and backups.has_started(backup_id):
                    return True
                return backups.outcome(backup_id) is not None

            await self.runtime.wait_for(ready, BACKUP_WAIT_LIMIT)
            outcome = backups.outcome(backup_id)
            if outcome is not None and outcome[0] == "aborted":
                error = outcome[1]
        if error is not None:
            return format_block("start backup reply", [("result", ec.ndb_error_string(error))])
        fields: list[tuple[str, object]] = [("result", "Ok")]
        if completed:
            fields.append(("id", backup_id))
        return format_block("start backup reply", fields)

    async def _abort_backup(self, session: Session, args: dict) -> bytes:
        error = self.cluster.backups.abort(int(args["id"]))
        result = "Ok" if error is None else ec.ndb_error_string(error)
        return format_block("abort backup reply", [("result", result)])

    async def _create_nodegroup(self, session: Session, args: dict) -> bytes:
        group = self.cluster.create_nodegroup(node_ids(str(args["nodes"])))
        return format_block("create nodegroup reply", [("ng", group), ("result", "Ok")])

    def _is_mgmd(self, node_id: int) -> bool:
        return node_id in self.cluster.mgmd_alive

    async def _control_mgmd(self, header: str, ids: tuple[int, ...], args: dict, version: int,
                            *, restart: bool) -> bytes:
        """A stop or restart of management nodes (MgmtSrvr::sendSTOP_REQ): the server's own
        node stops or restarts itself once it has replied ``disconnect: 1`` (m_stopSelf);
        another is asked over its own management connection (sendStopMgmd)."""
        force, abort = bool(args.get("force", 0)), bool(args.get("abort", 0))
        states = {n.state for n in self.cluster.data_nodes.values()}
        refused = None
        if (restart and SINGLE_USER in states) or (STARTING in states and not (force or abort)):
            # restartNodes: single-user mode first; both: is_any_node_starting unless -f/-a.
            refused = ec.OPERATION_NOT_ALLOWED_START_STOP
        elif any(not self.cluster.mgmd_alive[i] for i in ids if i != self.node_id):
            # sendStopMgmd cannot connect to it: SEND_OR_RECEIVE_FAILED.
            refused = ec.SEND_OR_RECEIVE_FAILED
        count = "restarted" if restart else "stopped"
        if refused is not None:
            text = ec.ndb_error_string(refused)
            fields: list[tuple[str, object]] = [
                ("result", f"{refused}-{text}" if restart else text), (count, 0)]
            if version > 1:
                fields.append(("disconnect", 0))
            return format_block(header, fields)
        runtime = self.runtime
        for node_id in ids:
            if node_id == self.node_id:
                continue
            await runtime.stop_mgmd(node_id)  # type: ignore[attr-defined]
            if restart:
                await runtime.start_mgmd(node_id)  # type: ignore[attr-defined]
        own = self.node_id in ids
        if own:
            async def stop_self() -> None:
                await asyncio.sleep(0)
                await runtime.stop_mgmd(self.node_id)  # type: ignore[attr-defined]
                if restart:
                    await runtime.start_mgmd(self.node_id)  # type: ignore[attr-defined]

            self._stopping_self = asyncio.get_running_loop().create_task(stop_self())
        fields = [("result", "Ok"), (count, len(ids))]
        if version > 1:
            fields.append(("disconnect", 1 if own else 0))
        return format_block(header, fields)

    async def _complete(self, outcome: ControlOutcome) -> tuple[int, tuple[int, str] | None]:
        """Wait as MgmtSrvr::restartNodes/restartDB (or a stop) does before replying.

        A restart waits 12 s for the nodes to leave STARTED (else 5024), then
        up to 120 s for them to reach NOT_STARTED (else 5025); the count of
        nodes stopped stands in both cases. Only when both waits succeed does it
        send START_ORD: after 5024 or 5025 the nodes are left NOT_STARTED. A stop
        waits for the nodes to stop.
        """
        if outcome.error is not None:
            return 0, outcome.error
        count = len(outcome.nodes)
        wait = self.runtime.wait_for
        if outcome.left_started is not None:
            if not await wait(outcome.left_started, LEAVE_STARTED_WAIT):
                code = ec.WAIT_FOR_NDBD_TO_START_SHUTDOWN_FAILED
                return count, (code, ec.ndb_error_string(code))
            if outcome.done is not None and not await wait(outcome.done, NOT_STARTED_WAIT):
                code = ec.WAIT_FOR_NDBD_SHUTDOWN_FAILED
                return count, (code, ec.ndb_error_string(code))
            if outcome.start is not None:
                outcome.start()
        elif outcome.done is not None:
            await wait(outcome.done, STOP_WAIT)
        return count, None
