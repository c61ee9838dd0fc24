"""Guarded actions from the live view: confirmation, the server's answer, the audit log."""

from __future__ import annotations

import re

from rich.text import Text
from textual.widgets import Button, Checkbox, Input, RichLog, Static

from ndbtop.mgm.errorcodes import ndb_error_string
from ndbtop.mgm.events.catalogue import Category
from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.quit import QuitPrompt
from ndbtop.tui.views.events import EventsView
from ndbtop.tui.widgets.keyed_table import KeyedTable

STATISTICS = int(Category.STATISTICS)


async def select(t, node_id: int) -> None:
    """Put the Nodes table's cursor on ``node_id``."""
    await t.view("1")
    for _ in range(10):
        if t.app.current_view.selected_node() == node_id:
            return
        before = t.app.current_view.selected_node()
        await t.press("down")
        await t.until(
            lambda before=before: t.app.current_view.selected_node() != before, "the cursor"
        )
    raise AssertionError(f"node {node_id} is not in the Nodes table")


async def confirm(t, key: str) -> ConfirmAction:
    """Press an action's key and wait for its confirmation, drawn and focused."""
    await t.press(key)
    await t.until(
        lambda: (
            isinstance(t.app.screen, ConfirmAction)
            # Cancel, or the field when the action is to be confirmed by typing from the start.
            and t.app.focused in (t.app.screen.query_one("#cancel", Button),
                                  t.app.screen.query_one("#confirm", Input))
        ),
        f"the confirmation of {key}",
    )
    return modal(t)


async def closed(t) -> None:
    """Wait until the confirmation is gone."""
    await t.until(lambda: not isinstance(t.app.screen, ConfirmAction), "the confirmation to close")


def modal(t) -> ConfirmAction:
    """The open confirmation."""
    screen = t.app.screen
    assert isinstance(screen, ConfirmAction), f"no confirmation is open ({screen!r})"
    return screen


def shown(t, selector: str) -> str:
    """The text of a Static of the confirmation."""
    return plain(modal(t).query_one(selector, Static).content)


def plain(value: object) -> str:
    """Text without its style."""
    return value.plain if isinstance(value, Text) else str(value)


def go(t) -> Button:
    """The confirmation's action button (Restart, Stop, Start, Set, Restore)."""
    return modal(t).query_one("#go", Button)


def confirm_box(t) -> Input:
    """Where the node id is typed to confirm a dangerous action."""
    return modal(t).query_one("#confirm", Input)


def log_lines(t) -> list[str]:
    """The lines of the event log, as shown."""
    return [s.text.rstrip() for s in t.app.query_one(EventsView).query_one("#log", RichLog).lines]


def statuses(seen: list[tuple[str, str]]) -> list[str]:
    """The statuses shown, each run of the same status once."""
    out: list[str] = []
    for status, _ in seen:
        if not out or out[-1] != status:
            out.append(status)
    return out


async def step_until(t, node_id: int, status: str, seen: list[tuple[str, str]]) -> None:
    """Let simulated time pass until the screen shows ``node_id`` in ``status``.

    After each step the test waits for the screen to show the simulated state,
    and records every (status, phase) the Nodes table showed on the way.
    """
    cluster = t.sim.cluster
    for _ in range(200):
        want = next(n for n in cluster.node_statuses() if n.node_id == node_id)

        def on_screen(want=want) -> bool:
            snap = t.app.current_view.snapshot
            node = snap.node(node_id) if snap is not None else None
            now = next(n for n in cluster.node_statuses() if n.node_id == node_id)
            # A state the simulated cluster left before a refresh (NOT_STARTED lasts until
            # the restart's START_ORD) is never on screen.
            return (node is not None and (node.status, node.start_phase) == (
                want.status,
                want.start_phase,
            )) or (now.status, now.start_phase) != (want.status, want.start_phase)

        await t.until(on_screen, f"node {node_id} {want.status} on screen")
        await t.pilot.pause()
        row = (t.node_status(node_id), t.cell("#nodes", str(node_id), "phase"))
        if not seen or seen[-1] != row:
            seen.append(row)
        if want.status == status:
            return
        await t.advance(2.0)
    raise AssertionError(f"node {node_id} never became {status}")


