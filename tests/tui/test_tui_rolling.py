"""The guided rolling restart (``W``) against the simulator: plan, start, progress, problems."""

from __future__ import annotations

import io
import re

from rich.console import Console
from textual.widgets import Button, Input, RichLog, Static

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.screens.rolling import RollingRestartScreen
from ndbtop.tui.screens.rolling_prompts import AbortPrompt
from ndbtop.tui.views.events import EventsView
from tests.tui.rolling_clock import STEP, RollingClock

POLL = 0.01
"""Real seconds between the run's status polls: each step of the manual clock waits for one
while the run waits for its nodes."""
HUB_INTERVAL = 1.0
"""Real seconds between the hub's own reads: on the manual clock each step reads the cluster
anyway, and reads of a clock that stands still only take the test's CPU."""
NODE_TIMEOUT = 60.0
"""``W``'s node timeout in the tests of a node that does not come back (simulated seconds:
the node hangs in start phase 5 from 9 s after its restart on)."""


async def open_rolling(t) -> RollingRestartScreen:
    """Once the event listener is connected (the gate weighs what the events tell), press W
    and wait for the plan, drawn, with Cancel focused."""
    events = t.hub.events
    await t.until(lambda: events.listening_levels is not None, "the event listener")
    await t.press("W")
    await t.until(
        lambda: (
            isinstance(t.app.screen, RollingRestartScreen)
            and t.app.focused is t.app.screen.query_one("#cancel", Button)
        ),
        "the rolling restart plan",
    )
    return t.app.screen


def sent(t) -> list[str]:
    """The commands the audit log says were sent, in order."""
    return [r["command"] for r in t.audit.records() if r["event"] == "sent"]


def row(t, node_id: int) -> str:
    """The line of the plan table for ``node_id``, as the screen draws it."""
    table = t.app.screen.query_one("#steps", Static).content
    console = Console(width=112, file=io.StringIO(), record=True)
    console.print(table)
    pattern = re.compile(rf"^\s*(\d+\.\s+)?{node_id}\s+(\d+|none)\s")
    for line in console.export_text().splitlines():
        if pattern.match(line):
            return line.strip()
    raise AssertionError(f"node {node_id} is not in the plan:\n{t.text()}")


def status(t) -> str:
    """The run's status lines under the plan, as one line (the screen wraps them where the
    estimates' wording ends)."""
    return " ".join(t.app.screen.query_one("#status", Static).content.plain.split())


def stops(t) -> dict[int, int]:
    """How many times each simulated data node was stopped."""
    return {n: d.stops for n, d in t.sim.cluster.data_nodes.items()}


async def test_the_plan_shows_every_node_and_what_it_sends_and_sends_nothing(tui, monkeypatch):
    async with tui("threads", manual=True, interval=HUB_INTERVAL) as t:
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        assert screen.plan.batches == ((2,), (3,))
        assert re.match(r"1\.\s+2\s+0\s+2 RESTART\s+waiting$", row(t, 2))
        assert re.match(r"2\.\s+3\s+0\s+3 RESTART\s+waiting$", row(t, 3))
        text = t.text()
        assert "Rolling restart: 2 data node(s) in 2 step(s), one node at a time" in text
        assert "1. restart node v2⏎node: 2⏎abort: 0⏎initialstart: 0⏎nostart: 0⏎force: 0⏎⏎" in text
        assert "2. restart node v2⏎node: 3⏎" in text
        assert "Nothing is sent until you start" in text
        start = screen.query_one("#start", Button)
        assert not start.disabled

        await t.tick("#per-group")
        await t.until_shown("2 step(s), one node per node group at a time")
        # Both data nodes of this cluster are in node group 0: still one at a time.
        assert screen.plan.batches == ((2,), (3,))

        await t.tick("#initial")
        await t.until(lambda: "2 RESTART -i" in row(t, 2), "the -i commands")
        assert "initialstart: 1⏎" in t.text() and "initialstart: 0" not in t.text()
        assert start.disabled
        await t.press("S")
        assert screen.engine is None
        await t.pilot.click("#confirm")
        await t.press(*"initial")
        await t.until(lambda: not start.disabled, "the typed confirmation to enable Start")
        assert screen.query_one("#confirm", Input).value == "initial"

        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, RollingRestartScreen), "the close")
        await clock.play_for(2 * STEP)
        assert not t.audit.path.exists()
        assert stops(t) == {2: 0, 3: 0}


