"""Starting the live view for a real cluster, for the demo, or on a recording."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.collect.hub import Hub
from ndbtop.errors import FileError, NdbtopError
from ndbtop.record.reader import Recording
from ndbtop.record.replay import DAMAGE, ReplaySource
from ndbtop.tui.app import NdbtopApp

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
def _hangups(app: NdbtopApp) -> Iterator[None]:
    """While the view runs, SIGHUP and SIGTERM end it through :func:`hang_up`."""

    def handler(signum: int, frame: object) -> None:
        app.call_later(hang_up, app, signum)

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
