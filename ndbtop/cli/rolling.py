"""``ndbtop rolling-restart``: the guarded rolling restart from the command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from pathlib import Path

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.actions.target import cluster_target
from ndbtop.errors import UsageError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString, resolve_connectstring
from ndbtop.ops.rolling import (
    Decision,
    Problem,
    Progress,
    RollingPlan,
    RollingRestart,
    plan_rolling,
)
from ndbtop.ops.wait import describe


def run_rolling(args: argparse.Namespace) -> int:
    """0 when every node was restarted, 1 when the run was aborted or nodes were skipped.

    A run aborted on a problem (a timeout, a refusal, a guard) ends with one line
    on stderr naming the nodes and why: for a node that did not come back, its
    last state and start phase.
    """
    connectstring = resolve_connectstring(args.connectstring)
    return asyncio.run(_run(args, connectstring))


async def _plan(args: argparse.Namespace, connectstring: ConnectString) -> tuple[RollingPlan, str]:
    """The plan, and the management server it was made from (the one that answered)."""
    client = MgmClient(connectstring)
    try:
        address = str(await client.connect())
        nodes = await client.get_status(["NDB"])
    finally:
        await client.close()
    known = {n.node_id for n in nodes}
    if args.nodes:
        unknown = sorted(set(args.nodes) - known)
        if unknown:
            raise UsageError(f"not a data node of this cluster: {', '.join(map(str, unknown))}")
    plan = plan_rolling(nodes, per_group=args.per_group, only=args.nodes, initial=args.initial)
    return plan, address


async def _ask(question: str, choices: str) -> str:
    if not sys.stdin.isatty():
        return ""
    answer = await asyncio.to_thread(input, question)
    answer = answer.strip().lower()[:1]
    return answer if answer in choices else ""


async def _run(args: argparse.Namespace, connectstring: ConnectString) -> int:
    out = sys.stdout
    plan, address = await _plan(args, connectstring)
    target = cluster_target(address)
    if not plan.batches:
        out.write(f"no data node to restart at {target}\n")
        return 0
    out.write(f"plan for the cluster at {target} (connect string {connectstring}): "
              f"{len(plan.batches)} step(s), one at a time, waiting for STARTED:\n")
    for i, command in enumerate(plan.commands(), 1):
        out.write(f"  {i}. {command}\n")
    out.flush()
    if args.dry_run:
        return 0
    if args.read_only:
        sys.stderr.write(f"ndbtop: refused: read-only ({args.read_only_origin}); "
                         "nothing was sent\n")
        return 1
    question = f"start the rolling restart of the cluster at {target}? [y/N] "
    if not args.yes and await _ask(question, "yn") != "y":
        out.write("not started\n")
        return 1

    audit = AuditLog(Path(args.audit_log) if args.audit_log else default_audit_path())
    started = time.monotonic()
    step_started: dict[tuple[int, ...], float] = {}

    def report(p: Progress) -> None:
        index = plan.batches.index(p.batch) + 1
        if p.step == "restart":
            step_started[p.batch] = time.monotonic()
            out.write(f"[{index}/{len(plan.batches)}] {p.message}\n")
        elif p.step in ("waiting", "started"):
            for n in p.nodes:
                phase, _ = describe(n, None, time.time())
                extra = f" {phase}" if phase else ""
                if p.step == "started":
                    took = time.monotonic() - step_started.get(p.batch, started)
                    extra += f" (took {int(took)} s)"
                out.write(f"    node {n.node_id} {n.status}{extra}\n")
        elif p.step == "problem":
            out.write(f"    problem: {p.message}\n")
        out.flush()

    async def decide(problem: Problem) -> Decision:
        if args.yes:
            return Decision.ABORT
        answer = await _ask(f"{problem.kind}: {problem.message}\n[r]etry, [s]kip "
                            f"{' '.join(map(str, problem.batch))}, [a]bort? ", "rsa")
        return {"r": Decision.RETRY, "s": Decision.SKIP}.get(answer, Decision.ABORT)

    engine = RollingRestart(plan, connectstring, audit, decide=decide, report=report,
                            node_timeout=args.node_timeout)
    loop = asyncio.get_running_loop()
    prompts: set[asyncio.Task[None]] = set()

    def interrupted() -> None:
        if engine.paused:
            out.write("\nabort requested\n")
            engine.abort()
        else:
            out.write("\npausing after the current step (Ctrl-C again to abort)\n")
            engine.pause()
            task = loop.create_task(_resume_later())
            prompts.add(task)
            task.add_done_callback(prompts.discard)

    async def _resume_later() -> None:
        answer = await _ask("paused: [c]ontinue or [a]bort? ", "ca")
        if answer == "c":
            engine.resume()
        else:
            engine.abort()

    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGINT, interrupted)
    result = await engine.run()
    total = int(time.monotonic() - started)
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
    return 0 if not result.aborted and not result.skipped else 1
