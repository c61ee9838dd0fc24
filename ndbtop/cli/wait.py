"""``ndbtop wait``: block until data nodes reach a state (scripts; replaces ndb_waiter)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Iterable

from ndbtop.cli.exits import DONE, INTERRUPTED, NOT_MET, UNREACHABLE
from ndbtop.cli.sources import cluster_connectstring
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.compat import AsyncEvent
from ndbtop.errors import MgmError, UsageError
from ndbtop.eta.node_evidence import redo_reading
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.backups import Backup
from ndbtop.model.clock import RealClock
from ndbtop.model.eta import eta_json
from ndbtop.ops.wait import NodeChange, Target, WaitResult, wait_for
from ndbtop.ops.wait_backup import BackupScale, progress_line, wait_for_backup
from ndbtop.sanitise import json_text, write_line


def context_line(args: argparse.Namespace) -> str | None:
    """The first line of a wait on a context (stderr: stdout is one change a line),
    naming it and the management servers it gives, else None: ``$NDBTOP_CONTEXT`` can
    choose the cluster where the command line does not show it."""
    context = getattr(args, "context_info", None)
    if context is None:
        return None
    return f"ndbtop: waiting on context {context.name} ({cluster_connectstring(args)})"


def run_wait(args: argparse.Namespace) -> int:
    """0 when every node reached the state, 1 on timeout, 3 when the server is unreachable."""
    first = context_line(args)
    if first is not None:
        write_line(sys.stderr, first)
    if args.backup_completed is not None:
        return _run_backup_wait(args)
    if "backup_status_interval" in getattr(args, "given", ()):
        raise UsageError("--backup-status-interval applies to wait --backup-completed only")
    connectstring = cluster_connectstring(args)

    async def waiting() -> WaitResult | None:
        follower = Follower(connectstring, args.interval)
        await follower.start()
        try:
            return await follower.wait(Target(args.status), args.nodes, args.timeout,
                                       as_json=args.json)
        finally:
            await follower.stop()

    try:
        result = asyncio.run(waiting())
    except MgmError as exc:
        write_line(sys.stderr, f"ndbtop: error: {exc}")
        return UNREACHABLE
    return wait_status(result, args.timeout, args.status)


def wait_status(result: WaitResult | None, timeout: float, status: str) -> int:
    """The exit status of a wait (``None``: interrupted), with its reason on stderr."""
    if result is None:
        return INTERRUPTED
    if result.reached:
        return DONE
    if result.error is not None:
        write_line(sys.stderr, f"ndbtop: error: {result.error}")
        return UNREACHABLE
    missing = ", ".join(f"node {n.node_id} {n.status}" for n in result.missing)
    write_line(sys.stderr, f"ndbtop: timed out after {timeout:g} s waiting for "
               f"{status}: {missing}")
    return NOT_MET


SETTLE_S = 2.0
"""How long a wait that got there gives the hub beside it, at most, to see the starts end
with their last events (the history keeps them then)."""
SETTLE_LOOK_S = 0.05
"""How often it looks."""


class Follower:
    """A wait with a hub beside it that follows the events and the start history: the
    estimates, the phases named as the live view names them, the redo log's progress.

    Started before a request (``mgm --wait``), the hub sees the start's events from its
    beginning; Ctrl-C during :meth:`wait` ends it (None) and the hub stops cleanly.
    """

    def __init__(self, connectstring: ConnectString, interval: float) -> None:
        self.connectstring = connectstring
        self.interval = interval
        self.hub = Hub(connectstring, RealClock(), interval, events=True,
                       history_dir=default_history_dir())
        self._first_reading = AsyncEvent()
        self.hub.add_listener(self._on_hub_change)

    def _on_hub_change(self) -> None:
        if self.hub.mgm.reading is not None:
            self._first_reading.set()

    async def start(self) -> None:
        """Start the hub."""
        await self.hub.start()

    async def ready(self) -> None:
        """Until the hub has read the nodes, the events answered its subscription and the
        cluster log files were read (the starts it did not see begin dated from them)."""
        await self._first_reading.wait()
        if self.hub.events is not None:
            await self.hub.events.answered.wait()
        if self.hub.cluster_log is not None:
            await self.hub.log.first_read.wait()

    async def stop(self) -> None:
        """Stop the hub."""
        await self.hub.stop()

    async def _settled(self, nodes: frozenset[int] | None) -> None:
        """Until the hub has seen the starts of ``nodes`` (all: None) end with their last
        event, so that it keeps them whole in the start history."""
        while True:
            timelines = self.hub.snapshot().timelines
            if all(not t.active and (t.finished_exact or t.aborted) for t in timelines
                   if nodes is None or t.node_id in nodes):
                return
            await asyncio.sleep(SETTLE_LOOK_S)

    async def wait(self, target: Target, nodes: Iterable[int] | None, timeout: float, *,
                   as_json: bool = False, since: float | None = None) -> WaitResult | None:
        """Wait as ``ndbtop wait`` does, a line per change on stdout; None on Ctrl-C.
        ``since``: when a request that takes the nodes out of ``target`` was sent
        (:func:`~ndbtop.ops.wait.wait_for`)."""
        hub = self.hub
        chosen = None if nodes is None else frozenset(nodes)

        def show(change: NodeChange) -> None:
            write_line(sys.stdout, json_text(change.as_json()) if as_json else change.text())
            sys.stdout.flush()

        told: list[str] = []

        def retrying(error: str, pause: float) -> None:
            # Said once, on stderr (stdout is one change a line): the wait goes on.
            if not told:
                told.append(error)
                write_line(sys.stderr, f"ndbtop: the management server does not answer yet "
                           f"({error}); trying again until the timeout ({timeout:g} s)")

        # Ctrl-C cancels the wait, and the hub stops before the loop closes (asyncio.run
        # before 3.11 would stop the loop at once, amid the hub's tasks). Outside the main
        # thread (a caller's worker) there is no signal to handle.
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        with contextlib.suppress(NotImplementedError, ValueError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, task.cancel)
        try:
            result = await wait_for(
                self.connectstring, target, chosen, timeout, clock=RealClock(),
                interval=self.interval, on_change=show,
                estimate=lambda node_id: hub.snapshot().start_eta(node_id),
                followed=lambda node_id: hub.snapshot().timeline(node_id), ready=self.ready,
                redo=lambda node_id: redo_reading(hub.snapshot(), node_id), since=since,
                on_retry=retrying)
            if result.reached and target is Target.STARTED:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._settled(chosen), SETTLE_S)
            return result
        except asyncio.CancelledError:
            return None
        finally:
            with contextlib.suppress(NotImplementedError, ValueError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)


def _run_backup_wait(args: argparse.Namespace) -> int:
    """0 when the backup completed, 1 when it aborted or the time ran out, 3 unreachable."""
    clashing = sorted({"status", "nodes", "interval"} & set(getattr(args, "given", ())))
    if clashing:
        raise UsageError(f"--backup-completed waits for a backup: --{clashing[0]} does not apply"
                         + (" (--backup-status-interval sets how often it asks)"
                            if clashing[0] == "interval" else ""))
    connectstring = cluster_connectstring(args)
    clock = RealClock()
    scale = BackupScale()

    def show(b: Backup) -> None:
        now = clock.wall()
        eta = scale.eta(b, now)
        line = (json_text({**b.as_json(now), **eta_json(eta)}) if args.json
                else progress_line(b, now, eta))
        write_line(sys.stdout, line)
        sys.stdout.flush()

    try:
        result = asyncio.run(
            wait_for_backup(connectstring, args.backup_completed, args.timeout, clock=clock,
                            report_every=args.backup_status_interval or args.timeout,
                            on_change=show, scale=scale)
        )
    except MgmError as exc:
        write_line(sys.stderr, f"ndbtop: error: {exc}")
        return UNREACHABLE
    if result.completed:
        return DONE
    if result.backup is None or result.backup.state not in ("aborted", "ended"):
        write_line(sys.stderr, f"ndbtop: timed out after {args.timeout:g} s waiting for "
                   f"backup {args.backup_completed}: {result.reason}")
    else:
        write_line(sys.stderr, f"ndbtop: backup {args.backup_completed} {result.reason}")
    return NOT_MET
