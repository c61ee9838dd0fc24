"""Starting the live view for a real cluster, for the demo, or on a recording; and the
session that goes between the fleet overview and the clusters opened from it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.collect.hub import Hub
from ndbtop.errors import FileError, NdbtopError
from ndbtop.fleet.watch import Fleet
from ndbtop.record.reader import Recording
from ndbtop.record.replay import DAMAGE, ReplaySource
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.context_label import ContextLabel
from ndbtop.tui.fleet import BACK, FleetApp
from ndbtop.tui.source import SnapshotSource

THEMES = {
    "dark": "textual-dark",
    "light": "textual-light",
    "ansi": "ansi-dark",
    "ansi-light": "ansi-light",
}


def _prepare(args: argparse.Namespace) -> tuple[AuditLog, str]:
    if getattr(args, "no_color", False):
        os.environ["NO_COLOR"] = "1"
    audit_log = getattr(args, "audit_log", None)
    audit = AuditLog(Path(audit_log) if audit_log else default_audit_path())
    return audit, THEMES.get(getattr(args, "theme", "dark") or "dark", "textual-dark")


def settle_memory() -> None:
    """Make the garbage collector cheap for a long-running view.

    Everything imported so far lives as long as the process: frozen, the collector
    never walks it again. Every refresh allocates thousands of short-lived objects;
    a higher first threshold collects them ten times less often. Cycles are still
    collected, a few seconds later rather than at once.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 10)


HANGUPS = (signal.SIGHUP, signal.SIGTERM)
"""The ways out of the live view that cannot ask: the terminal went away (a dropped SSH
session) or ndbtop was told to stop."""


def hang_up(app: NdbtopApp, signum: int) -> None:
    """Leave the live view at once, after SIGHUP or SIGTERM: no question can be asked.

    A rolling restart started from the view sends nothing more, and the audit log says
    where it stopped, as when ``q`` leaves it; a cluster log level ndbtop raised stays
    raised, and the lines printed on exit say how to restore it. Exits 128 + ``signum``.
    """
    stopped = app.flow._rolling_screen()
    if stopped is not None:
        try:
            note = stopped.interrupt()
        except NdbtopError as exc:
            app.notes_on_exit.append(f"rolling restart: {exc}")
        else:
            app.notes_on_exit.append(f"rolling restart {note}")
    raised = app.statistics_raised_from
    if raised is not None and not app.read_only:
        app.notes_on_exit.append(
            f"the cluster log's STATISTICS level is still 15: ALL CLUSTERLOG "
            f"STATISTICS={raised} in ndb_mgm restores it")
    app.exit(return_code=128 + signum)


@contextlib.contextmanager
def _hangups(app: NdbtopApp | FleetApp) -> Iterator[None]:
    """While the view runs, SIGHUP and SIGTERM end it through :func:`hang_up` (the fleet
    overview, which runs nothing, ends at once)."""

    def handler(signum: int, frame: object) -> None:
        if isinstance(app, NdbtopApp):
            app.call_later(hang_up, app, signum)
        else:
            app.call_later(app.exit, None, 128 + signum)

    previous = {s: signal.getsignal(s) for s in HANGUPS}
    for s in HANGUPS:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _run(app: NdbtopApp) -> int:
    settle_memory()
    with _hangups(app):
        status = app.run()
    return _ended(app, status)


def _ended(app: NdbtopApp, status: int | None) -> int:
    for line in app.notes_on_exit:
        sys.stderr.write(f"ndbtop: {line}\n")
    for path in app.recordings:
        sys.stderr.write(f"ndbtop: recording written to {path}\n")
    return finished(app, status)


def finished(app: NdbtopApp, status: int | None) -> int:
    """The exit status of a live view that ended: an internal error is one line naming
    its crash report, and status 70."""
    if app.crash is not None:
        where = f"; crash report: {app.crash_report}" if app.crash_report else ""
        sys.stderr.write(
            f"ndbtop: internal error in the live view: {type(app.crash).__name__}{where}\n"
        )
        return 70
    return status or app.return_code or 0


def run_tui(hub: Hub, args: argparse.Namespace) -> int:
    """The live view of a real cluster; returns the exit status."""
    audit, theme = _prepare(args)

    async def start() -> Hub:
        return hub

    app = NdbtopApp(start, read_only=args.read_only, audit=audit, theme=theme)
    return _run(app)


