"""``ndbtop rolling-restart``: the guarded rolling restart from the command line.

A hub watches the cluster from the plan to the end (:mod:`ndbtop.cli.rolling_watch`): the
gate weighs its findings before each step and while a step runs, the plan's estimate reads
``restart_info`` from it when a SQL node is given, and the step in progress goes by its node
start estimate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from typing import TextIO

from ndbtop.actions.audit import AuditLog, audit_log
from ndbtop.actions.guards import assess
from ndbtop.actions.target import audit_fields, cluster_target
from ndbtop.cli.exits import DONE, INTERRUPTED, NOT_MET
from ndbtop.cli.prompt import ask, ask_phrase
from ndbtop.cli.rolling_json import (
    interrupted_event,
    not_started_event,
    plan_event,
    result_event,
    write,
)
from ndbtop.cli.rolling_plan import (
    PlanContext,
    dry_run_verdict,
    gate_lines,
    make_plan,
    plan_text,
)
from ndbtop.cli.rolling_run import RunOutput, Step
from ndbtop.cli.rolling_watch import gate_findings, node_estimates, settled, watching
from ndbtop.cli.sources import cluster_connectstring, ndbinfo_reader
from ndbtop.collect.hub import Hub
from ndbtop.collect.sql import NdbinfoReader
from ndbtop.errors import UsageError
from ndbtop.eta.rolling import RunTimes, plan_eta, restart_info_of
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.sources import SourceState
from ndbtop.ops.rolling import ABORTED_NOT_DRAINED, RollingRestart, RollingResult
from ndbtop.ops.rolling_gate import Gate, blind_spots, gate_for, interrupted_note
from ndbtop.sanitise import write_line


def run_rolling(args: argparse.Namespace) -> int:
    """0 when every node was restarted, 1 when the run was aborted or nodes were skipped.

    A run aborted on a problem (a timeout, a refusal, a guard, a gate that did not clear)
    ends with one line on stderr naming the nodes and why: for a node that did not come
    back, its last state and start phase.
    """
    connectstring = cluster_connectstring(args)
    if args.read_only and not args.dry_run:
        # Refused before a plan is shown or a question asked, as mgm refuses a change;
        # --dry-run still shows the plan and says a run is refused.
        write_line(sys.stderr, f"ndbtop: refused: read-only ({args.read_only_origin}); "
                   "nothing was sent")
        return NOT_MET
    ndbinfo = ndbinfo_reader(args)
    return asyncio.run(_run(args, connectstring, ndbinfo))


async def _run(args: argparse.Namespace, connectstring: ConnectString,
               ndbinfo: tuple[NdbinfoReader, str] | None) -> int:
    async with watching(connectstring, ndbinfo) as hub:
        context = await make_plan(args, connectstring)
        await settled(hub)
        return await _planned(args, connectstring, context, hub)


async def _planned(args: argparse.Namespace, connectstring: ConnectString,
                   context: PlanContext, hub: Hub) -> int:
    """Show the plan, then (unless it is a dry run, refused or not confirmed) run it."""
    out = sys.stdout
    # With --json, stdout carries only JSON Lines: the questions go to stderr.
    js = bool(args.json)
    plan, verdict = context.plan, context.verdict
    target = cluster_target(context.address,
                            context.config.generation if context.config else None)
    pace = ("one node per node group at a time, restarted together with -a (abort: "
            "their transactions are aborted, not drained)" if plan.aborts
            else "one node per node group at a time" if args.per_group
            else "one node at a time")
    snap = hub.snapshot()
    restart_info = restart_info_of(snap.live_ndbinfo())
    estimate = (plan_eta(plan.batches, time.time(), history=context.history,
                         restart_info=restart_info, initial=args.initial)
                if plan.batches else None)
    # What each step's audit record says the operator was told.
    warnings = (assess(plan.action(plan.batches[0]), context.nodes, context.config).warnings
                if plan.batches else ())
    gate = (gate_for(gate_findings(hub), 1, plan.batches[0], dict(plan.groups),
                     status=context.nodes) if plan.batches else None)
    blind = blind_spots(snap)
    events = snap.source("events")
    listening = events is not None and events.state is SourceState.CONNECTED
    log_file = snap.source("cluster-log")
    log_read = log_file is not None and log_file.state is SourceState.CONNECTED
    named = getattr(args, "context_info", None)
    name = named.name if named is not None else None
    if js:
        write(out, plan_event(plan, cluster=target, connectstring=str(connectstring),
                              pace=pace, takes=estimate, notes=plan.notes,
                              warnings=warnings, configuration=context.note,
                              verdict=verdict, gate=gate, not_judged=blind, context=name))
    if not plan.batches and verdict.ok and not plan.notes:
        if not js:
            write_line(out, f"no data node to restart at {f'{name}, ' if name else ''}{target}")
        return 0
    if not js:
        plan_text(out, context, target, str(connectstring), pace, estimate, warnings,
                  gate_lines(gate, blind, listening=listening, log_file=log_read), name)
    if plan.phrase is None and args.confirm is not None:
        raise UsageError("--confirm: this plan asks for no typed phrase (only --per-group "
                         "does)")
    out.flush()
    if not verdict.ok:
        if args.dry_run and not js:
            write_line(out, "verdict: refused (above); dry run, nothing sent")
        write_line(sys.stderr, f"ndbtop: rolling restart refused: {verdict.refusal}")
        return NOT_MET
    if not plan.batches:
        write_line(sys.stderr, "ndbtop: rolling restart: no data node left to restart "
                   f"({'; '.join(plan.notes)})")
        return NOT_MET
    if args.dry_run:
        return dry_run_verdict(args, plan, gate, text=not js)
    times = RunTimes(plan.batches, history=context.history, restart_info=restart_info,
                     initial=args.initial)
    return await _go(args, connectstring, context, hub, target,
                     RunOutput(args, plan, times, out, sys.stderr if js else out))


async def _go(args: argparse.Namespace, connectstring: ConnectString, context: PlanContext,
              hub: Hub, target: str, run: RunOutput) -> int:
    """Confirm, then run the plan; Ctrl-C stops it where it is."""
    plan, out, js = context.plan, run.out, run.js
    audit = audit_log(args.audit_log, getattr(args, "context_info", None))
    engine = RollingRestart(
        plan, connectstring, audit, decide=run.decide, report=run.report,
        node_timeout=args.node_timeout, config=context.config, confirmed=plan.phrase,
        findings=lambda: gate_findings(hub),
        decide_gate=run.decide_gate if run.interactive else None,
        gate_timeout=None if run.interactive else args.gate_wait)
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    question = f"start the rolling restart of the cluster at {target}? [y/N] "
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        if plan.phrase is not None:
            why = (ABORTED_NOT_DRAINED if plan.aborts
                   else f"context {plan.production} is production")
            refusal = await _typed(args, plan.phrase, run.asked, why)
            if refusal is not None:
                if js:
                    write(out, not_started_event(refusal))
                write_line(sys.stderr, f"ndbtop: rolling restart not started: {refusal}; "
                           "nothing was sent")
                return NOT_MET
        elif not args.yes and await ask(question, "yn", run.asked) != "y":
            if js:
                write(out, not_started_event("the start was not confirmed"))
            else:
                write_line(out, "not started")
            return NOT_MET
        with node_estimates(hub, run.times):
            result = await engine.run()
    except asyncio.CancelledError:
        generation = context.config.generation if context.config else None
        holding = engine.holding
        if js:
            write(out, interrupted_event(run.at.number, run.at.total, run.at.batch,
                                         holding.step if holding is not None else None))
        return _interrupted(run.at, audit, context.address, generation, holding)
    finally:
        with contextlib.suppress(NotImplementedError):
            loop.remove_signal_handler(signal.SIGINT)
    return _ended(result, int(time.monotonic() - run.started), out, js)


def _ended(result: RollingResult, total: int, out: TextIO, js: bool) -> int:
    """The last line (or event), and the one line on stderr of a run aborted on a
    problem."""
    if js:
        write(out, result_event(result, total))
    else:
        write_line(out, f"restarted: {' '.join(map(str, result.done)) or 'none'}"
                   + (f"; skipped: {' '.join(map(str, result.skipped))}" if result.skipped
                      else "")
                   + ("; ABORTED" if result.aborted else "") + f" ({total} s)")
    out.flush()
    problem = result.stopped_by
    if problem is not None:
        nodes = ("node " if len(problem.batch) == 1 else "nodes ") + " ".join(
            map(str, problem.batch))
        write_line(sys.stderr, f"ndbtop: rolling restart aborted at {nodes} "
                   f"({problem.kind}): {problem.message}")
    return DONE if not result.aborted and not result.skipped else NOT_MET


async def _typed(args: argparse.Namespace, phrase: str, asked: TextIO,
                 why: str = ABORTED_NOT_DRAINED) -> str | None:
    """Why the plan's phrase was not confirmed (None: it was), from ``--confirm`` or asked
    (``why`` says why it is asked): ``--yes`` never stands for it."""
    if args.confirm is not None:
        return None if args.confirm == phrase else (
            f"--confirm {args.confirm[:40]!r} is not the phrase this plan asks for, {phrase!r}")
    if args.yes or not sys.stdin.isatty():
        return f"{why}: confirm with --confirm '{phrase}' (--yes never skips it)"
    typed = await ask_phrase(f"{why}.\ntype '{phrase}' to start: ", asked)
    return None if typed == phrase else f"'{phrase}' was not typed"


def _interrupted(at: Step, audit: AuditLog, address: str, generation: int | None,
                 holding: Gate | None = None) -> int:
    """Ctrl-C: nothing more is sent; the audit log and stderr say where it stopped (and the
    gate that held it)."""
    note = interrupted_note(at.number, at.total, holding)
    audit.write(event="interrupted", **audit_fields(address, generation), message=note,
                restarting=list(at.batch))
    line = f"ndbtop: rolling restart {note}; nothing more was sent"
    if at.batch:
        nodes = ",".join(map(str, at.batch))
        line += (f"; node{'s' if len(at.batch) > 1 else ''} {nodes} may still be restarting "
                 f"(ndbtop wait --nodes {nodes})")
    sys.stderr.write("\n")
    write_line(sys.stderr, line)
    return INTERRUPTED
