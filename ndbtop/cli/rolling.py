"""``ndbtop rolling-restart``: the guarded rolling restart from the command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.actions.guards import assess
from ndbtop.actions.target import audit_fields, cluster_target
from ndbtop.cli.exits import DONE, INTERRUPTED, NOT_MET
from ndbtop.cli.prompt import ask, ask_phrase
from ndbtop.cli.rolling_json import (
    interrupted_event,
    not_started_event,
    plan_event,
    progress_event,
    result_event,
    write,
)
from ndbtop.cli.rolling_watch import node_estimates
from ndbtop.cli.sources import cluster_connectstring
from ndbtop.collect.history_store import HistoryStore, default_history_dir
from ndbtop.compat import SLOTS
from ndbtop.durations import duration
from ndbtop.errors import MgmError, UsageError
from ndbtop.eta.rolling import RunTimes, plan_eta
from ndbtop.eta.wording import eta_text
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig
from ndbtop.model.config_decode import config_from_blob
from ndbtop.model.eta import Eta, EtaResult
from ndbtop.model.history import PastStart, cluster_key
from ndbtop.ops.preflight import Verdict, preflight
from ndbtop.ops.rolling import (
    ABORTED_NOT_DRAINED,
    Decision,
    Problem,
    Progress,
    RollingPlan,
    RollingRestart,
    configuration_note,
    plan_rolling,
)
from ndbtop.ops.wait import describe


def run_rolling(args: argparse.Namespace) -> int:
    """0 when every node was restarted, 1 when the run was aborted or nodes were skipped.

    A run aborted on a problem (a timeout, a refusal, a guard) ends with one line
    on stderr naming the nodes and why: for a node that did not come back, its
    last state and start phase.
    """
    connectstring = cluster_connectstring(args)
    return asyncio.run(_run(args, connectstring))


@dataclass(frozen=True, **SLOTS)
class PlanContext:
    """The plan with what it was made from: the management server that answered, the live
    status, the configuration and the pre-flight verdict."""

    plan: RollingPlan
    address: str
    verdict: Verdict
    nodes: tuple[NodeStatus, ...]
    config: ClusterConfig | None
    note: str | None
    history: tuple[PastStart, ...] = ()
    """The cluster's start history (what ``ndbtop`` kept while it watched starts)."""


async def _plan(args: argparse.Namespace, connectstring: ConnectString) -> PlanContext:
    """The plan, the management server it was made from (the one that answered), the
    pre-flight verdict, and which nodes it brings onto the current configuration."""
    client = MgmClient(connectstring)
    config: ClusterConfig | None = None
    note: str | None = None
    try:
        address = str(await client.connect())
        nodes = await client.get_status()
        try:
            config = config_from_blob(await client.get_config_blob())
        except MgmError as exc:
            note = f"node groups of nodes not started are unknown: {exc}"
        known = {n.node_id for n in nodes if n.type == "NDB"}
        if args.nodes:
            unknown = sorted(set(args.nodes) - known)
            if unknown:
                raise UsageError(
                    f"not a data node of this cluster: {', '.join(map(str, unknown))}")
        verdict = preflight(nodes, config, force_degraded=args.force_degraded)
        plan = plan_rolling(nodes, per_group=args.per_group, only=args.nodes,
                            initial=args.initial, config=config, skip=verdict.skipped)
        if config is not None:
            note = configuration_note(plan, config, await running_older(client, nodes, config))
    finally:
        await client.close()
    return PlanContext(plan, address, verdict, tuple(nodes), config, note,
                       start_history(connectstring, nodes))


def start_history(connectstring: ConnectString,
                  nodes: Sequence[NodeStatus]) -> tuple[PastStart, ...]:
    """The starts the live view kept for this cluster (the same key as it files them by:
    its management servers' addresses and its nodes); none when there is no such file."""
    name = ",".join(str(a) for a in connectstring.addresses)
    return HistoryStore(default_history_dir(), cluster_key(nodes, name)).load()


def plan_time(result: EtaResult) -> str:
    """``takes about 6m10s (3m05s–9m15s) · start history``, or ``no history: why``."""
    if not isinstance(result, Eta):
        return f"not estimated, no history: {result.reason}"
    return (f"about {duration(result.seconds)} ({duration(result.low)}–"
            f"{duration(result.high)}) · {', '.join(result.basis)}")


def plan_steps(context: PlanContext) -> str:
    """The ``ndb_mgm`` command of each step, then the configuration the restart brings."""
    lines = [f"  {i}. {command}" for i, command in enumerate(context.plan.commands(), 1)]
    if context.note is not None:
        lines.append(f"configuration: {context.note}")
    return "\n".join(lines) + "\n"