async def test_restart_of_the_last_node_of_a_group_names_what_each_option_does(tui):
    """server-rules.md §6: the data node refuses the graceful restart (5028, Ndbcntr
    checkNodeFail), -a kills the node before any check (execSTOP_REQ) and the cluster is
    lost, -f restarts every data node (Services.cpp restartDB)."""
    async with tui("threads") as t:
        t.sim.cluster.stop_nodes((3,))
        await t.until(lambda: t.node_status(3) == "NO_CONTACT", "node 3 stopped on screen")
        await select(t, 2)
        await confirm(t, "r")
        warnings = shown(t, "#warnings")
        assert ("✖ 5028-Node shutdown would cause system crash — node 2 is the last started "
                "node of node group 0") in warnings
        assert go(t).disabled and str(go(t).label) == "Restart (refused)"
        await t.tick("#flag-abort")
        await t.until(lambda: "THE SERVER WILL DO THIS: node 2 is killed at once; node group "
                      "0 loses its last node and every data node shuts down"
                      in shown(t, "#warnings"), "the -a outcome")
        assert confirm_box(t).placeholder == "type shut down every data node to confirm"
        assert "5028" not in shown(t, "#warnings") and "5063" not in shown(t, "#warnings")
        await t.tick("#flag-abort")
        await t.tick("#flag-force")
        await t.until(lambda: confirm_box(t).placeholder
                      == "type restart the whole cluster to confirm", "the -f outcome")
        assert go(t).disabled
        await t.press("escape")
        await closed(t)
        assert t.audit.records() == []
        assert t.cluster_state(2) == "STARTED"


async def test_restart_accepted_goes_through_the_start_phases_and_back_to_started(tui):
    async with tui("threads", manual=True, interval=0.1) as t:
        await select(t, 3)
        await confirm(t, "r")
        assert not confirm_box(t).display and not go(t).disabled
        assert "ndb_mgm> 3 RESTART" in shown(t, "#command")
        await t.press("tab")
        await t.until(lambda: t.app.focused is go(t), "the Restart button focused")
        await t.press("enter")
        await closed(t)

        seen: list[tuple[str, str]] = []
        await t.until(lambda: t.node_status(3) == "SHUTTING_DOWN", "node 3 shutting down")
        await step_until(t, 3, "STARTED", seen)
        # NOT_STARTED lasts a simulated second between the stop and the start.
        passed = [s for s in statuses(seen) if s != "NOT_STARTED"]
        assert passed == ["SHUTTING_DOWN", "STARTING", "STARTED"]
        assert seen[0][1].startswith("stop level ")
        phases = [p for s, p in seen if s == "STARTING"]
        assert all(re.fullmatch(r"\d+ \S.*", p) for p in phases), phases
        assert len(set(phases)) >= 2, "the phase in progress moves on"

        await t.until(
            lambda: ("3 RESTART: Ok, restarted: 1", "information") in t.notes, "the reply"
        )
        assert [(r["event"], r["command"]) for r in t.audit.records()] == [
            ("sent", "3 RESTART"),
            ("reply", "3 RESTART"),
        ]
        await t.until(
            lambda: re.search(r"Node 3 · node restart · (began|seen since) .* took", t.text()),
            "the finished timeline",
        )


async def test_dangerous_options_need_the_node_id_typed(tui):
    async with tui("threads") as t:
        await select(t, 3)
        await confirm(t, "r")
        box = confirm_box(t)
        assert not box.display and not go(t).disabled
        for flag, option in (("initial", "-i"), ("abort", "-a"), ("force", "-f")):
            checkbox = modal(t).query_one(f"#flag-{flag}", Checkbox)
            await t.pilot.click(f"#flag-{flag}")
            await t.until(
                lambda checkbox=checkbox: checkbox.value and box.display, f"{option} ticked"
            )
            assert f"3 RESTART {option}" in shown(t, "#command")
            assert box.placeholder == "type 3 to confirm"
            assert go(t).disabled
            await t.pilot.click("#confirm")
            await t.press("2")
            await t.until(lambda: box.value == "2", "typing")
            assert go(t).disabled, "another node id does not confirm"
            await t.press("backspace", "3")
            await t.until(lambda: not go(t).disabled, "the node id to enable the button")
            await t.press("backspace")
            await t.until(lambda: go(t).disabled, "an empty box to disable it")
            await t.pilot.click(f"#flag-{flag}")
            await t.until(lambda: not box.display and not go(t).disabled, f"{option} unticked")
        await t.tick("#flag-nostart")
        await t.until(lambda: "3 RESTART -n" in shown(t, "#command"), "-n ticked")
        assert not box.display and not go(t).disabled, "-n alone is not dangerous"
        assert "-n leaves the node NOT_STARTED" in shown(t, "#warnings")
        await t.press("escape")
        await closed(t)
        assert not t.audit.path.exists()
        assert t.cluster_state(3) == "STARTED"


