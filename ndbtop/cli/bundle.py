"""``ndbtop report --bundle FILE``: the triage bundle from the command line."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ndbtop.actions.audit import default_audit_path
from ndbtop.cli.sources import (
    cluster_connectstring,
    host_reader,
    ndbinfo_reader,
    replication_setup,
    ssh_options,
)
from ndbtop.collect.hub import Hub
from ndbtop.errors import FileError
from ndbtop.files import check_writable_dir
from ndbtop.model.clock import RealClock
from ndbtop.report.bundle import collect_bundle
from ndbtop.sanitise import write_line


def run_bundle(args: argparse.Namespace) -> int:
    """Collect and write the bundle; exit 2 when the management server cannot be reached."""
    connectstring = cluster_connectstring(args)
    clock = RealClock()
    hub = Hub(
        connectstring,
        clock,
        args.interval,
        ndbinfo=ndbinfo_reader(args),
        host=host_reader(args),
        ssh=ssh_options(args),
        events=False,
        replication=replication_setup(args),
    )
    audit = Path(args.audit_log) if args.audit_log else default_audit_path()
    context = getattr(args, "context_info", None)
    recording = Path(args.recording) if args.recording else None
    if recording is not None and not recording.is_file():
        what = "not a regular file" if recording.exists() else "no such file"
        raise FileError(f"cannot read recording {recording}: {what}")
    if audit.exists() and not audit.is_file():
        raise FileError(f"cannot read the audit log {audit}: not a regular file")
    try:
        check_writable_dir(Path(args.bundle))
    except OSError as exc:
        raise FileError(f"cannot write {args.bundle}: {exc.strerror}") from None

    async def collect() -> None:
        try:
            bundle = await collect_bundle(
                hub,
                clock,
                events_seconds=args.events_seconds,
                recording=recording,
                minutes=args.minutes,
                audit_log=audit,
                progress=lambda text: write_line(sys.stderr, f"ndbtop: {text}"),
                context=context.name if context is not None else None,
            )
        finally:
            await hub.stop()
        try:
            bundle.write(Path(args.bundle))
        except OSError as exc:
            raise FileError(f"cannot write {args.bundle}: {exc.strerror}") from None
        write_line(sys.stderr, f"ndbtop: wrote {args.bundle} ({len(bundle.files) + 1} files)")

    asyncio.run(collect())
    return 0
