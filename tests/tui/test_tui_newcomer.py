"""What a new user tripped over in the live view: Ctrl-C, the sort key, the host column,
80x24, typed confirmations, --read-only, the abort dialog, backup units, the event log."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Checkbox, RichLog
from tui.test_tui_actions import closed, confirm, confirm_box, go, modal, select, shown
from tui.test_tui_views import in_phase_4

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import CaptureSpec
from ndbtop.mgm.cluster_log import parse_lines
from ndbtop.mgm.events.decode import decode_text_line
from ndbtop.model.backups import COMPLETED, RUNNING
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.action_flow import note
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.help import HelpScreen
from ndbtop.tui.screens.quit import QuitPrompt
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.views.events import EventsView
from ndbtop.tui.widgets.typed_confirm import TypedConfirm
from tests.captures import captured


async def _backup_source() -> FrozenSource:
    cap = await captured(CaptureSpec("backup", 170.0, step=5.0))
    return FrozenSource(cap.snapshot, cap.connectstring)


# Ctrl-C


async def test_ctrl_c_quits_when_nothing_is_left_running(tui_on) -> None:
    async with tui_on(await _backup_source()) as t:
        await t.press("ctrl+c")
        await t.until(lambda: not t.app.is_running, "Ctrl-C to quit")
        assert t.app.return_value == 0
        assert not any("[b]" in message or "ctrl+q" in message for message, _ in t.notes)


async def test_ctrl_c_asks_where_q_asks_even_from_the_filter_field(tui_on) -> None:
    async with tui_on(await _backup_source()) as t:
        t.app.statistics_raised_from = 7
        await t.press("slash")
        await t.until(lambda: t.app.focused is not None and t.app.focused.id == "filter",
                      "the filter field")
        await t.press("ctrl+c")
        await t.until(lambda: isinstance(t.app.screen, QuitPrompt), "the quit prompt")
        assert "STATISTICS 7 → 15" in t.text()
        await t.press("ctrl+c")  # asked already: the prompt stays, nothing else opens
        await t.pilot.pause()
        assert isinstance(t.app.screen, QuitPrompt) and len(t.app.screen_stack) == 2
        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, QuitPrompt), "escape to stay")
        assert t.app.is_running


# The sort key, the host column


async def test_the_sort_key_is_in_the_column_header_and_the_host_cell_is_short(tui) -> None:
    async with tui("node-groups") as t:
        table = t.table("#nodes")

        def header() -> str:
            return next(line for line in t.text().splitlines() if line.startswith(" id"))

        assert " type▲ " in header()
        # Node 5 is NO_CONTACT: the cell names its host, and every column still fits.
        await t.until(lambda: t.cell("#nodes", "5", "host") == "from 192.168.0.5",
                      "node 5's host, once the configuration is read")
        assert header().rstrip().endswith("disk %util"), header()
        await t.press("s")
        await t.until(lambda: " id▲ " in header(), "the id column marked")
        assert " type " in header() and "type▲" not in header()
        assert ("sorted by id", "information") in t.notes
        await t.press("s")
        await t.until(lambda: " status▲ " in header(), "the status column marked")
        assert [str(c.label) for c in table.ordered_columns][:4] == [
            "id", "type", "host", "status▲"]
        # The whole sentence, as ndb_mgm says it, is in the detail panel of node 5.
        await t.press("s")
        await select(t, 5)
        await t.until_shown("Node 5: not connected, accepting connect from 192.168.0.5")


def test_a_long_address_is_cut_in_the_cell_and_whole_in_the_detail_panel() -> None:
    from ndbtop.mgm.status import NodeStatus
    from ndbtop.tui.views.node_cells import HOST_WIDTH, address_cell, address_line

    host = "ndb-data-07.rack-12.eu-west.example.com"
    node = NodeStatus(node_id=7, type="NDB", status="STARTED", address=host)
    snap = ClusterSnapshot(0.0, 0.0, 1.0, (), nodes=(node,))
    cell = address_cell(node, snap)
    assert len(cell) == HOST_WIDTH and cell.endswith("…") and host.startswith(cell[:-1])
    line = address_line(node, snap)
    assert line is not None and line.plain == f"Node 7: address {host}"
    # Cut once escaped: the escapes take their room on screen; the detail keeps every one.
    node = NodeStatus(node_id=7, type="NDB", status="STARTED", address="10.0.0.7\x07\x1b[2J")
    cell = address_cell(node, snap)
    assert cell == "10.0.0.7\\x07\\x1b[2J" and len(cell) <= HOST_WIDTH
    node = dataclasses.replace(node, address="10.0.0.7" + "\x07" * 8)
    assert address_cell(node, snap) == "10.0.0.7" + "\\x07" * 3 + "\\x0…"
    line = address_line(node, snap)
    assert line is not None and line.plain == "Node 7: address 10.0.0.7" + "\\x07" * 8


# 80x24


async def test_at_80x24_the_redo_rate_eta_and_the_filter_key_are_on_screen(tui) -> None:
    cluster = build_scenario("initial-start", ScenarioOptions(report_frequency=60))
    async with tui(cluster, manual=True, size=(80, 24)) as t:
        await in_phase_4(t, minutes=1)
        rate = re.compile(r"redo log init \S* +[\d,]+/43,008 MB · [\d.]+ MB/s of log · files")
        eta = re.compile(r"^ ?nodes? 10\b.* ETA \d")
        await t.until(lambda: any(rate.search(line) for line in t.text().splitlines()),
                      "the redo rate on one line")
        await t.until(lambda: any(eta.search(line) for line in t.text().splitlines()),
                      "node 10's one estimate")
        lines = t.text().splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        assert "/ Filter" in lines[-1] and lines[-1].rstrip().endswith("? Help  q Quit")


# Typed confirmations


async def test_the_typed_confirmation_is_framed_and_enter_confirms_once_it_matches(tui) -> None:
    async with tui("threads") as t:
        await select(t, 3)
        await confirm(t, "r")
        checkbox = modal(t).query_one("#flag-abort", Checkbox)
        await t.tick("#flag-abort")
        box = confirm_box(t)
        await t.until(lambda: checkbox.value and box.display, "-a ticked")
        assert isinstance(box, TypedConfirm)
        assert box.styles.border_top[0] != "" and box.region.height == 3, "a visible frame"
        await t.until_shown("Restart (type to confirm)")  # the button's whole label
        await t.pilot.click("#confirm")
        await t.press("2", "enter")
        await t.pilot.pause()
        assert isinstance(t.app.screen, ConfirmAction), "another id: Enter sends nothing"
        assert not t.audit.path.exists()
        await t.press("backspace", "3")
        await t.until(lambda: not go(t).disabled, "the node id typed")
        await t.press("enter")
        await closed(t)
        await t.until(lambda: t.audit.path.exists() and any(
            r["event"] == "sent" for r in t.audit.records()), "the restart sent")
        assert [r["command"] for r in t.audit.records() if r["event"] == "sent"] == [
            "3 RESTART -a"]


async def test_the_rolling_restarts_typed_confirmation_is_framed_and_its_button_whole(
        tui) -> None:
    from test_tui_rolling import open_rolling

    async with tui("threads") as t:
        screen = await open_rolling(t)
        await t.tick("#initial")
        field = screen.query_one("#confirm", TypedConfirm)
        await t.until(lambda: field.display, "the field for -i")
        assert field.styles.border_top[0] != "" and field.region.height == 3
        await t.until_shown("Start (type initial)")
        await t.pilot.click("#confirm")
        await t.press("i", "n", "enter")
        await t.pilot.pause()
        assert screen.engine is None, "Enter sends nothing before the word is typed"


# --read-only


async def test_read_only_action_keys_say_so_and_the_help_marks_them(tmp_path: Path) -> None:
    source = await _backup_source()

    async def start() -> FrozenSource:
        return source

    app = NdbtopApp(start, read_only=True, audit=AuditLog(tmp_path / "audit.log"))
    notes: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (notes.append(message), notify(message, **kw))[1]
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            if app.current_view.snapshot is not None:
                break
            await pilot.pause(0.02)
        for key in ("r", "x", "t", "L", "W", "B", "A"):
            notes.clear()
            await pilot.press(key)
            await pilot.pause()
            assert len(app.screen_stack) == 1, f"{key} opened a dialog"
            assert any(message.startswith("read-only") for message in notes), key
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        helped = dict(app.help_keys())
        assert helped["r"].startswith("(read-only) restart")
        assert helped["A"].startswith("(read-only) ABORT BACKUP")
        assert not helped["p"].startswith("(read-only)")
    assert not (tmp_path / "audit.log").exists()


# The abort dialog


async def test_the_abort_dialog_says_why_when_the_backup_ends_meanwhile(tui_on) -> None:
    source = await _backup_source()
    running = next(b for b in source.snapshot().backups if b.state == RUNNING)
    async with tui_on(source) as t:
        await t.press("A")
        await t.until(lambda: isinstance(t.app.screen, ConfirmAction), "the abort dialog")
        # The id is typed into the field from the start (digits are view keys elsewhere).
        await t.until(lambda: t.app.focused is confirm_box(t), "the field focused")
        await t.press(str(running.backup_id))
        await t.until(lambda: not go(t).disabled, "the id typed")
        done = dataclasses.replace(running, state=COMPLETED, ended_at=running.started_at + 200)
        snap = source.snapshot()
        source._snapshot = dataclasses.replace(
            snap, backups=tuple(done if b is running else b for b in snap.backups))
        why = f"backup {running.backup_id} completed while this dialog was open"
        await t.until(lambda: why in shown(t, "#warnings"), "the reason in the dialog")
        assert isinstance(t.app.screen, ConfirmAction) and go(t).disabled
        assert any(why in message for message, _ in t.notes), "and in a notification"
        await t.press("enter")
        await t.pilot.pause()
        assert not t.audit.path.exists(), "nothing sent"


# Backup figures


async def test_the_backup_view_gives_sizes_and_rates_in_one_unit_system(tui_on) -> None:
    async with tui_on(await _backup_source()) as t:
        await t.view("6")
        await t.until_shown("written so far")
        text = t.text()
        assert re.search(r"written so far [\d.]+ GiB, [\d,]+ records, [\d.]+ MiB/s", text)
        assert not re.search(r"\d (kB|MB|GB)/s", text), text


# The event log


class _EventsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield EventsView(id="view")


def _events_snapshot(at: float, *lines: tuple[float, str]) -> ClusterSnapshot:
    events = tuple(decode_text_line(text, when) for when, text in lines)
    return ClusterSnapshot(at, at, 1.0, (), events=events, events_total=len(events))


async def test_ndbtops_own_lines_take_their_place_among_the_events_by_time() -> None:
    app = _EventsApp()
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(EventsView)
        log = view.query_one("#log", RichLog)
        first = (1000.0, "Node 2: Start phase 1 completed")
        view.show(_events_snapshot(1000.5, first), 1000.5)
        # The action is noted at 1003; an event received at 1002 reaches the view only
        # with the next snapshot.
        view.add_note(1003.0, note(1003.0, "sending 2 RESTART", "bold"))
        later = (1002.0, "Node 2: Start phase 2 completed")
        newest = (1004.0, "Node 2: Start phase 3 completed")
        view.show(_events_snapshot(1005.0, first, later, newest), 1005.0)
        await pilot.pause()
        texts = [s.text.strip() for s in log.lines]
        assert [x.split("  ")[-1].strip() for x in texts] == [
            "Start phase 1 completed", "Start phase 2 completed", "sending 2 RESTART",
            "Start phase 3 completed"]


async def test_a_wrapped_event_continues_under_its_text() -> None:
    app = _EventsApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(EventsView)
        log = view.query_one("#log", RichLog)
        text = "Node 2: " + " ".join(f"word{i}" for i in range(30))
        view.show(_events_snapshot(1001.0, (1000.0, text)), 1001.0)
        await pilot.pause()
        rows = [s.text.rstrip() for s in log.lines]
        assert len(rows) > 1
        start = rows[0].index("word0")
        for row in rows[1:]:
            assert row[:start].strip() == "" and row[start] != " ", rows
        joined = " ".join(row[start:].strip() for row in rows)
        assert joined == text.removeprefix("Node 2: ")
        view.add_note(1002.0, note(1002.0, "x " * 60, "bold"))
        view.show(_events_snapshot(1003.0, (1000.0, text)), 1003.0)
        await pilot.pause()
        rows = [s.text.rstrip() for s in log.lines][len(rows):]
        assert len(rows) > 1 and all(row.startswith(" " * 19 + "x") for row in rows[1:])


async def test_the_cluster_logs_history_comes_before_the_live_events_marked_as_such() -> None:
    app = _EventsApp()
    async with app.run_test(size=(140, 30)) as pilot:
        view = app.query_one(EventsView)
        log = view.query_one("#log", RichLog)
        live = (5000.0, "Node 2: Start phase 1 completed")
        view.show(_events_snapshot(5001.0, live), 5001.0)
        await pilot.pause()
        # The file's history arrives after the first events: it goes first, the events
        # follow it again (the book's listing 17-1, in this host's time).
        stamp = dt.datetime.fromtimestamp(1000.0).strftime("%Y-%m-%d %H:%M:%S")
        history = tuple(parse_lines(
            f"{stamp} [MgmtSrvr] WARNING  -- Node 2: Node 1 missed heartbeat 2\n"
            f"{stamp} [MgmtSrvr] ALERT    -- Node 2: Node 1 declared dead due to missed "
            "heartbeat\nnot a line of the file's layout\n"))
        view.show(dataclasses.replace(_events_snapshot(5002.0, live), cluster_log=history),
                  5002.0)
        await pilot.pause()
        rows = [s.text.rstrip() for s in log.lines]
        assert len(rows) == 4, rows
        assert "node 2   ERROR       WARNING  history Node 1 missed heartbeat 2" in rows[0]
        assert "ALERT    history Node 1 declared dead due to missed heartbeat" in rows[1]
        assert rows[2].endswith("history not a line of the file's layout")
        assert rows[3].endswith("Start phase 1 completed") and "history" not in rows[3]


async def test_the_lines_of_a_gap_in_the_listening_go_among_the_events_heard() -> None:
    app = _EventsApp()
    async with app.run_test(size=(140, 30)) as pilot:
        view = app.query_one(EventsView)
        log = view.query_one("#log", RichLog)
        heard = ((5000.0, "Node 2: Start phase 1 completed"),
                 (5020.0, "Node 2: Start phase 3 completed"))
        view.show(_events_snapshot(5021.0, *heard), 5021.0)
        await pilot.pause()
        # The file read again after the listener came back: one line before the first
        # event heard (history), the first event heard again, and one of the gap (missed).
        stamps = [dt.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S")
                  for at in (4000.0, 5000.0, 5010.0)]
        gap = tuple(parse_lines(
            f"{stamps[0]} [MgmtSrvr] INFO     -- Node 2: Start initiated (mysql-8.4.3 ndb-8.4.3)\n"
            f"{stamps[1]} [MgmtSrvr] INFO     -- Node 2: Start phase 1 completed\n"
            f"{stamps[2]} [MgmtSrvr] WARNING  -- Node 2: Node 3 missed heartbeat 2\n"))
        view.show(dataclasses.replace(_events_snapshot(5022.0, *heard), cluster_log=gap),
                  5022.0)
        await pilot.pause()
        rows = [s.text.rstrip() for s in log.lines][-4:]
        assert rows[0].endswith("history Start initiated (mysql-8.4.3 ndb-8.4.3)")
        assert rows[1].endswith("Start phase 1 completed") and "history" not in rows[1]
        assert rows[2].endswith("WARNING  missed Node 3 missed heartbeat 2")
        assert rows[3].endswith("Start phase 3 completed")
