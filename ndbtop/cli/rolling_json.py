"""``ndbtop rolling-restart --json``: one JSON object per line for each event of the run.

The events, in order: ``plan`` (the steps, what the run takes, the pre-flight verdict,
the findings that would hold step 1 now); for each step ``sent``, ``waiting`` (a node's
state changed), ``started`` and ``problem``, and for the gate ``gate`` (findings hold the
step: the run waits), ``gate cleared``, ``gate skipped`` and ``gate ahead`` (seen while the
step before runs), each with the run's ``eta`` (or null and ``eta_missing``) and the step's
``step_eta``; then one of ``done``, ``aborted``, ``not started`` or ``interrupted``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, TextIO

from ndbtop.eta.rolling import RollingEta
from ndbtop.model.eta import EtaMissing, EtaResult, eta_json
from ndbtop.ops.preflight import Verdict
from ndbtop.ops.rolling import Gate, Progress, RollingPlan, RollingResult
from ndbtop.ops.wait import describe
from ndbtop.report.findings import finding_json
from ndbtop.sanitise import json_text

EVENTS = {"restart": "sent", "waiting": "waiting", "started": "started", "problem": "problem",
          "gate": "gate", "gate cleared": "gate cleared", "gate skipped": "gate skipped",
          "gate ahead": "gate ahead"}
"""The event each kind of the engine's progress is written as."""


def write(out: TextIO, event: dict[str, Any]) -> None:
    """``event`` as one line of JSON (allow_nan=False, by json_text), flushed at once."""
    out.write(json_text(event) + "\n")
    out.flush()


def plan_event(plan: RollingPlan, *, cluster: str, connectstring: str, pace: str,
               takes: EtaResult | None, notes: Sequence[str], warnings: Sequence[str],
               configuration: str | None, verdict: Verdict, gate: Gate | None = None,
               not_judged: Sequence[str] = (), context: str | None = None) -> dict[str, Any]:
    """The plan: the context (null without one), its steps (the nodes of each, the
    ``ndb_mgm`` command), what it takes (``takes``: None when there is no step), whether it
    may begin, and the gate of step 1 now (``gate``: null without a step; ``not_judged``:
    what the gate cannot see)."""
    return {
        "event": "plan",
        "context": context,
        "cluster": cluster,
        "connectstring": connectstring,
        "pace": pace,
        "steps": [list(batch) for batch in plan.batches],
        "commands": list(plan.commands()),
        "takes": eta_json(takes if takes is not None else EtaMissing("no step to take")),
        "notes": list(notes),
        "warnings": list(warnings),
        "configuration": configuration,
        "phrase": plan.phrase,
        "verdict": {
            "ok": verdict.ok,
            "refusal": verdict.refusal,
            "degraded": list(verdict.degraded),
            "skipped": [{"node": node, "why": why} for node, why in verdict.skipped],
        },
        "gate": None if gate is None else gate_json(gate),
        "not_judged": list(not_judged),
    }


def gate_json(gate: Gate) -> dict[str, Any]:
    """What holds a step: ``held``, the step, its nodes, and each finding with why it holds
    the step."""
    return {
        "held": gate.held,
        "step": gate.step,
        "nodes": list(gate.batch),
        "findings": [{**finding_json(f), "holds_because": why}
                     for f, why in zip(gate.findings, gate.reasons)],
    }


def progress_event(p: Progress, index: int, total: int, found: RollingEta,
                   took: float | None = None) -> dict[str, Any]:
    """One observation of step ``index`` of ``total``, with the run's estimate and the
    step's (``step_eta`` null when no step is in progress)."""
    event: dict[str, Any] = {
        "event": EVENTS[p.step],
        "step": index,
        "of": total,
        "nodes": list(p.batch),
        "message": p.message,
    }
    if p.nodes:
        now = time.time()
        event["states"] = [{"node": n.node_id, "status": n.status,
                            "phase": describe(n, None, now)[0] or None} for n in p.nodes]
    if p.gate is not None:
        event["gate"] = gate_json(p.gate)
    if took is not None:
        event["took"] = round(took)
    event.update(eta_json(found.run))
    event["step_eta"] = None if found.current is None else eta_json(found.current)
    return event


def result_event(result: RollingResult, seconds: float) -> dict[str, Any]:
    """How the run ended: ``done`` (every step ran; some may have been skipped) or
    ``aborted``, with the problem it was aborted on."""
    problem = result.stopped_by
    return {
        "event": "aborted" if result.aborted else "done",
        "restarted": list(result.done),
        "skipped": list(result.skipped),
        "seconds": round(seconds),
        "stopped_by": None if problem is None else {
            "nodes": list(problem.batch), "kind": problem.kind, "message": problem.message},
    }


def not_started_event(why: str) -> dict[str, Any]:
    """Nothing was sent: the start was not confirmed."""
    return {"event": "not started", "restarted": [], "why": why}


def interrupted_event(step: int, total: int, restarting: Sequence[int],
                      held_at_gate: int | None = None) -> dict[str, Any]:
    """Ctrl-C at step ``step``: nothing more is sent; ``restarting`` may still be;
    ``held_at_gate``: the step whose gate held the run then."""
    out: dict[str, Any] = {"event": "interrupted", "step": step, "of": total,
                           "restarting": list(restarting)}
    if held_at_gate is not None:
        out["held_at_gate"] = held_at_gate
    return out
