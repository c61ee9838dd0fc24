"""The rolling restart's estimate from hand-built step times and histories: missing without
a basis, wide after one finished step, narrower after three, and never more confident
than what it rests on."""

from __future__ import annotations

import json

import pytest

from ndbtop.eta.rolling import (
    HISTORY_MARGIN,
    RollingEta,
    RunTimes,
    batch_eta,
    from_this_run,
    merged_basis,
    plan_eta,
    rolling_eta,
)
from ndbtop.eta.wording import eta_text
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.history import PastStart
from ndbtop.model.ndbinfo import RestartInfo
from ndbtop.model.phases import INITIAL_NODE_RESTART, NODE_RESTART

NOW = 1_800_000_000.0
PLAN = ((2,), (3,), (4,), (5,))


def width(eta: Eta) -> float:
    return (eta.high - eta.low) / eta.seconds


def past(node: int, total: float, *, kind: int = NODE_RESTART, partial: bool = False,
         at: float = NOW - 3600) -> PastStart:
    return PastStart(node, kind, at, ((1, 1.0),), total, partial)


def test_no_finished_step_and_no_history_is_missing_and_says_why() -> None:
    found = rolling_eta(PLAN[1:], (), NOW, current=((2,), 30.0))
    assert isinstance(found.run, EtaMissing)
    assert "no step finished in this run" in found.run.reason
    assert "node 3" in found.run.reason
    assert isinstance(found.current, EtaMissing)
    assert eta_text(found.run).startswith("no ETA: ")
    # The plan before anything is sent: nothing about "this run".
    plan = plan_eta(PLAN, NOW)
    assert isinstance(plan, EtaMissing)
    assert plan.reason == "no earlier start of node 2 (start history)"


def test_one_finished_step_gives_a_wide_range_three_a_narrower_one() -> None:
    one = rolling_eta(PLAN[2:], (100.0,), NOW, current=((3,), 0.0)).run
    three = rolling_eta(PLAN[3:], (100.0, 100.0, 100.0), NOW, current=((4,), 0.0)).run
    assert isinstance(one, Eta) and isinstance(three, Eta)
    # Three steps of 100 s to go (current + two), then one.
    assert one.seconds == pytest.approx(300.0)
    assert three.seconds == pytest.approx(200.0)
    assert one.low < one.seconds < one.high
    assert width(one) == pytest.approx(1.0)  # +-50% after one step
    assert width(three) == pytest.approx(0.4)  # +-20% after three
    assert one.basis[-1] == "this run (1 step)"
    assert "this run (3 steps)" in three.basis


def test_the_spread_of_the_finished_steps_widens_the_range_past_the_margin() -> None:
    figure = from_this_run((60.0, 100.0, 200.0))
    assert figure is not None
    assert figure.seconds == 100.0
    assert (figure.low, figure.high) == (60.0, 200.0)


def test_history_is_the_basis_until_a_step_of_this_run_is_done() -> None:
    history = (past(2, 80.0), past(3, 120.0), past(4, 100.0, partial=True),
               past(5, 90.0, kind=INITIAL_NODE_RESTART), past(5, 70.0, at=NOW - 10),
               past(5, 300.0, at=NOW - 7200))
    info = (RestartInfo(4, "Restart completed", 15, (), 110),)
    found = plan_eta(PLAN, NOW, history=history, restart_info=info)
    assert isinstance(found, Eta)
    # Node 2: 80, node 3: 120, node 4: restart_info 110 (its own start was seen only in
    # part), node 5: its newest node restart (70), not the initial one.
    assert found.seconds == pytest.approx(380.0)
    assert found.low == pytest.approx(380.0 * (1 - HISTORY_MARGIN))
    assert found.high == pytest.approx(380.0 * (1 + HISTORY_MARGIN))
    assert found.basis == ("start history", "restart_info")
    # A node with no start of its own goes by the median of every whole node restart
    # (80, 120, 70, 300).
    other = plan_eta(((9,),), NOW, history=history)
    assert isinstance(other, Eta) and other.seconds == pytest.approx(100.0)
    assert other.basis == ("start history (other nodes)",)
    # --initial goes by initial node restarts only.
    initial = plan_eta(((5,),), NOW, history=history, initial=True)
    assert isinstance(initial, Eta) and initial.seconds == pytest.approx(90.0)
    # Once a step of the run is done, the run is the basis, not the history.
    run = rolling_eta(PLAN[2:], (50.0,), NOW, history=history).run
    assert isinstance(run, Eta) and run.basis == ("this run (1 step)",)
    assert run.seconds == pytest.approx(100.0)


def test_a_batch_goes_by_its_slowest_node() -> None:
    history = (past(2, 80.0), past(4, 200.0))
    found = plan_eta(((2, 4),), NOW, history=history)
    assert isinstance(found, Eta) and found.seconds == pytest.approx(200.0)


def test_the_current_step_counts_what_it_has_run_and_says_when_it_overruns() -> None:
    found = rolling_eta(PLAN[2:], (100.0,), NOW, current=((3,), 40.0))
    current = found.current
    assert isinstance(current, Eta)
    assert current.seconds == pytest.approx(60.0)
    assert (current.low, current.high) == (pytest.approx(10.0), pytest.approx(110.0))
    assert isinstance(found.run, Eta)
    assert found.run.seconds == pytest.approx(260.0)
    assert found.run.basis == ("this run (1 step)",)
    late = rolling_eta((), (100.0,), NOW, current=((3,), 400.0)).current
    assert isinstance(late, Eta)
    assert (late.seconds, late.low, late.high) == (0.0, 0.0, 0.0)
    assert late.basis[-1] == "running past the slowest figure"