async def test_cancel_is_the_default_and_escape_cancels(tui):
    async with tui("threads") as t:
        footer = await t.footer()
        assert "r Restart" in footer and "L Stats log" in footer
        await select(t, 3)
        for key, title in (("r", "Restart node 3?"), ("x", "Stop node 3?")):
            await confirm(t, key)
            assert shown(t, "#title") == title
            await t.press("enter")
            if key == "x":
                # A stop leaves node 3 down until it is started: its id must be typed, and
                # Enter on the empty field sends nothing.
                assert shown(t, "#title") == title
                await t.press("escape")
            await closed(t)
            await confirm(t, key)
            await t.press("escape")
            await closed(t)
        assert not t.audit.path.exists()
        await t.collected(2)
        assert t.node_status(3) == "STARTED" and t.cluster_state(3) == "STARTED"
        assert not any("RESTART" in m or "STOP" in m for m, _ in t.notes)


async def test_t_starts_a_node_left_not_started_by_restart_n(tui):
    async with tui("threads", manual=True, interval=0.1) as t:
        await select(t, 3)
        await confirm(t, "r")
        await t.tick("#flag-nostart")
        await t.until(lambda: "ndb_mgm> 3 RESTART -n" in shown(t, "#command"), "-n ticked")
        await t.pilot.click("#go")
        await closed(t)
        seen: list[tuple[str, str]] = []
        await t.until(lambda: t.node_status(3) == "SHUTTING_DOWN", "node 3 shutting down")
        await step_until(t, 3, "NOT_STARTED", seen)
        await t.until(lambda: ("3 RESTART -n: Ok, restarted: 1", "information") in t.notes, "Ok")
        await t.collected(2)
        assert t.cluster_state(3) == "NOT_STARTED", "-n: the node waits for START"

        await confirm(t, "t")
        assert shown(t, "#title") == "Start node 3?"
        assert "ndb_mgm> 3 START" in shown(t, "#command")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: t.cluster_state(3) == "STARTING", "the start order")
        await step_until(t, 3, "STARTED", seen)
        assert statuses(seen) == ["SHUTTING_DOWN", "NOT_STARTED", "STARTING", "STARTED"]
        await t.until(lambda: ("3 START: Ok", "information") in t.notes, "the start reply")
        assert [(r["event"], r["command"]) for r in t.audit.records()] == [
            ("sent", "3 RESTART -n"),
            ("reply", "3 RESTART -n"),
            ("sent", "3 START"),
            ("reply", "3 START"),
        ]


def statistics_rows(t) -> dict[str, str]:
    """The trans count the statistics table shows per node (empty while it is hidden)."""
    table = t.app.query_one(EventsView).query_one("#stats", KeyedTable)
    if not table.display:
        return {}
    return {str(r.key.value): plain(table.get_cell(r.key, "trans")) for r in table.ordered_rows}


async def test_L_raises_statistics_to_15_and_restores_it(tui):
    # The cluster-log levels are read every tenth refresh: refresh often.
    async with tui("threads", interval=0.1) as t:
        levels = t.sim.cluster.bus.cluster_log_levels
        await t.view("4")
        assert "statistics events off (cluster log STATISTICS=7" in t.text()
        await confirm(t, "L")
        assert shown(t, "#title") == "Set the cluster log's STATISTICS=15 on data nodes 2 3?"
        assert "ndb_mgm> ALL CLUSTERLOG STATISTICS=15" in shown(t, "#command")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: levels[STATISTICS] == 15, "the level raised on the cluster")
        await t.until_shown("Cluster log changed by ndbtop: STATISTICS 7 → 15 (L restores it)")
        await t.until(
            lambda: set(statistics_rows(t)) == {"2", "3"}, "statistics of 2 and 3", timeout=15.0
        )
        assert "Statistics reported by the data nodes (CLUSTERLOG STATISTICS)" in t.text()
        for node, trans in statistics_rows(t).items():
            assert int(trans.replace(",", "")) > 0, node
        assert any("STATISTICS  INFO     Trans. Count = " in x for x in log_lines(t))

        await confirm(t, "L")
        assert "ALL CLUSTERLOG STATISTICS=7" in shown(t, "#command")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: levels[STATISTICS] == 7, "the level restored")
        await t.until(lambda: "Cluster log changed by ndbtop" not in t.text(), "no banner")
        assert [r["command"] for r in t.audit.records()] == [
            "ALL CLUSTERLOG STATISTICS=15",
            "ALL CLUSTERLOG STATISTICS=15",
            "ALL CLUSTERLOG STATISTICS=7",
            "ALL CLUSTERLOG STATISTICS=7",
        ]
        assert t.audit.records()[0]["request"] == (
            "set cluster loglevel\nnode: 2\ncategory: 252\nlevel: 15\n\n"
            "set cluster loglevel\nnode: 3\ncategory: 252\nlevel: 15\n\n"
        )


