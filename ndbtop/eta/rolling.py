"""When a rolling restart will end: the steps still to go, at what a step takes.

What a step takes (from sending its restart to every node of it STARTED again) comes,
by strength of evidence:

1. the steps already finished in this run: their median, the range their spread and a
   margin that shrinks with their number (:data:`RUN_MARGIN`);
2. else the start history: each node's last comparable start (node restart, or initial
   node restart for ``--initial``) kept by ndbtop, else its last restart in
   ``ndbinfo.restart_info``, else the median of the other nodes' starts of that kind,
   with the wider :data:`HISTORY_MARGIN` (a start counts from the node's first start
   phase: the stop before it is not in it);
3. else no estimate, and why.

The step in progress gets the node estimator's figure when one is given, else this
run's figure less the time it has run. A step that has run past its figure is said to
be so: it still has at least nothing to go, and at most what the slowest step took.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ndbtop.model.eta import Eta, EtaMissing, EtaResult, bounded, eta_json
from ndbtop.model.history import PastStart
from ndbtop.model.ndbinfo import NdbinfoSample, RestartInfo
from ndbtop.model.phases import INITIAL_NODE_RESTART, NODE_RESTART

RUN_MARGIN = {1: 0.5, 2: 0.35}
"""Least half-width of the range, as a share of the median, after 1 or 2 finished steps."""
RUN_MARGIN_MANY = 0.2
"""...after 3 or more: the steps of one run restart like nodes the same way, yet one
node's data or disk can make its step longer."""
HISTORY_MARGIN = 0.5
"""Half-width of a step from the start history: another day, another load."""

Batch = tuple[int, ...]


@dataclass(frozen=True)
class StepFigure:
    """What one step takes: a value in seconds, a range, and what it rests on."""

    seconds: float
    low: float
    high: float
    basis: tuple[str, ...]


@dataclass(frozen=True)
class RollingEta:
    """The whole run's estimate and the current step's."""

    run: EtaResult
    current: EtaResult | None = None
    """None when no step is in progress."""

    def as_json(self) -> dict[str, Any]:
        """``{"eta", "eta_missing"?, "current": {"eta", "eta_missing"?}}``."""
        out = eta_json(self.run)
        out["current"] = None if self.current is None else eta_json(self.current)
        return out


def margin_for(finished: int) -> float:
    """The least half-width of the range after ``finished`` steps of this run."""
    return RUN_MARGIN.get(finished, RUN_MARGIN_MANY)


def from_this_run(took: Sequence[float]) -> StepFigure | None:
    """A step's figure from the steps finished in this run (None before the first)."""
    if not took:
        return None
    median = statistics.median(took)
    margin = margin_for(len(took))
    low = min(min(took), median * (1 - margin))
    high = max(max(took), median * (1 + margin))
    steps = "1 step" if len(took) == 1 else f"{len(took)} steps"
    return StepFigure(median, low, high, (f"this run ({steps})",))


def _kind(initial: bool) -> int:
    return INITIAL_NODE_RESTART if initial else NODE_RESTART


def node_history(node_id: int, history: Sequence[PastStart],
                 restart_info: Sequence[RestartInfo] | None,
                 initial: bool) -> tuple[float, str] | None:
    """What ``node_id``'s start took last time and where that comes from, or None."""
    kind = _kind(initial)
    whole = [p for p in history if p.start_type == kind and not p.partial and p.total_s > 0]
    mine = [p for p in whole if p.node_id == node_id]
    if mine:
        return max(mine, key=lambda p: p.finished_at).total_s, "start history"
    info = next((r for r in restart_info or () if r.node_id == node_id and r.total_s > 0),
                None)
    if info is not None:
        return float(info.total_s), "restart_info"
    if whole:
        return statistics.median(p.total_s for p in whole), "start history (other nodes)"
    return None


def from_history(batch: Batch, history: Sequence[PastStart],
                 restart_info: Sequence[RestartInfo] | None,
                 initial: bool) -> StepFigure | None:
    """A step's figure from the nodes' earlier starts: its slowest node (None when one
    of its nodes has no earlier start to go by)."""
    found = [node_history(n, history, restart_info, initial) for n in batch]
    if not batch or any(f is None for f in found):
        return None
    seconds = max(f[0] for f in found if f is not None)
    basis = merged_basis(f[1] for f in found if f is not None)
    return StepFigure(seconds, seconds * (1 - HISTORY_MARGIN), seconds * (1 + HISTORY_MARGIN),
                      basis)