def test_the_node_estimators_figure_for_the_current_step_is_used_when_given() -> None:
    node = Eta(30.0, 20.0, 50.0, NOW, ("redo rate (events)", "last start"))
    found = rolling_eta(PLAN[2:], (100.0,), NOW, current=((3,), 10.0), current_eta=node)
    assert found.current is node
    assert isinstance(found.run, Eta)
    assert found.run.seconds == pytest.approx(230.0)
    assert found.run.low == pytest.approx(20.0 + 2 * 50.0)
    assert found.run.basis[:2] == ("current: redo rate (events)", "current: last start")
    # The node estimator declining falls back on this run's own figure.
    declined = rolling_eta(PLAN[2:], (100.0,), NOW, current=((3,), 10.0),
                           current_eta=EtaMissing("start not seen from its beginning"))
    assert isinstance(declined.current, Eta)
    assert declined.current.seconds == pytest.approx(90.0)
    # ...and, without any figure of its own, passes the node estimator's reason on.
    nothing = rolling_eta((), (), NOW, current=((3,), 10.0),
                          current_eta=EtaMissing("start not seen from its beginning"))
    assert nothing.run == EtaMissing("start not seen from its beginning")


def test_run_times_follow_sends_starts_and_skips() -> None:
    times = RunTimes(PLAN)
    times.sent((2,), 1000.0)
    assert isinstance(times.estimate(1010.0, NOW).run, EtaMissing)
    times.started((2,), 1100.0)
    times.sent((3,), 1100.0)
    times.sent((3,), 1150.0)  # a retry: the step counts from its first send
    found = times.estimate(1120.0, NOW)
    assert isinstance(found.current, Eta) and found.current.seconds == pytest.approx(80.0)
    assert isinstance(found.run, Eta) and found.run.seconds == pytest.approx(280.0)
    times.skip((3,))
    times.sent((4,), 1200.0)
    found = times.estimate(1200.0, NOW)
    assert isinstance(found.run, Eta) and found.run.seconds == pytest.approx(200.0)
    for batch in ((4,), (5,)):
        times.sent(batch, 1300.0)
        times.started(batch, 1400.0)
    done = times.estimate(1400.0, NOW)
    assert isinstance(done.run, Eta) and done.run.seconds == 0 and done.current is None


def test_json_gives_the_run_and_the_current_step() -> None:
    found = rolling_eta(PLAN[2:], (100.0,), NOW, current=((3,), 40.0))
    out = json.loads(json.dumps(found.as_json(), allow_nan=False))
    assert out["eta"]["seconds"] == 260 and out["eta"]["low"] == 110
    assert out["eta"]["at"].endswith("+00:00")
    assert out["current"]["eta"]["seconds"] == 60
    missing = RollingEta(EtaMissing("no history"), None).as_json()
    assert missing == {"eta": None, "eta_missing": "no history", "current": None}


def test_run_times_ask_the_node_estimator_for_the_step_in_progress() -> None:
    asked: list[tuple[int, ...]] = []

    def node_eta(batch: tuple[int, ...]) -> Eta:
        asked.append(batch)
        return Eta(30.0, 20.0, 50.0, NOW, ("last start",))

    times = RunTimes(PLAN, node_eta=node_eta)
    assert times.estimate(0.0, NOW).current is None and asked == []
    times.sent((2,), 0.0)
    found = times.estimate(5.0, NOW)
    assert asked == [(2,)] and isinstance(found.current, Eta)
    assert found.current.seconds == 30.0
    # The three steps to go have no figure yet: the run has none, the step has one.
    assert isinstance(found.run, EtaMissing)


def test_a_step_goes_by_the_node_estimator_once_every_node_of_it_has_an_estimate() -> None:
    soon = Eta(60.0, 40.0, 90.0, NOW, ("redo rate (events)",))
    later = Eta(300.0, 200.0, 450.0, NOW, ("restart_info (this node)",))
    etas = {2: soon, 4: later, 3: EtaMissing("start not seen from its beginning")}
    assert batch_eta((2, 4), etas.get) is later
    assert batch_eta((2,), etas.get) is soon
    # Node 3 has no estimate and node 5 is not starting yet: the run's own figure stands.
    assert batch_eta((2, 3), etas.get) is None
    assert batch_eta((2, 5), etas.get) is None
    times = RunTimes(((2,), (3,)), node_eta=lambda batch: batch_eta(batch, etas.get))
    times.sent((2,), 0.0)
    found = times.estimate(5.0, NOW)
    assert found.current is soon
    # The rest of the run has nothing to go by yet: the whole run says so.
    assert isinstance(found.run, EtaMissing)


def test_a_source_is_named_once_however_many_nodes_go_by_it() -> None:
    # Node 2 has its own start, node 3 none (the others' median): one source, said once.
    history = (past(2, 80.0),)
    found = plan_eta(((2,), (3,), (2,)), NOW, history=history)
    assert isinstance(found, Eta) and found.seconds == pytest.approx(240.0)
    assert found.basis == ("start history (own and other nodes)",)
    assert plan_eta(((3,), (2,)), NOW, history=history).basis == (  # type: ignore[union-attr]
        "start history (own and other nodes)",)
    assert merged_basis(("restart_info", "start history (other nodes)", "restart_info",
                         "start history (other nodes)")) == (
        "restart_info", "start history (other nodes)")
    # A figure merged already (a step's) merges with the others' into the same words.
    assert merged_basis(("start history (other nodes)", "start history (own and other nodes)",
                         "start history")) == ("start history (own and other nodes)",)
    assert merged_basis(("start history (node 2)", "start history (node 3)",
                         "start history (node 2 and node 3)")) == (
        "start history (node 2 and node 3)",)
    assert merged_basis(("current: last start", "current: phases done", "this run (1 step)")
                        ) == ("current: last start", "current: phases done", "this run (1 step)")