def _plan_text(out: TextIO, context: PlanContext, target: str, connectstring: str, pace: str,
               estimate: EtaResult | None, warnings: Sequence[str]) -> None:
    """The plan as text: its steps, what it takes, its notes and warnings, the verdict and
    the phrase it asks for."""
    plan = context.plan
    out.write(f"plan for the cluster at {target} (connect string {connectstring}): "
              f"{len(plan.batches)} step(s), {pace}, waiting for STARTED:\n")
    out.write(plan_steps(context))
    if estimate is not None:
        out.write(f"takes: {plan_time(estimate)}\n")
    for note in plan.notes:
        out.write(f"  ({note})\n")
    for warning in warnings:
        out.write(f"  ! {warning}\n")
    out.write(context.verdict.text() + "\n")
    if plan.phrase is not None:
        out.write(f"to confirm, type: {plan.phrase} (scripts: --confirm '{plan.phrase}'; "
                  "--yes never skips it)\n")


async def running_older(client: MgmClient, nodes: Sequence[NodeStatus],
                        config: ClusterConfig) -> dict[int, bool | None]:
    """Whether each data node runs an older configuration than the management server's,
    asking the server for the one each started node runs (``from_node``)."""
    out: dict[int, bool | None] = {}
    for n in nodes:
        if n.type != "NDB":
            continue
        if n.status not in ("STARTED", "SINGLE USER MODE"):
            out[n.node_id] = False
            continue
        try:
            running = config_from_blob(await client.get_config_blob(n.node_id))
        except MgmError:
            out[n.node_id] = None
            continue
        out[n.node_id] = running.generation < config.generation
    return out


async def _run(args: argparse.Namespace, connectstring: ConnectString) -> int:
    out = sys.stdout
    # With --json, stdout carries only JSON Lines: the questions go to stderr.
    js = bool(args.json)
    asked = sys.stderr if js else sys.stdout
    context = await _plan(args, connectstring)
    plan, address, verdict = context.plan, context.address, context.verdict
    target = cluster_target(address, context.config.generation if context.config else None)
    pace = ("one node per node group at a time, restarted together with -a (abort: "
            "their transactions are aborted, not drained)" if plan.aborts
            else "one node per node group at a time" if args.per_group
            else "one node at a time")
    estimate = (plan_eta(plan.batches, time.time(), history=context.history,
                         initial=args.initial) if plan.batches else None)
    # What each step's audit record says the operator was told.
    warnings = (assess(plan.action(plan.batches[0]), context.nodes, context.config).warnings
                if plan.batches else ())
    if js:
        write(out, plan_event(plan, cluster=target, connectstring=str(connectstring),
                              pace=pace, takes=estimate, notes=plan.notes,
                              warnings=warnings, configuration=context.note,
                              verdict=verdict))
    if not plan.batches and verdict.ok and not plan.notes:
        if not js:
            out.write(f"no data node to restart at {target}\n")
        return 0
    if not js:
        _plan_text(out, context, target, str(connectstring), pace, estimate, warnings)
    if plan.phrase is None and args.confirm is not None:
        raise UsageError("--confirm: this plan asks for no typed phrase (only --per-group "
                         "does)")
    out.flush()
    if not verdict.ok:
        sys.stderr.write(f"ndbtop: rolling restart refused: {verdict.refusal}\n")
        return NOT_MET
    if not plan.batches:
        sys.stderr.write("ndbtop: rolling restart: no data node left to restart "
                         f"({'; '.join(plan.notes)})\n")
        return NOT_MET
    if args.dry_run:
        return 0
    if args.read_only:
        sys.stderr.write(f"ndbtop: refused: read-only ({args.read_only_origin}); "
                         "nothing was sent\n")
        return 1
    audit = AuditLog(Path(args.audit_log) if args.audit_log else default_audit_path())
    started = time.monotonic()
    step_started: dict[tuple[int, ...], float] = {}
    at = Step(len(plan.batches))
    times = RunTimes(plan.batches, history=context.history, initial=args.initial)

    def progress(p: Progress, took: float | None = None) -> None:
        index = plan.batches.index(p.batch) + 1
        found = times.estimate(time.monotonic(), time.time())
        write(out, progress_event(p, index, len(plan.batches), found, took))

    def estimate(*, step_only: bool = False) -> None:
        found = times.estimate(time.monotonic(), time.time())
        if found.current is not None:
            out.write(f"    this step: {eta_text(found.current)}\n")
        if not step_only and (at.number < len(plan.batches) or found.current is not None):
            out.write(f"    rolling restart: {eta_text(found.run)}\n")

    def report(p: Progress) -> None:
        index = plan.batches.index(p.batch) + 1
        if p.step == "restart":
            at.number, at.batch = index, p.batch
            step_started[p.batch] = time.monotonic()
            times.sent(p.batch, time.monotonic())
        elif p.step == "started":
            at.batch = ()
            times.started(p.batch, time.monotonic())
        if js:
            took = time.monotonic() - step_started.get(p.batch, started)
            progress(p, took if p.step == "started" else None)
            return
        if p.step == "restart":
            out.write(f"[{index}/{len(plan.batches)}] {p.message}\n")
            estimate()
        elif p.step in ("waiting", "started"):
            for n in p.nodes:
                phase, _ = describe(n, None, time.time())
                extra = f" {phase}" if phase else ""
                if p.step == "started":
                    took = time.monotonic() - step_started.get(p.batch, started)
                    extra += f" (took {int(took)} s)"
                out.write(f"    node {n.node_id} {n.status}{extra}\n")
            # While a node starts, its start estimate may come to stand for the step.
            if p.step == "started" or any(n.status != "STARTED" for n in p.nodes):
                estimate(step_only=p.step == "waiting")
        elif p.step == "problem":
            out.write(f"    problem: {p.message}\n")
        out.flush()

    async def decide(problem: Problem) -> Decision:
        if args.yes:
            return Decision.ABORT
        start = (f"s[t]art {' '.join(map(str, problem.not_started))}, "
                 if problem.not_started else "")
        answer = await ask(f"{problem.kind}: {problem.message}\n[r]etry, [s]kip "
                           f"{' '.join(map(str, problem.batch))}, {start}[a]bort? ",
                           "rsta" if start else "rsa", asked)
        decision = {"r": Decision.RETRY, "s": Decision.SKIP,
                    "t": Decision.START}.get(answer, Decision.ABORT)
        if decision is Decision.SKIP:
            times.skip(problem.batch)
        return decision

    engine = RollingRestart(plan, connectstring, audit, decide=decide, report=report,
                            node_timeout=args.node_timeout, config=context.config,
                            confirmed=plan.phrase)
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    question = f"start the rolling restart of the cluster at {target}? [y/N] "
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        if plan.phrase is not None:
            refusal = await _typed(args, plan.phrase, asked)
            if refusal is not None:
                if js:
                    write(out, not_started_event(refusal))
                sys.stderr.write(f"ndbtop: rolling restart not started: {refusal}; "
                                 "nothing was sent\n")
                return NOT_MET
        elif not args.yes and await ask(question, "yn", asked) != "y":
            if js:
                write(out, not_started_event("the start was not confirmed"))
            else:
                out.write("not started\n")
            return NOT_MET
        async with node_estimates(connectstring, times):
            result = await engine.run()
    except asyncio.CancelledError:
        generation = context.config.generation if context.config else None
        if js:
            write(out, interrupted_event(at.number, at.total, at.batch))
        return _interrupted(at, audit, address, generation)
    finally:
        with contextlib.suppress(NotImplementedError):
            loop.remove_signal_handler(signal.SIGINT)
    total = int(time.monotonic() - started)
    if js:
        write(out, result_event(result, total))
    else:
            out.write(f"restarted: {' '.join(map(str, result.done)) or 'none'}"
                  + (f"; skipped: {' '.join(map(str, result.skipped))}" if result.skipped else "")
                  + ("; ABORTED" if result.aborted else "") + f" ({total} s)\n")
    out.flush()
    problem = result.stopped_by
    if problem is not None:
        nodes = ("node " if len(problem.batch) == 1 else "nodes ") + " ".join(
            map(str, problem.batch))
        sys.stderr.write(f"ndbtop: rolling restart aborted at {nodes} ({problem.kind}): "
                         f"{problem.message}\n")
    return DONE if not result.aborted and not result.skipped else NOT_MET