def merged_basis(names: Iterable[str]) -> tuple[str, ...]:
    """Each source named once, in the order first named: ``start history`` (a node's own)
    and ``start history (other nodes)`` read ``start history (own and other nodes)``, and a
    name merged already merges again into the same (never ``(other nodes and own and other
    nodes)``)."""
    qualifiers: dict[str, list[str]] = {}
    for name in names:
        head, _, rest = name.partition(" (")
        if not rest or rest.endswith(")"):
            kept = qualifiers.setdefault(head, [])
            parts = rest[:-1].split(" and ") if rest else [""]
        else:  # a parenthesis not at the end: not a qualifier, the name stands whole
            kept, parts = qualifiers.setdefault(name, []), [""]
        for qualifier in parts:
            qualifier = "" if qualifier == "own" else qualifier
            if qualifier not in kept:
                kept.append(qualifier)
    out = []
    for head, kinds in qualifiers.items():
        if kinds == [""]:
            out.append(head)
        else:
            # A node's own history first, then the others'.
            kinds = sorted(kinds, key=bool)
            out.append(f"{head} ({' and '.join(k or 'own' for k in kinds)})")
    return tuple(out)


IN_THIS_RUN = "no step finished in this run and "


def _missing_history(batch: Batch, restart_info: Sequence[RestartInfo] | None) -> str:
    """Why a step has no figure, naming the sources looked in (``restart_info`` only when
    it was read)."""
    nodes = ", ".join(map(str, batch))
    looked = "start history, restart_info" if restart_info is not None else "start history"
    return f"{IN_THIS_RUN}no earlier start of node {nodes} ({looked})"


def current_step(figure: StepFigure, elapsed: float, now: float) -> Eta:
    """The step in progress from a step's figure, less the ``elapsed`` seconds it has run."""
    seconds = max(figure.seconds - elapsed, 0.0)
    low = max(figure.low - elapsed, 0.0)
    high = max(figure.high - elapsed, 0.0)
    basis = figure.basis
    if elapsed > figure.high:
        basis = (*basis, "running past the slowest figure")
    return Eta(seconds, low, high, now, basis)


def rolling_eta(
    to_go: Sequence[Batch],
    took: Sequence[float],
    now: float,
    *,
    current: tuple[Batch, float] | None = None,
    current_eta: EtaResult | None = None,
    history: Sequence[PastStart] = (),
    restart_info: Sequence[RestartInfo] | None = None,
    initial: bool = False,
) -> RollingEta:
    """The run's estimate: the step in progress, then every step still ``to_go``.

    ``took`` holds the seconds each finished step of this run took; ``current`` is the
    step in progress and the seconds it has run. ``current_eta`` is the node estimator's
    figure for it, used when it is an estimate (its basis then leads); without one, the
    step gets this run's figure, else its history. ``now`` is a wall-clock epoch.
    """
    run = from_this_run(took)
    figures: list[StepFigure] = []
    for batch in to_go:
        figure = run or from_history(batch, history, restart_info, initial)
        if figure is None:
            return RollingEta(EtaMissing(_missing_history(batch, restart_info)),
                              bounded(_current(current, current_eta, run, history,
                                               restart_info, initial, now)))
        figures.append(figure)
    now_step = _current(current, current_eta, run, history, restart_info, initial, now)
    now_step = bounded(now_step)
    if isinstance(now_step, EtaMissing):
        return RollingEta(now_step, now_step)
    parts: list[Eta | StepFigure] = [*figures]
    if now_step is not None:
        parts.append(now_step)
    if not parts:
        return RollingEta(Eta(0.0, 0.0, 0.0, now, ("every step done",)), None)
    basis = _basis(parts, now_step if now_step is current_eta else None)
    return RollingEta(
        bounded(Eta(sum(p.seconds for p in parts), sum(p.low for p in parts),
                    sum(p.high for p in parts), now, basis)),
        now_step,
    )