def run_simulated_tui(
    start: Callable[[], Awaitable[Hub]],
    stop: Callable[[], Awaitable[None]],
    args: argparse.Namespace,
    simulated: str,
) -> int:
    """The live view of a simulated cluster that ``start`` starts and ``stop`` stops;
    ``simulated`` names it in the header (scenario and speed)."""
    audit, theme = _prepare(args)
    app = NdbtopApp(
        start,
        stop=stop,
        read_only=args.read_only,
        audit=audit,
        simulated=simulated,
        theme=theme,
    )
    return _run(app)


def run_replay_tui(recording: Recording, args: argparse.Namespace) -> int:
    """The live view on a recording, read-only, starting at ``args.speed``."""
    audit, theme = _prepare(args)
    try:
        source = ReplaySource(recording)
    except DAMAGE as exc:
        raise FileError(f"{recording.path}: damaged recording ({exc})") from None
    source.speed = getattr(args, "speed", 1.0) or 1.0

    async def start() -> ReplaySource:
        return source

    app = NdbtopApp(start, replay=True, audit=audit, theme=theme)
    return _run(app)


@dataclass
class ClusterView:
    """What the live view of one context needs: how to start and stop its sources, whether
    it may act, its audit log and its label."""

    start: Callable[[], Awaitable[SnapshotSource]]
    audit: AuditLog
    label: ContextLabel
    read_only: bool = False
    stop: Callable[[], Awaitable[None]] | None = None
    simulated: str | None = None


OpenCluster = Callable[[str], Awaitable[ClusterView]]
"""Builds the live view of the context named (raising :class:`NdbtopError` with one line
when it cannot: a password command that failed, a login path missing...)."""


def run_session(
    args: argparse.Namespace,
    open_cluster: OpenCluster,
    make_fleet: Callable[[], Fleet],
    *,
    first: ClusterView | None = None,
    setup: Callable[[], Awaitable[None]] | None = None,
    teardown: Callable[[], Awaitable[None]] | None = None,
    simulated: str | None = None,
) -> int:
    """The live view of ``first`` (or, without it, the fleet overview), going between
    them: ``F`` in a cluster's view shows the overview, Enter there opens a cluster (its
    sources start; the previous cluster's stopped), Escape goes back. The overview's
    hubs start when it is first shown and run until the end. ``setup`` runs first (the
    demo starts its simulators), ``teardown`` last. Returns the exit status."""
    _, theme = _prepare(args)
    settle_memory()
    return asyncio.run(_session(open_cluster, make_fleet, first, setup, teardown, theme,
                                simulated))


async def _run_app(app: NdbtopApp | FleetApp) -> Any:
    return await app.run_async()


async def _session(open_cluster: OpenCluster, make_fleet: Callable[[], Fleet],
                   first: ClusterView | None, setup: Callable[[], Awaitable[None]] | None,
                   teardown: Callable[[], Awaitable[None]] | None, theme: str,
                   simulated: str | None,
                   run: Callable[[NdbtopApp | FleetApp], Awaitable[Any]] = _run_app) -> int:
    """The session's loop (``run`` runs one app to its end: a test drives it instead)."""
    fleet: Fleet | None = None
    shown: list[Any] = [None]
    view, current, note = first, (first.label.name if first else None), None
    # The last cluster whose view opened: Escape goes back to it after one that failed.
    opened = current
    try:
        if setup is not None:
            await setup()
        while True:
            if current is not None and view is None:
                try:
                    view = await open_cluster(current)
                except NdbtopError as exc:
                    note = f"cannot open {current}: {exc}"
                    current = opened if opened != current else None
            if view is not None:
                opened = current
                app = NdbtopApp(view.start, stop=view.stop, read_only=view.read_only,
                                audit=view.audit, theme=theme, context=view.label,
                                fleet=True, simulated=view.simulated)
                with _hangups(app):
                    status = await run(app)
                view = None
                if app.crash is not None or not app.to_fleet:
                    return _ended(app, status)
                _ended(app, status)
            if fleet is None:
                fleet = make_fleet()
                fleet.add_listener(lambda: shown[0] is not None and shown[0].changed())
                await fleet.start()
            overview = FleetApp(fleet, back=current, note=note, theme=theme,
                                simulated=simulated)
            shown[0], note = overview, None
            with _hangups(overview):
                chosen = await run(overview)
            shown[0] = None
            if overview.crash is not None:
                return finished(overview, None)  # type: ignore[arg-type]
            if overview.return_code:
                return overview.return_code
            if chosen is None:
                return 0
            if chosen != BACK:
                current = chosen
    finally:
        if fleet is not None:
            await fleet.stop()
        if teardown is not None:
            await teardown()