async def _typed(args: argparse.Namespace, phrase: str, asked: TextIO) -> str | None:
    """Why the plan's phrase was not confirmed (None: it was), from ``--confirm`` or asked:
    ``--yes`` never stands for it."""
    if args.confirm is not None:
        return None if args.confirm == phrase else (
            f"--confirm {args.confirm[:40]!r} is not the phrase this plan asks for, {phrase!r}")
    if args.yes or not sys.stdin.isatty():
        return f"{ABORTED_NOT_DRAINED}: confirm with --confirm '{phrase}' (--yes never skips it)"
    typed = await ask_phrase(f"{ABORTED_NOT_DRAINED}.\ntype '{phrase}' to start: ", asked)
    return None if typed == phrase else f"'{phrase}' was not typed"


@dataclass
class Step:
    """Where a rolling restart stands: step ``number`` of ``total`` (0 before the first),
    and the nodes of a restart sent and not yet seen STARTED again."""

    total: int
    number: int = 0
    batch: tuple[int, ...] = ()


def _interrupted(at: Step, audit: AuditLog, address: str, generation: int | None) -> int:
    """Ctrl-C: nothing more is sent; the audit log and stderr say where it stopped."""
    note = f"interrupted at step {at.number} of {at.total}"
    audit.write(event="interrupted", **audit_fields(address, generation), message=note,
                restarting=list(at.batch))
    line = f"\nndbtop: rolling restart {note}; nothing more was sent"
    if at.batch:
        nodes = ",".join(map(str, at.batch))
        line += (f"; node{'s' if len(at.batch) > 1 else ''} {nodes} may still be restarting "
                 f"(ndbtop wait --nodes {nodes})")
    sys.stderr.write(line + "\n")
    return INTERRUPTED
