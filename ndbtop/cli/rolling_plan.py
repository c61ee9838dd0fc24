"""``ndbtop rolling-restart``'s plan: made from the live cluster, written as text, and the
``--dry-run`` verdict (the rule ``mgm --dry-run`` follows: exit 1 when a run with these
options would send nothing now)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TextIO

from ndbtop.cli.exits import DONE, NOT_MET
from ndbtop.collect.history_store import HistoryStore, default_history_dir
from ndbtop.compat import SLOTS
from ndbtop.durations import duration
from ndbtop.errors import MgmError, UsageError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig
from ndbtop.model.config_decode import config_from_blob
from ndbtop.model.eta import Eta, EtaResult
from ndbtop.model.history import PastStart, cluster_key
from ndbtop.ops.preflight import Verdict, preflight
from ndbtop.ops.rolling import Gate, RollingPlan, configuration_note, plan_rolling
from ndbtop.ops.rolling_plan import due_nodes
from ndbtop.sanitise import write_line

EVENTS_FROM_NOW = ("the GCP, LCP and heartbeat warnings count from now: one sent before is "
                   "seen when it repeats")
"""What the gate cannot know of the time before ndbtop listened to the events."""
EVENTS_FROM_FILE = ("the GCP, LCP and heartbeat warnings count from the management server's "
                    "cluster log file, then from the events")
"""With the cluster log file read, the warnings sent before ndbtop listened count too."""


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
    due: tuple[int, ...] | None = None
    """The nodes of the plan still due to pick up the current configuration, when some of
    its nodes already run it."""


async def make_plan(args: argparse.Namespace, connectstring: ConnectString) -> PlanContext:
    """The plan, the management server it was made from (the one that answered), the
    pre-flight verdict, and which nodes it brings onto the current configuration (those
    first)."""
    client = MgmClient(connectstring)
    config: ClusterConfig | None = None
    note: str | None = None
    due: tuple[int, ...] | None = None
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
        pending = await running_older(client, nodes, config) if config is not None else None
        plan = plan_rolling(nodes, per_group=args.per_group, only=args.nodes,
                            initial=args.initial, config=config, skip=verdict.skipped,
                            due=pending)
        context = getattr(args, "context_info", None)
        if context is not None and context.production:
            plan = replace(plan, production=context.name)
        if config is not None and pending is not None:
            note = configuration_note(plan, config, pending)
            due = due_nodes(plan, pending)
    finally:
        await client.close()
    return PlanContext(plan, address, verdict, tuple(nodes), config, note,
                       start_history(connectstring, nodes), due)


def start_history(connectstring: ConnectString,
                  nodes: Sequence[NodeStatus]) -> tuple[PastStart, ...]:
    """The starts the live view kept for this cluster (the same key as it files them by:
    its management servers' addresses and its nodes); none when there is no such file."""
    name = ",".join(str(a) for a in connectstring.addresses)
    return HistoryStore(default_history_dir(), cluster_key(nodes, name)).load()


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


def plan_time(result: EtaResult) -> str:
    """``takes about 6m10s (3m05s–9m15s) · start history``, or ``no history: why``."""
    if not isinstance(result, Eta):
        return f"not estimated, no history: {result.reason}"
    return (f"about {duration(result.seconds)} ({duration(result.low)}–"
            f"{duration(result.high)}) · {', '.join(result.basis)}")


def plan_steps(context: PlanContext) -> list[str]:
    """The lines of the plan: the ``ndb_mgm`` command of each step, then the configuration
    the restart brings."""
    lines = [f"  {i}. {command}" for i, command in enumerate(context.plan.commands(), 1)]
    if context.note is not None:
        lines.append(f"configuration: {context.note}")
    if context.due:
        nodes = ",".join(map(str, context.due))
        lines.append(f"  (only the nodes due: --nodes {nodes})")
    return lines


def gate_lines(gate: Gate | None, blind: Sequence[str], *, listening: bool,
               log_file: bool = False) -> list[str]:
    """The gate as the plan shows it: the findings that would hold step 1 now, or that none
    does, and what it cannot judge (``listening``: the events are received; ``log_file``:
    the cluster log file was read, so warnings sent before count too)."""
    lines: list[str] = []
    if gate is not None and gate.held:
        lines.append(f"gate: step 1 would wait now for {len(gate.findings)} finding(s):")
        lines.extend(f"  {line}" for line in gate.lines())
    elif gate is not None:
        lines.append("gate: no finding holds step 1 now")
    lines.extend(f"gate: {why}" for why in blind)
    if listening:
        lines.append(f"gate: {EVENTS_FROM_FILE if log_file else EVENTS_FROM_NOW}")
    return lines


def plan_text(out: TextIO, context: PlanContext, target: str, connectstring: str, pace: str,
              estimate: EtaResult | None, warnings: Sequence[str],
              gate: Sequence[str], name: str | None = None) -> None:
    """The plan as text: the cluster (the context ``name``), its steps, what it takes, its
    notes and warnings, the verdict, the gate and the phrase it asks for."""
    plan = context.plan
    cluster = f"the cluster {name}" if name else "the cluster"
    write_line(out, f"plan for {cluster} at {target} (connect string {connectstring}): "
               f"{len(plan.batches)} step(s), {pace}, waiting for STARTED:")
    for line in plan_steps(context):
        write_line(out, line)
    if estimate is not None:
        write_line(out, f"takes: {plan_time(estimate)}")
    for note in plan.notes:
        write_line(out, f"  ({note})")
    for warning in warnings:
        write_line(out, f"  ! {warning}")
    write_line(out, context.verdict.text())
    for line in gate:
        write_line(out, line)
    if plan.phrase is not None:
        write_line(out, f"to confirm, type: {plan.phrase} (scripts: --confirm "
                   f"'{plan.phrase}'; --yes never skips it)")


def dry_run_verdict(args: argparse.Namespace, plan: RollingPlan, gate: Gate | None, *,
                    text: bool) -> int:
    """The last line of ``--dry-run`` (``text``: on stdout; with ``--json`` only the
    status and the line on stderr): what a run with these options would do now. Exit 1 when
    it would send nothing: refused by ``--read-only``, waiting for a phrase ``--confirm``
    did not give, or held at the gate before step 1 (the rule of ``mgm --dry-run``)."""
    out, err = sys.stdout, sys.stderr

    def say(line: str) -> None:
        if text:
            write_line(out, f"verdict: {line}; dry run, nothing sent")

    if args.read_only:
        say(f"refused: read-only ({args.read_only_origin})")
        write_line(err, f"ndbtop: would be refused: read-only ({args.read_only_origin})")
        return NOT_MET
    phrase = plan.phrase
    if phrase is not None and args.confirm != phrase:
        say(f"allowed once '{phrase}' is typed (--confirm)")
        write_line(err, f"ndbtop: would need '{phrase}' typed (--confirm)")
        return NOT_MET
    if gate is not None and gate.held:
        say("allowed, but step 1 would wait at the gate (above)")
        write_line(err, "ndbtop: step 1 would wait at the gate for "
                   + ", ".join(dict.fromkeys(f.id for f in gate.findings)))
        return NOT_MET
    say("allowed: a run with this --confirm starts it" if phrase is not None
        else "allowed: a run starts once answered yes (--yes)")
    return DONE
