"""``ndbtop record`` and ``ndbtop replay``: the flight recorder from the command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from pathlib import Path

from ndbtop.cli.exits import DONE, NOT_MET, UNREACHABLE
from ndbtop.cli.parser import MGM, OPTIONS, SCENARIO, SQLG
from ndbtop.cli.sources import (
    cluster_connectstring,
    host_reader,
    ndbinfo_reader,
    replication_setup,
    ssh_options,
)
from ndbtop.collect.hub import Hub
from ndbtop.demo.state import demo_state
from ndbtop.errors import FileError, UsageError
from ndbtop.model.clock import RealClock
from ndbtop.model.sources import SourceState
from ndbtop.record.background import BackgroundRecorder
from ndbtop.record.reader import Recording
from ndbtop.record.recorder import Recorder
from ndbtop.sanitise import write_line


def run_record(args: argparse.Namespace) -> int:
    """Record until Ctrl-C or ``--duration``; 0 once the file is closed, 3 when the
    management server never answered during the recording."""
    if args.keep < 0:
        raise UsageError("--keep must be 0 or more")
    given = getattr(args, "given", frozenset())
    if args.demo:
        cluster = sorted(given & commands_of_live_cluster())
        if cluster:
            raise UsageError(f"{option_names(cluster)} cannot apply with --demo")
    else:
        scenario = sorted(given & scenario_options())
        if scenario:
            raise UsageError(f"{option_names(scenario)} needs --demo")
    return asyncio.run(_record(args))


async def _record(args: argparse.Namespace) -> int:
    if not args.demo:
        return await _recording(args, None)
    # The simulated cluster's starts go to a state directory of the run's own.
    with demo_state() as state:
        return await _recording(args, state.history_dir)


async def _recording(args: argparse.Namespace, history_dir: Path | None) -> int:
    sim = None
    if args.demo and args.ssh:
        raise UsageError("--ssh reads real hosts: it does not apply to --demo")
    if args.demo:
        from ndbtop.cli.scenario import make_simulator
        from ndbtop.demo.hub import demo_hub

        sim = make_simulator(args)
        speed = sim.clock.speed
        sim.clock.set_speed(1.0)
        await sim.start(sql_port=None if args.no_sql else 0)
        hub = demo_hub(sim, args.interval, history_dir=history_dir,
                       backup_status_every=args.backup_status_interval)
        events = hub.events
        if events is not None:
            sim.speed_up_when(lambda: events.listening_levels is not None, speed)
        source = f"simulated {args.scenario} (seed {args.seed})"
    else:
        connectstring = cluster_connectstring(args)
        reader = ndbinfo_reader(args)
        hub = Hub(connectstring, RealClock(), args.interval, ndbinfo=reader, host=host_reader(args),
                  backup_status_every=args.backup_status_interval, ssh=ssh_options(args),
                  replication=replication_setup(args))
        source = str(connectstring) + (f", ndbinfo {reader[1]}" if reader else "")
    try:
        recorder = Recorder(
            Path(args.file), max_bytes=int(args.max_mb * 1024 * 1024), keep=args.keep, source=source
        )
    except OSError as exc:
        raise FileError(f"cannot write {args.file}: {exc.strerror}") from None
    await hub.start()
    began = time.monotonic()
    write_line(sys.stderr,
               f"recording {source} to {args.file} every {args.interval:g} s (Ctrl-C stops)")
    # Written in a worker thread: the sources go on while the disk syncs each snapshot.
    writer = BackgroundRecorder(recorder)
    answered = False
    last_error = None
    try:
        while args.duration is None or time.monotonic() - began < args.duration:
            await asyncio.sleep(args.interval)
            snapshot = hub.snapshot()
            mgm = snapshot.source("mgm")
            if mgm is not None:
                answered = answered or mgm.state is SourceState.CONNECTED
                last_error = mgm.error or last_error
            writer.write(snapshot)
            await writer.flush()
            if writer.error_text is not None:
                raise FileError(f"cannot write {args.file}: {writer.error_text}")
    except asyncio.CancelledError:
        pass
    finally:
        with contextlib.suppress(OSError):
            await writer.close()
        with contextlib.suppress(Exception):
            await hub.stop()
        if sim is not None:
            await sim.close()
        write_line(sys.stderr, f"recorded {recorder.snapshots} snapshots to {args.file}")
    if not answered:
        # Recorded all the same: a management server that comes back is recorded at once.
        write_line(sys.stderr, "ndbtop: error: the management server never answered: "
                   f"{last_error or 'no reply'}")
        return UNREACHABLE
    return DONE


def scenario_options() -> frozenset[str]:
    """The options of a simulated cluster (destinations)."""
    return frozenset(o.destination for o in OPTIONS if o.group == SCENARIO)


def commands_of_live_cluster() -> frozenset[str]:
    """The options of record that describe a real cluster (destinations), ``--context``
    included."""
    return frozenset(o.destination for o in OPTIONS if (o.group in (MGM, SQLG, "host")
                     and o.destination != "no_sql") or o.destination == "context")


def option_names(destinations: list[str]) -> str:
    """``--scenario, --seed`` for the destinations given."""
    names = {o.destination: o.name for o in OPTIONS}
    return ", ".join(names[d] for d in destinations)


def run_replay(args: argparse.Namespace) -> int:
    """Open the live view on a recording."""
    from ndbtop.record.reader import read_recording
    from ndbtop.tui.launch import run_replay_tui

    recording = read_recording(Path(args.file))
    if args.check:
        return check_recording(recording)
    status = run_replay_tui(recording, args)
    damage = recording.damage_report()
    if damage is not None:
        write_line(sys.stderr, f"ndbtop: {damage}")
    return status


def check_recording(recording: Recording) -> int:
    """Decode every snapshot; 0 when the recording is whole, 1 (saying where) when not."""
    problem = recording.damage_report()
    for i in range(len(recording)):
        try:
            recording.snapshot(i)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            at = time.strftime("%H:%M:%S", time.localtime(recording.wall(i)))
            problem = f"{recording.path}: snapshot {i + 1} ({at}) cannot be decoded ({exc})"
            break
    files = len(recording.segments)
    start, end = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))
                  for t in (recording.start, recording.end))
    write_line(sys.stdout, f"{recording.path}: {len(recording)} snapshots from {start} to "
               f"{end} in {files} file{'s' if files > 1 else ''}, "
               f"{len(recording.events())} events")
    if problem is not None:
        write_line(sys.stderr, f"ndbtop: {problem}")
        return NOT_MET
    return DONE