async def test_a_confirmed_run_restarts_each_data_node_once_in_plan_order(tui, monkeypatch):
    async with tui("threads", manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        await t.press("S")
        await clock.play(
            lambda: re.search(r"restarting · STARTING phase \d+ .* · [≈≥]?\d+ s in phase",
                              row(t, 2)),
            "node 2 in a start phase",
        )
        assert row(t, 3).endswith("waiting")
        assert "step 1/2" in t.text()
        assert "rolling restart: no ETA: no step finished in this run" in t.text()
        # Once node 2 is back, the run's end and node 3's from what node 2 took.
        node_3 = re.compile(r"this step: ETA [\d:]+ \([\d:]+–[\d:]+\) in \S+ · this run \(1 step\)")
        await clock.play(lambda: node_3.search(t.text()), "node 3's ETA")
        assert re.search(r"rolling restart: ETA [\d:]+ \([\d:]+–[\d:]+\) in \S+", t.text())
        await clock.play(lambda: screen.finished, "the run to finish")

        await t.until_shown("finished, restarted: 2 3")
        assert re.match(r"1\.\s+2\s+0\s+2 RESTART\s+done \(took \d+ s\)$", row(t, 2))
        assert re.match(r"2\.\s+3\s+0\s+3 RESTART\s+done \(took \d+ s\)$", row(t, 3))
        assert sent(t) == ["2 RESTART", "3 RESTART"]
        assert [r["event"] for r in t.audit.records()] == ["sent", "reply"] * 2
        assert stops(t) == {2: 1, 3: 1}
        assert screen.result is not None and screen.result.done == [2, 3]

        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, RollingRestartScreen), "the close")
        await t.view("4")
        log = t.app.query_one(EventsView).query_one("#log", RichLog)
        await t.until(
            lambda: any("ndbtop   rolling restart: restarted 2 3" in s.text for s in log.lines),
            "the run's note in the event log",
        )