def _basis(parts: Iterable[Eta | StepFigure], given: Eta | None) -> tuple[str, ...]:
    """What the parts rest on, the node estimator's figure for the current step first."""
    names: list[str] = []
    if given is not None:
        names.extend(f"current: {b}" for b in given.basis)
    for p in parts:
        if p is not given:
            names.extend(p.basis)
    return merged_basis(names)


def _current(current: tuple[Batch, float] | None, given: EtaResult | None,
             run: StepFigure | None, history: Sequence[PastStart],
             restart_info: Sequence[RestartInfo] | None, initial: bool,
             now: float) -> EtaResult | None:
    if current is None:
        return None
    if isinstance(given, Eta):
        return given
    batch, elapsed = current
    figure = run or from_history(batch, history, restart_info, initial)
    if figure is None:
        return given if given is not None else EtaMissing(_missing_history(batch, restart_info))
    return current_step(figure, elapsed, now)


@dataclass
class RunTimes:
    """What each step of a rolling restart took so far, on one monotonic clock.

    Fed by the engine's progress (restart sent, STARTED again, skipped); asked for the
    estimate at any moment. ``node_eta``, when set, gives the node estimator's figure for
    the step in progress (see :func:`rolling_eta`).
    """

    batches: tuple[Batch, ...]
    history: tuple[PastStart, ...] = ()
    restart_info: tuple[RestartInfo, ...] | None = None
    """The nodes' last restarts from ``ndbinfo.restart_info``; None when it was not read."""
    initial: bool = False
    sent_at: dict[Batch, float] = field(default_factory=dict)
    took: dict[Batch, float] = field(default_factory=dict)
    skipped: set[Batch] = field(default_factory=set)
    node_eta: Callable[[Batch], EtaResult | None] | None = None

    def sent(self, batch: Batch, at: float) -> None:
        """The step's restart was sent (again, after a problem: the first send counts)."""
        self.sent_at.setdefault(batch, at)

    def started(self, batch: Batch, at: float) -> None:
        """Every node of the step is STARTED again."""
        if batch in self.sent_at:
            self.took[batch] = max(at - self.sent_at[batch], 0.0)

    def skip(self, batch: Batch) -> None:
        """The step was skipped: it counts neither as done nor as to go."""
        self.skipped.add(batch)

    def estimate(self, at: float, wall: float,
                 current_eta: EtaResult | None = None) -> RollingEta:
        """The estimate at monotonic ``at`` (wall-clock ``wall``)."""
        running = [b for b in self.batches if b in self.sent_at and b not in self.took
                   and b not in self.skipped]
        current = (running[0], max(at - self.sent_at[running[0]], 0.0)) if running else None
        if current_eta is None and current is not None and self.node_eta is not None:
            current_eta = self.node_eta(current[0])
        to_go = [b for b in self.batches if b not in self.sent_at and b not in self.skipped]
        return rolling_eta(to_go, list(self.took.values()), wall, current=current,
                           current_eta=current_eta, history=self.history,
                           restart_info=self.restart_info, initial=self.initial)


def restart_info_of(sample: NdbinfoSample | None) -> tuple[RestartInfo, ...] | None:
    """The last restarts ``ndbinfo.restart_info`` gave, or None when it was not read (no
    SQL node, not yet, or the table could not be read)."""
    if sample is None or sample.panel_read_at("restart_info") is None:
        return None
    return sample.restart_info


def plan_eta(batches: Sequence[Batch], now: float, *, history: Sequence[PastStart] = (),
             restart_info: Sequence[RestartInfo] | None = None,
             initial: bool = False) -> EtaResult:
    """What a plan will take, from history alone (before anything is sent)."""
    result = rolling_eta(batches, (), now, history=history, restart_info=restart_info,
                         initial=initial).run
    if isinstance(result, EtaMissing):
        return EtaMissing(result.reason.replace(IN_THIS_RUN, "", 1))
    return result



def batch_eta(batch: Batch, start_eta: Callable[[int], EtaResult | None]) -> Eta | None:
    """The node estimator's figure for a step: the latest of its nodes' estimates once every
    node of the step has one (each is starting and its start can be estimated); otherwise
    None, and the run's own figure stands."""
    found = [start_eta(node) for node in batch]
    estimates = [e for e in found if isinstance(e, Eta)]
    if not batch or len(estimates) < len(batch):
        return None
    return max(estimates, key=lambda e: e.at)