async def test_quitting_with_a_raised_level_offers_to_restore_it(tui):
    async with tui("threads") as t:
        levels = t.sim.cluster.bus.cluster_log_levels
        await confirm(t, "L")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: t.app.statistics_raised_from == 7, "the level raised")
        await t.press("q")
        await t.until(lambda: isinstance(t.app.screen, QuitPrompt), "the quit prompt")
        assert "STATISTICS 7 → 15" in t.text()
        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, QuitPrompt), "escape to stay")
        assert t.app.is_running
        await t.press("q")
        await t.until(
            lambda: (
                isinstance(t.app.screen, QuitPrompt)
                and t.app.focused is t.app.screen.query_one("#restore", Button)
            ),
            "the prompt with Restore focused",
        )
        await t.press("enter")
        await t.until(lambda: not t.app.is_running, "the app to quit")
        assert t.app.return_value == 0
        assert levels[STATISTICS] == 7
        assert [(r["event"], r["command"]) for r in t.audit.records()][-2:] == [
            ("sent", "ALL CLUSTERLOG STATISTICS=7"),
            ("reply", "ALL CLUSTERLOG STATISTICS=7"),
        ]
        assert {r.get("generation") for r in t.audit.records()} == {1}


async def test_read_only_has_no_actions(tui):
    async with tui("threads", read_only=True) as t:
        footer = await t.footer()
        assert "READ-ONLY" in t.header()
        assert "Filter" in footer and "Pause" in footer
        assert "r Restart" not in footer and "L Stats log" not in footer
        await select(t, 3)
        for key in ("r", "x", "t", "L"):
            await t.press(key)
        await t.collected(2)
        assert not isinstance(t.app.screen, ConfirmAction)
        assert not t.audit.path.exists()
        assert t.sim.cluster.bus.cluster_log_levels[STATISTICS] == 7
        assert t.cluster_state(3) == "STARTED"
        assert t.app.statistics_raised_from is None


async def test_the_confirmation_names_the_management_server(tui):
    async with tui("threads") as t:
        await select(t, 2)
        await confirm(t, "r")
        address = t.sim.connectstring
        assert (f"sends to the management server {address}, configuration generation 1 "
                "(⏎ = end of line):" in shown(t, "#command"))
        await t.press("escape")
        await closed(t)


async def test_ctrl_q_asks_what_q_asks(tui):
    async with tui("threads") as t:
        await confirm(t, "L")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: t.app.statistics_raised_from == 7, "the level raised")
        await t.press("ctrl+q")
        await t.until(
            lambda: (
                isinstance(t.app.screen, QuitPrompt)
                and t.app.focused is t.app.screen.query_one("#restore", Button)
            ),
            "the prompt with Restore focused",
        )
        assert "STATISTICS 7 → 15" in t.text()
        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, QuitPrompt), "escape to stay")
        assert t.app.is_running


async def test_a_node_a_failed_restart_wait_left_not_started_says_so_and_starts_with_t(tui):
    """MgmtSrvr::restartNodes returns 5025 before it sends START_ORD (server-rules.md §6):
    the reply is shown verbatim, the Nodes view says the node was left NOT_STARTED and how
    to start it, and ``t`` starts it (guarded and audited)."""
    async with tui("threads", speed=200) as t:
        t.sim.cluster.slow_stops[3] = (0.0, 130.0)
        await select(t, 3)
        await confirm(t, "r")
        await t.pilot.click("#go")
        await closed(t)
        wait_failed = "5025-" + ndb_error_string(5025)
        await t.until(lambda: (f"3 RESTART: {wait_failed}", "error") in t.notes,
                      "the failed wait", timeout=10.0)
        await t.until(lambda: t.node_status(3) == "NOT_STARTED", "node 3 NOT_STARTED",
                      timeout=10.0)
        note = ("Node 3 left NOT_STARTED by a failed restart wait (5025): start it with "
                "3 START")
        await t.until_shown(note)
        await confirm(t, "t")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: ("3 START: Ok", "information") in t.notes, "the start")
        assert [(r["event"], r["command"]) for r in t.audit.records()][-2:] == [
            ("sent", "3 START"), ("reply", "3 START")]
        await t.until(lambda: note not in t.text(), "the note gone once started")


async def test_a_reply_that_comes_as_the_live_view_closes_is_not_an_error() -> None:
    # The action's worker notes the reply in the event log; when the app is quitting, its
    # screens are already emptied: the note is left out (the audit log has the reply).
    from types import SimpleNamespace

    from textual.screen import Screen

    from ndbtop.model.clock import RealClock
    from ndbtop.tui.action_flow import ActionFlow

    closing = SimpleNamespace(hub=SimpleNamespace(clock=RealClock()), screen_stack=[Screen()])
    ActionFlow(closing)._add_note("2 RESTART -i -f: Ok", "green")  # type: ignore[arg-type]
