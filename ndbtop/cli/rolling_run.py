"""``ndbtop rolling-restart`` while it runs: the lines (or JSON events) of its progress, the
estimates, and its questions (a problem: retry, skip, abort; a gate: wait, skip the gate,
abort).

A question is asked only on a terminal, without ``--json`` and ``--yes``
(:attr:`RunOutput.interactive`). Otherwise a problem aborts the run, and a gate is waited
for up to ``--gate-wait`` seconds, then aborts it.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from ndbtop.cli.prompt import ask, ask_phrase
from ndbtop.cli.rolling_json import progress_event, write
from ndbtop.eta.rolling import RunTimes
from ndbtop.eta.wording import eta_text
from ndbtop.ops.rolling import GATE_PHRASE, Decision, Gate, Problem, Progress, RollingPlan
from ndbtop.ops.wait import describe
from ndbtop.sanitise import one_line, write_line

ETA_PAUSED = "paused while the gate holds: the steps still to go, not the wait"
"""Said beside the run's estimate while a gate holds it (the estimate does not count down)."""


@dataclass
class Step:
    """Where a rolling restart stands: step ``number`` of ``total`` (0 before the first),
    and the nodes of a restart sent and not yet seen STARTED again."""

    total: int
    number: int = 0
    batch: tuple[int, ...] = ()


class RunOutput:
    """The run's reports and questions, on ``out`` (questions on ``asked``)."""

    def __init__(self, args: argparse.Namespace, plan: RollingPlan, times: RunTimes,
                 out: TextIO, asked: TextIO) -> None:
        self.args = args
        self.plan = plan
        self.times = times
        self.out = out
        self.asked = asked
        self.js = bool(args.json)
        self.interactive = sys.stdin.isatty() and not self.js and not args.yes
        """Whether a gate is asked about (else waited for, up to ``--gate-wait``)."""
        self.at = Step(len(plan.batches))
        self.started = time.monotonic()
        self.step_started: dict[tuple[int, ...], float] = {}
        self._asking = False

    def report(self, p: Progress) -> None:
        """One report of the engine, as a line (or an event with ``--json``)."""
        index = self.plan.batches.index(p.batch) + 1
        now = time.monotonic()
        if p.step == "restart":
            self.at.number, self.at.batch = index, p.batch
            self.step_started[p.batch] = now
            self.times.sent(p.batch, now)
        elif p.step == "started":
            self.at.batch = ()
            self.times.started(p.batch, now)
        if self.js:
            took = now - self.step_started.get(p.batch, self.started)
            found = self.times.estimate(now, time.time())
            event = progress_event(p, index, len(self.plan.batches), found,
                                   took if p.step == "started" else None)
            if p.step == "gate" and not self.interactive:
                event["waits_up_to"] = self.args.gate_wait
            write(self.out, event)
            return
        if self._asking and p.step.startswith("gate"):
            write_line(self.out, "")
        self._text(p, index)
        self.out.flush()

    def _text(self, p: Progress, index: int) -> None:
        out = self.out
        if p.step == "restart":
            write_line(out, f"[{index}/{len(self.plan.batches)}] {p.message}")
            self.estimate()
        elif p.step in ("waiting", "started"):
            for n in p.nodes:
                phase, _ = describe(n, None, time.time())
                extra = f" {phase}" if phase else ""
                if p.step == "started":
                    took = time.monotonic() - self.step_started.get(p.batch, self.started)
                    extra += f" (took {int(took)} s)"
                write_line(out, f"    node {n.node_id} {n.status}{extra}")
            # While a node starts, its start estimate may come to stand for the step.
            if p.step == "started" or any(n.status != "STARTED" for n in p.nodes):
                self.estimate(step_only=p.step == "waiting")
        elif p.step == "problem":
            write_line(out, f"    problem: {p.message}")
        elif p.step == "gate" and p.gate is not None:
            self._gate(p.gate)
        elif p.step == "gate ahead" and p.gate is not None:
            if p.gate.held:
                write_line(out, f"    next step: step {p.gate.step} will wait unless they clear:")
                for line in p.gate.lines():
                    write_line(out, f"      {line}")
            else:
                write_line(out, f"    next step: no finding holds step {p.gate.step} now")
        elif p.step == "gate cleared":
            write_line(out, f"    gate: {p.message}; going on")
        elif p.step == "gate skipped":
            write_line(out, f"    gate skipped: '{GATE_PHRASE}' typed (written to the audit log)")

    def _gate(self, gate: Gate) -> None:
        nodes = ("node " if len(gate.batch) == 1 else "nodes ") + " ".join(map(str, gate.batch))
        write_line(self.out, f"    gate: step {gate.step} ({nodes}) waits for:")
        for line in gate.lines():
            write_line(self.out, f"      {line}")
        if not self.interactive:
            write_line(self.out, f"    waiting up to {self.args.gate_wait:g} s for them to "
                       "clear (--gate-wait), then aborting")
        found = self.times.estimate(time.monotonic(), time.time())
        write_line(self.out, f"    rolling restart: {eta_text(found.run)} ({ETA_PAUSED})")

    def estimate(self, *, step_only: bool = False) -> None:
        """The step's estimate and (unless ``step_only``) the whole run's."""
        found = self.times.estimate(time.monotonic(), time.time())
        if found.current is not None:
            write_line(self.out, f"    this step: {eta_text(found.current)}")
        if not step_only and (self.at.number < len(self.plan.batches)
                              or found.current is not None):
            write_line(self.out, f"    rolling restart: {eta_text(found.run)}")

    async def decide(self, problem: Problem) -> Decision:
        """A problem: retry, skip its nodes, start those left NOT_STARTED, or abort
        (``--yes``, or nothing to ask on: abort)."""
        if self.args.yes:
            return Decision.ABORT
        start = (f"s[t]art {' '.join(map(str, problem.not_started))}, "
                 if problem.not_started else "")
        answer = await ask(f"{problem.kind}: {one_line(problem.message)}\n[r]etry, [s]kip "
                           f"{' '.join(map(str, problem.batch))}, {start}[a]bort? ",
                           "rsta" if start else "rsa", self.asked)
        decision = {"r": Decision.RETRY, "s": Decision.SKIP,
                    "t": Decision.START}.get(answer, Decision.ABORT)
        if decision is Decision.SKIP:
            self.times.skip(problem.batch)
        return decision

    async def decide_gate(self, gate: Gate) -> Decision:
        """Findings hold a step: wait for them to clear (the run goes on by itself, and the
        question is dropped if they clear first), skip the gate (the phrase typed), or
        abort."""
        nodes = " ".join(map(str, gate.batch))
        self._asking = True
        try:
            answer = await ask("[w]ait for them to clear, [g]o on: skip the gate, [a]bort? ",
                               "wga", self.asked)
            if answer == "a":
                return Decision.ABORT
            if answer == "g":
                typed = await ask_phrase(f"type '{GATE_PHRASE}' to restart node {nodes} "
                                         "now: ", self.asked)
                if typed == GATE_PHRASE:
                    return Decision.GO
                self.asked.write(f"'{GATE_PHRASE}' was not typed: ")
        finally:
            self._asking = False
        write_line(self.asked, "waiting for them to clear (Ctrl-C stops the run)")
        self.asked.flush()
        return Decision.WAIT
