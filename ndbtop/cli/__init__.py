"""``ndbtop``: the command-line entry point.

Every error a user can cause ends in one line on stderr and the exit status of
its kind (:mod:`ndbtop.cli.exits`); Ctrl-C ends with status 130.
Everything printed goes through :class:`ndbtop.sanitise.SafeStream`: no text
quoted from a server or a file reaches the terminal as a control sequence.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from ndbtop.cli.exits import INTERNAL, INTERRUPTED, PIPE_CLOSED, status_of
from ndbtop.cli.parser import build_parser
from ndbtop.cli.proctitle import hide_password
from ndbtop.errors import NdbtopError
from ndbtop.sanitise import SafeStream, write_line


def main(argv: Sequence[str] | None = None) -> int:
    """Run ndbtop with ``argv`` (default: the process arguments); returns the exit status."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)  # type: ignore[assignment]
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None:
        hide_password(getattr(args, "mysql_password", None))
    try:
        if hasattr(args, "context") and not getattr(args, "demo", False):
            # A recording of the simulator reaches no cluster: record refuses --context
            # with --demo, and $NDBTOP_CONTEXT does not apply to it.
            from ndbtop.cli.context_args import apply_context

            apply_context(args)
        if hasattr(args, "read_only") and args.command != "replay":
            from ndbtop.cli.sources import read_only_origin

            args.read_only_origin = read_only_origin(args)
            args.read_only = args.read_only_origin is not None
        status = _dispatch(args)
        # What is still buffered goes now, where a closed pipe is caught below.
        sys.stdout.flush()
        return status
    except NdbtopError as exc:
        if getattr(args, "command", None) == "check":
            # A monitoring plugin's error is UNKNOWN, on stdout: a context that cannot be
            # used too (its exit status 2 would say CRITICAL).
            from ndbtop.cli.check import unknown
            from ndbtop.cli.context_args import context_name

            return unknown(str(exc), context_name(args))
        write_line(sys.stderr, f"ndbtop: error: {exc}")
        return status_of(exc)
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:
        # The reader of the output went away: nothing more to say, and nothing left to
        # flush into the closed pipe at exit.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.__stdout__.fileno())
        return PIPE_CLOSED
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        write_line(sys.stderr, f"ndbtop: internal error: {type(exc).__name__}: {exc} "
                   "(run with --debug for details)")
        return INTERNAL


def _dispatch(args: object) -> int:
    command = getattr(args, "command", None)
    if command == "demo":
        from ndbtop.cli.demo import run_demo

        return run_demo(args)
    if command == "wait":
        from ndbtop.cli.wait import run_wait

        return run_wait(args)
    if command == "rolling-restart":
        from ndbtop.cli.rolling import run_rolling

        return run_rolling(args)
    if command == "mgm":
        from ndbtop.cli.mgm_run import run_mgm

        return run_mgm(args)
    if command == "record":
        from ndbtop.cli.record import run_record

        return run_record(args)
    if command == "replay":
        from ndbtop.cli.record import run_replay

        return run_replay(args)
    if command == "report":
        from ndbtop.cli.bundle import run_bundle

        return run_bundle(args)
    if command == "export":
        from ndbtop.cli.export import run_export

        return run_export(args)
    if command == "check":
        from ndbtop.cli.check import run_check

        return run_check(args)
    if command == "config":
        from ndbtop.cli.config import run_config

        return run_config(args)
    if command == "sim":
        from ndbtop.cli.sim import run_sim

        return run_sim(args)
    if command == "contexts":
        from ndbtop.cli.contexts import run_contexts

        return run_contexts(args)
    if command == "fleet":
        from ndbtop.cli.fleet import run_fleet

        return run_fleet(args)
    if command == "completion":
        from ndbtop.cli.completion import run_completion

        return run_completion(args)
    if command == "man":
        from ndbtop.cli.manpage import run_man

        return run_man(args)
    from ndbtop.cli.monitor import run_monitor

    return run_monitor(args)