async def test_a_node_that_does_not_come_back_stops_the_run_and_abort_sends_nothing_more(
    tui, monkeypatch
):
    cluster = build_scenario("threads", ScenarioOptions(seed=1, fail_node=2))
    async with tui(cluster, manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        t.app.rolling_node_timeout = NODE_TIMEOUT
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        await t.press("S")
        await clock.play(lambda: sent(t) == ["2 RESTART"], "node 2's restart sent")
        sent_at = t.sim.clock.now()
        await clock.play(lambda: screen.problem is not None, "the problem")
        # The timeout is the cluster's seconds, not a busy machine's: never before they passed.
        assert t.sim.clock.now() - sent_at > NODE_TIMEOUT
        await t.until_shown("[r]etry, [s]kip 2, [a]bort?")
        assert re.search(
            r"timeout: not STARTED after 60 s: node 2 STARTING in phase 5 copy data, wait LCP",
            t.text(),
        )
        assert row(t, 2).endswith("problem") and row(t, 3).endswith("waiting")
        assert sent(t) == ["2 RESTART"]

        await t.press("a")
        await t.until(lambda: screen.finished, "the run to end")
        await t.until_shown("rolling restart aborted at node 2 (timeout): not STARTED after 60 s")
        assert "restarted: none; ABORTED" in t.text()
        assert row(t, 2).endswith("failed") and row(t, 3).endswith("not restarted")
        await clock.play_for(NODE_TIMEOUT)
        assert sent(t) == ["2 RESTART"]
        assert stops(t)[3] == 0 and t.cluster_state(3) == "STARTED"


async def test_skip_moves_on_and_the_partner_guard_stops_the_next_node(tui, monkeypatch):
    cluster = build_scenario("threads", ScenarioOptions(seed=1, fail_node=2))
    async with tui(cluster, manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        t.app.rolling_node_timeout = NODE_TIMEOUT
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        await t.press("S")
        await clock.play(lambda: screen.problem is not None, "the timeout")
        await t.press("s")
        # Node 3's group is down to node 3: the gate holds the step and asks.
        await t.until(lambda: screen.gate_asking, "the gate before node 3")
        await t.until_shown("gate: step 2 (node 3) waits for:")
        assert "warning node_group_one_left: node group 0 is down to node 3" in t.text()
        assert "held at the gate" in row(t, 3)
        # Focus moves to Wait once the gate's buttons are mounted, after the refresh that
        # drew its text.
        wait = screen.query_one("#gate-wait", Button)
        await t.until(lambda: t.app.focused is wait, "the focus on Wait")
        skip = screen.query_one("#gate-skip", Button)
        assert skip.disabled
        # Skipping the gate takes its phrase; the keys typed go to the field, not to the
        # screen's keys (a, s, t).
        await t.pilot.click("#gate-confirm")
        await t.press(*["space" if c == " " else c for c in "skip the gate"])
        await t.until(lambda: not skip.disabled, "the phrase to enable Skip the gate")
        assert screen.running and screen.problem is None
        await t.press("enter")
        # Past the gate, the guard still never restarts the last node of a group.
        await t.until(
            lambda: screen.problem is not None and screen.problem.kind == "guard",
            "the guard on node 3",
        )
        await t.until_shown("guard: node 2, partner of node 3 in node group 0, is STARTING")
        assert row(t, 2).endswith("skipped")
        await t.press("s")
        await t.until(lambda: screen.finished, "the run to end")
        await t.until_shown("restarted: none; skipped: 2 3")
        assert sent(t) == ["2 RESTART"]
        assert stops(t)[3] == 0
        skipped = [r for r in t.audit.records() if r["event"] == "gate skipped"]
        assert [(r["step"], r["nodes"], r["confirmed_with"]) for r in skipped] == [
            (2, [3], "skip the gate")]
        assert [f["id"] for f in skipped[0]["findings"]] == ["node_group_one_left"]


async def test_pause_holds_the_next_node_and_escape_asks_before_aborting(tui, monkeypatch):
    async with tui("threads", manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        await t.press("S")
        await t.until(lambda: sent(t) == ["2 RESTART"], "node 2's restart sent")
        await t.press("p")
        await t.until(lambda: "PAUSED before the next step (p resumes)" in status(t), "PAUSED")
        await clock.play(lambda: "done" in row(t, 2), "node 2 back")
        # As long again as node 2's restart took: node 3 would be back by now.
        await clock.play_for(40.0)
        assert row(t, 3).endswith("waiting") and "PAUSED" in t.text()
        assert sent(t) == ["2 RESTART"] and stops(t)[3] == 0

        await t.press("escape")
        await t.until(lambda: isinstance(t.app.screen, AbortPrompt), "the abort question")
        await t.press("n")
        await t.until(lambda: t.app.screen is screen, "back to the run")
        assert screen.running

        await t.press("p")
        await clock.play(lambda: screen.finished, "the run to finish")
        assert sent(t) == ["2 RESTART", "3 RESTART"]


async def test_read_only_has_no_rolling_restart(tui):
    async with tui("threads", read_only=True) as t:
        await t.press("W")
        await t.collected(2)
        assert not isinstance(t.app.screen, RollingRestartScreen)
        assert not t.audit.path.exists()
        assert stops(t) == {2: 0, 3: 0}


async def test_every_way_out_asks_while_a_rolling_restart_runs_and_audits_where_it_stopped(
    tui, monkeypatch
):
    from ndbtop.tui.screens.quit import QuitPrompt

    # Node 2 never comes back: the run is waiting for it when the user quits.
    cluster = build_scenario("threads", ScenarioOptions(seed=1, fail_node=2))
    async with tui(cluster, manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        await t.press("S")
        await clock.play(
            lambda: [r["event"] for r in t.audit.records()] == ["sent", "reply"],
            "the first restart sent and answered",
        )
        assert sent(t) == ["2 RESTART"]
        await t.press("ctrl+q")
        await t.until(lambda: isinstance(t.app.screen, QuitPrompt), "ctrl+q to ask")
        assert "A rolling restart is running (step 1 of 2): quitting stops it" in t.text()
        assert t.app.focused is t.app.screen.query_one("#stay", Button)
        await t.press("escape")
        await t.until(lambda: t.app.screen is screen, "escape to stay")
        assert screen.running and t.app.is_running
        await t.press("ctrl+q")
        await t.until(lambda: isinstance(t.app.screen, QuitPrompt), "the question")
        await t.pilot.click("#leave")
        await t.until(lambda: not t.app.is_running, "the app to quit")
        records = t.audit.records()
        assert [r["event"] for r in records] == ["sent", "reply", "interrupted"]
        assert records[-1]["message"] == "interrupted at step 1 of 2"
        assert records[-1]["restarting"] == [2]
        assert t.app.notes_on_exit == ["rolling restart interrupted at step 1 of 2"]
        assert stops(t)[3] == 0


async def test_checkbox_state_shows_without_colour(tui):
    from ndbtop.tui.widgets.checkbox import MarkedCheckbox

    async with tui("threads") as t:
        await open_rolling(t)
        box = t.app.screen.query_one("#per-group", MarkedCheckbox)
        assert "▐ ▌ one per node group" in t.text()
        await t.tick("#per-group")
        await t.until(lambda: box.value, "the box checked")
        await t.until_shown("▐X▌ one per node group")


def four_nodes():
    """Data nodes 2, 3 (node group 0) and 4, 5 (node group 1), started."""
    from ndbtop.sim.cluster import SimCluster
    from ndbtop.sim.config import simple_config

    config = simple_config(
        "four", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1)),
        api=((7, None),), max_exec_threads=4, fragment_log_file_size_mb=16,
        no_of_fragment_log_files=4,
    )
    cluster = SimCluster(config)
    cluster.boot_started()
    return cluster


async def test_one_per_node_group_is_an_abort_restart_started_by_its_phrase(tui, monkeypatch):
    """server-rules.md §6: several nodes in one graceful request get 5031, so one node per
    node group is ``2 4 RESTART -a``: the dialog says the transactions are aborted and wants
    its phrase typed; the run completes against the simulator's 5031 and 5063."""
    async with tui(four_nodes(), manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        clock = RollingClock(t, monkeypatch)
        screen = await open_rolling(t)
        await t.tick("#per-group")
        await t.until_shown("one node per node group at a time, together with -a: their")
        assert "transactions are aborted, not drained" in t.text()
        assert screen.plan.batches == ((2, 4), (3, 5))
        assert re.match(r"1\.\s+2\s+0\s+2 4 RESTART -a\s+waiting$", row(t, 2))
        assert "1. restart node v2⏎node: 2 4⏎abort: 1⏎" in t.text()
        start = screen.query_one("#start", Button)
        assert start.disabled and str(start.label) == "Start (type abort transactions)"
        await t.pilot.click("#confirm")
        await t.press(*["space" if c == " " else c for c in "abort transactions"])
        await t.until(lambda: not start.disabled, "the phrase to enable Start")
        await t.pilot.click("#start")
        await clock.play(lambda: screen.result is not None, "the run to end")
        assert sorted(screen.result.done) == [2, 3, 4, 5] and not screen.result.problems
        assert sent(t) == ["2 4 RESTART -a", "3 5 RESTART -a"]
        records = [r for r in t.audit.records() if r["event"] == "sent"]
        assert {r["confirmed_with"] for r in records} == {"abort transactions"}


async def test_a_finding_holds_the_run_at_the_gate_until_it_clears(tui, monkeypatch):
    """redo-filling: node 2's redo log part fills (a finding from ndbinfo.logspaces). The plan
    says step 1 would wait; the run waits at the gate, asks, and once a checkpoint frees the
    log it goes on by itself. Simulated time moves only when the test lets it."""
    from ndbtop.ops.rolling_gate import current_findings

    async with tui("redo-filling", manual=True, interval=HUB_INTERVAL) as t:
        t.app.rolling_poll = POLL
        clock = RollingClock(t, monkeypatch)
        await clock.step(70.0)

        def redo_held() -> bool:
            return any(f.id == "redo_part_filling" for f in current_findings(t.hub.snapshot()))

        await t.until(redo_held, "the redo finding")
        screen = await open_rolling(t)
        await t.until_shown("step 1 would wait now at the gate for:")
        assert "redo_part_filling: node 2 redo log part 0" in t.text()
        start = screen.query_one("#start", Button)
        await t.until(lambda: not start.disabled, "Start enabled: a run would wait, not refuse")

        await t.press("S")
        await t.until(lambda: screen.gate_asking, "the gate's question")
        await t.until_shown("gate: step 1 (node 2) waits for:")
        assert "[w]ait · type 'skip the gate' below to restart node 2 now · [a]bort" in t.text()
        assert "HELD at the gate before step 1" in t.text()
        assert "(paused while the gate holds)" in t.text()
        assert "held at the gate" in row(t, 2)
        await t.press("w")
        await t.until(lambda: not screen.gate_asking, "the answer")
        assert screen.running and sent(t) == []

        # A local checkpoint completes: the tail of the filling part moves.
        del t.sim.cluster.data_nodes[2].redo_stuck[0]
        await clock.play(lambda: bool(sent(t)), "node 2's restart once the gate cleared")
        assert sent(t) == ["2 RESTART"]
        await t.until(lambda: screen.gate is None, "the gate's lines gone")
        assert "gate: step 1" not in t.text()
        await clock.play(lambda: screen.finished, "the run to finish")
        await t.until_shown("finished, restarted: 2 3")
        assert not any(r["event"] == "gate skipped" for r in t.audit.records())


async def test_after_a_configuration_change_the_plan_offers_the_nodes_due_first(tui):
    from ndbtop.model.config import pending_restarts
    from ndbtop.sim.scenarios import CONFIG_CHANGE_AT

    cluster = build_scenario("config-change", ScenarioOptions(seed=1))
    cluster.advance_to(CONFIG_CHANGE_AT + 120)  # generation 5; node 2 restarted onto it

    def known() -> bool:
        snap = t.hub.snapshot()
        return snap.config is not None and pending_restarts(
            snap.config, snap.live_ndbinfo()) == {2: False, 3: True, 4: True, 5: True}

    async with tui(cluster, manual=True) as t:
        await t.until(known, "the generation each node runs")
        screen = await open_rolling(t)
        assert screen.plan.batches == ((3,), (4,), (5,), (2,))
        await t.until_shown("(node 2 already runs the current configuration: restarted after "
                            "the nodes due)")
        assert "configuration: brings node 3, 4, 5 onto configuration generation 5" in t.text()
