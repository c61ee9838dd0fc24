"""The live view against a running simulator: what each view shows and what the keys do."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Input, RichLog, TabbedContent

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.app import VIEWS, NdbtopApp
from ndbtop.tui.screens.help import HelpScreen
from ndbtop.tui.views.threads import fit

REDO_LINE = re.compile(
    r"redo log init \S* +([\d,]+)/43,008 MB · ([\d.]+) MB/s of log initialised "
    r"\(≈[\d.]+ MB/s written, one 32 KiB page per MB\) · files (\d+)/168"
)
"""The events' progress line (as one line: it may wrap), its rate naming what it counts, no
time left of its own (the node's one estimate gives it)."""


def joined(text: str) -> str:
    return " ".join(text.split())


async def _reports_read(t, nodes: tuple[int, ...] = (10, 11)) -> None:
    """Wait until the hub holds each node's redo report sent at the simulated moment now
    (events are stamped on arrival: the manual clock stands still until they are in)."""
    wall = t.sim.clock.wall()

    def read() -> bool:
        snap = t.hub.snapshot()
        return all((tl := snap.timeline(n)) is not None and tl.redo is not None
                   and tl.redo.at == wall for n in nodes)

    await t.until(read, f"the redo reports of nodes {nodes}")


async def in_phase_4(t, minutes: int = 0) -> None:
    """Play S1 (manual time) into phase 4, then ``minutes`` more, a minute at a time: each
    minute's redo reports (StartupStatusReportFrequency=60) are read before the next."""
    events = t.hub.events
    await t.until(lambda: events.listening_levels is not None, "the event listener")
    # Phase 4 begins 4.1 s in with a report of nothing done.
    await t.advance(5.0)
    await _reports_read(t)
    for _ in range(minutes):
        await in_phase_4_minute(t)


async def in_phase_4_minute(t) -> None:
    """A minute more of phase 4, its redo reports read."""
    await t.advance(60.0)
    await _reports_read(t)


async def test_nodes_view_shows_every_node_and_the_phase_in_progress_during_s1_phase_4(tui):
    # Progress reports every minute (StartupStatusReportFrequency=60).
    cluster = build_scenario("initial-start", ScenarioOptions(report_frequency=60))
    async with tui(cluster, manual=True) as t:
        await in_phase_4(t, minutes=3)
        done = t.hub.snapshot().timeline(10).redo.mb_done
        redo_s = cluster.data_nodes[10].redo_init_seconds
        await t.until(
            lambda: (m := REDO_LINE.search(joined(t.text()))) is not None
            and int(m.group(1).replace(",", "")) == done,
            "the redo progress line of the last report"
        )
        text = t.text()
        assert t.row_keys("#nodes") == ["10", "11", "1", "20", "21", "22", "23", "24"]
        for node in ("10", "11"):
            assert t.cell("#nodes", node, "status") == "STARTING"
            assert t.cell("#nodes", node, "phase") == "4 redo log init"
            assert t.cell("#nodes", node, "type") == "NDB"
        assert t.cell("#nodes", "1", "status") == "CONNECTED"
        assert all(t.cell("#nodes", str(api), "status") == "free slot" for api in range(20, 25))
        assert "data nodes started 0/2" in text
        assert "Node 10 · initial start" in text
        assert re.search(r"▶ 4  redo log init +\S+ so far  normal ~14m20s \(redo log at an "
                         r"assumed 50 MB/s\)", text)
        match = REDO_LINE.search(joined(text))
        assert match is not None
        done_mb, speed, files = match.groups()
        assert int(done_mb.replace(",", "")) == int(43008 * 180 / redo_s)
        assert int(files) == int(168 * 180 / redo_s)
        # The simulated disk initialises 43,008 MB in 38 min 30 s: 18.6 MB/s between two
        # reports a minute apart, far from the 50 MB/s the disk could do.
        assert float(speed) == round(43008 / redo_s, 1) == 18.6


async def test_without_progress_reports_the_nodes_view_says_so_next_to_the_phase(tui):
    async with tui("initial-start", manual=True) as t:
        await in_phase_4(t)
        await t.until(lambda: "no progress reports from node" in " ".join(t.text().split()),
                      "the notice in the summary")
        text = t.text()
        # The demo has no host to reach over SSH (demo --ssh is refused): the hint names
        # what works on a real cluster.
        assert ("⚠ no progress reports: StartupStatusReportFrequency=0; on a real cluster, "
                "ndbtop --ssh measures it on the host") in " ".join(text.split())
        assert "redo init: no progress reports from node" in " ".join(text.split())
        # The start event's zero done is not progress: the total is given, no bar, no ETA.
        assert "redo log to create" in " ".join(text.split()) and "ETA -" not in text


async def test_number_keys_switch_between_the_six_views(tui):
    async with tui("threads") as t:
        tabs = t.app.query_one("#tabs", TabbedContent)
        expected = {
            "2": ("threads", "threads (one cell each, by thr_no)"),
            "3": ("disk", "wareq-kB"),
            "4": ("events", "Statistics: statistics events off (cluster log STATISTICS=7"),
            "5": ("restarts", "No node restart reported by ndbinfo.restart_info"),
            "6": ("backups", "No backup seen since ndbtop started."),
            "7": ("config", "Configuration generation 1"),
            "1": ("nodes", "data nodes started 2/2"),
        }
        for key, (name, fragment) in expected.items():
            await t.view(key)
            assert tabs.active == name
            await t.until_shown(fragment)


async def test_thread_cpu_is_read_while_the_threads_view_shows_it_or_a_recording_runs(
    tui, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    async with tui("threads") as t:
        reader = t.hub.sql.reader
        assert not t.hub.threads_wanted and not reader.threads_wanted

        def ndbinfo_threads():
            ni = t.hub.snapshot().ndbinfo
            return ni.threads if ni is not None else None

        await t.view("2")
        assert t.hub.threads_wanted and reader.threads_wanted
        await t.until_shown("node 2: 7 threads")
        await t.view("1")
        assert not t.hub.threads_wanted
        await t.press("R")
        assert t.app.recorder is not None and reader.threads_wanted, "a recording holds them"
        await t.until(lambda: ndbinfo_threads(), "threads read while recording")
        await t.press("R")
        assert t.app.recorder is None and not reader.threads_wanted


async def test_pause_freezes_the_screen_while_data_keeps_being_collected(tui):
    async with tui("threads") as t:
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.press("p")
        await t.until(lambda: "PAUSED" in t.header(), "the PAUSED badge")
        view = t.app.current_view
        frozen = view.snapshot
        assert frozen is not None and frozen.ndbinfo is not None
        before = t.text().splitlines()
        await t.collected(3)
        after = t.text().splitlines()
        # The view (above the notification corner) stands still; the header keeps going.
        assert after[2:28] == before[2:28]
        assert view.snapshot is frozen
        live = t.hub.snapshot()
        assert live.ndbinfo is not None and live.ndbinfo.taken_at > frozen.ndbinfo.taken_at
        await t.until(lambda: t.header().splitlines()[0] != before[0], "the header's clock")
        assert ("paused: the screen is frozen, data is still collected", "information") in t.notes

        await t.press("p")
        await t.until(lambda: "PAUSED" not in t.header(), "the badge to go")
        await t.until(lambda: view.snapshot is not frozen, "the view to follow again")
        await t.until(lambda: t.text().splitlines()[2:28] != before[2:28], "a new picture")


async def test_plus_and_minus_step_the_refresh_interval(tui):
    async with tui("threads", interval=1.0) as t:
        sources = [t.hub.mgm, t.hub.sql, t.hub.host]
        await t.press("plus")
        await t.until(lambda: t.hub.interval == 2.0, "2 s")
        assert all(s.interval == 2.0 for s in sources)
        await t.until(lambda: "refresh 2s" in t.header(), "refresh 2s")
        assert ("refresh every 2 s", "information") in t.notes
        await t.press("minus", "minus")
        await t.until(lambda: t.hub.interval == 0.5, "0.5 s")
        await t.until(lambda: "refresh 0.5s" in t.header(), "refresh 0.5s")
        await t.press("minus")
        await t.pilot.pause()
        assert t.hub.interval == 0.5, "0.5 s is the shortest"
        await t.press(*["plus"] * 6)
        await t.until(lambda: t.hub.interval == 10.0, "10 s, the longest")
        assert ("refresh every 10 s", "information") in t.notes
        assert all(s.interval == 10.0 for s in sources)


async def test_slash_filters_the_threads_of_the_selected_node(tui):
    async with tui("threads") as t:
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's seven threads")
        box = t.app.query_one("#filter", Input)
        await t.press("slash")
        await t.until(lambda: box.has_class("-visible") and box.has_focus, "the filter box")
        await t.press(*"ldm", "enter")
        await t.until(lambda: not box.has_class("-visible"), "the box to close")
        await t.until(lambda: t.table("#detail").row_count == 4, "the LDM threads only")
        assert sorted(t.row_keys("#detail")) == ["2", "3", "4", "5"]
        assert {t.cell("#detail", k, "name") for k in t.row_keys("#detail")} == {"ldm"}
        # The active filter shows in the view's title (its tab), the others stay plain.
        assert " 1 Nodes  2 Threads /ldm  3 Disk  4 Events " in t.text()

        # Escape leaves the filter as it was.
        await t.press("slash")
        await t.until(lambda: box.has_focus, "the filter box")
        assert box.value == "ldm", "the box opens with the current filter"
        await t.press("x", "escape")
        await t.until(lambda: not box.has_class("-visible"), "escape to close the box")
        assert t.app.current_view.filter_text == "ldm"
        assert t.table("#detail").row_count == 4

        await t.press("slash")
        await t.until(lambda: box.has_focus, "the filter box")
        await t.press("backspace", "backspace", "backspace", "enter")
        await t.until(lambda: t.table("#detail").row_count == 7, "every thread again")
        assert " 1 Nodes  2 Threads  3 Disk  4 Events " in t.text()


async def test_slash_filters_the_event_log(tui):
    async with tui("initial-start", manual=True) as t:
        await in_phase_4(t)
        await t.view("4")
        log = t.app.query_one("#log", RichLog)

        def lines() -> list[str]:
            return [strip.text.rstrip() for strip in log.lines]

        await t.until(
            lambda: (
                any("Local redo log file initialization" in x for x in lines())
                and any("Start phase 3 completed" in x for x in lines())
            ),
            "phase and redo events",
        )
        box = t.app.query_one("#filter", Input)
        await t.press("slash")
        await t.until(lambda: box.has_focus, "the filter box")
        await t.press(*"start phase", "enter")
        await t.until(
            lambda: lines() and all("Start phase" in x for x in lines()), "phase events only"
        )
        shown = lines()
        for node in (10, 11):
            for phase in (1, 2, 3):
                assert any(
                    f"node {node} " in x and f"Start phase {phase} completed (initial start)" in x
                    for x in shown
                )
        await t.press("slash")
        await t.until(lambda: box.has_focus, "the filter box")
        await t.press(*["backspace"] * len("start phase"), "enter")
        await t.until(
            lambda: any("Local redo log file initialization" in x for x in lines()),
            "every event again",
        )


async def test_s_cycles_the_sort_order_of_the_view(tui):
    async with tui("threads") as t:
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.until(lambda: t.row_keys("#detail")[0] == "3", "the hot thread on top")
        await t.press("s")
        await t.until(lambda: t.row_keys("#detail") == list("0123456"), "thread order")
        assert "sorted by thread" in t.text()
        await t.press("s")
        await t.until(lambda: t.row_keys("#detail")[4:] == ["0", "6", "1"], "name order")
        assert sorted(t.row_keys("#detail")[:4]) == ["2", "3", "4", "5"]
        assert ("sorted by name", "information") in t.notes

        await t.view("1")
        assert t.row_keys("#nodes")[:3] == ["2", "3", "1"], "data nodes first"
        await t.press("s")
        await t.until(lambda: t.row_keys("#nodes") == list("1234567"), "id order")

        await t.view("4")
        await t.press("s")
        await t.until(lambda: ("this view has one order", "information") in t.notes, "a note")


async def test_y_copies_the_selection_or_the_whole_report(tui):
    async with tui("threads") as t:
        await t.press("down")
        await t.until(lambda: t.app.current_view.selected_node() == 3, "node 3 selected")
        await t.press("y")
        await t.until(lambda: t.app.clipboard, "the copy")
        assert t.app.clipboard == (
            "node 3 NDB STARTED phase 0 group 0 version 8.4.3 address 192.168.0.3"
        )
        assert ("copied 1 line(s) to the clipboard", "information") in t.notes

        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.press("y")
        await t.until(lambda: t.app.clipboard.startswith("node 2 thr"), "the threads copied")
        lines = t.app.clipboard.splitlines()
        assert len(lines) == 7
        assert lines[0].startswith("node 2 thr 0 main cpu ")
        assert any(x.startswith("node 2 thr 3 ldm ") and "DBLQH" in x for x in lines)

        await t.view("5")
        await t.press("y")
        await t.until(lambda: t.app.clipboard.startswith("Cluster at"), "the report copied")
        report = t.app.clipboard
        assert report.startswith(f"Cluster at {t.sim.connectstring}")
        assert "Data nodes started 2/2" in report


async def test_question_mark_lists_every_key(tui):
    async with tui("threads") as t:
        await t.press("question_mark")
        await t.until(lambda: "ndbtop keys" in t.text(), "the help")
        assert isinstance(t.app.screen, HelpScreen)
        text = t.text()
        documented = {key for key, _ in NdbtopApp.HELP}
        for key, description in NdbtopApp.HELP:
            assert re.search(rf"{re.escape(key)}  +{re.escape(description)}", text), key
        documented |= {key for key, _ in NdbtopApp.REPLAY_HELP}
        labels = {
            **{str(n % 10): "1 … 9, 0" for n in range(1, len(VIEWS) + 1)},
            "slash": "/",
            "question_mark": "?",
            "plus,equals_sign": "+ / -",
            "minus": "+ / -",
            "space": "space / p",
            "full_stop": ". / ,",
            "comma": ". / ,",
            "right_square_bracket": "] / [",
            "left_square_bracket": "] / [",
            "greater_than_sign": "> / <",
            "less_than_sign": "> / <",
            "q": "q / ctrl+c",
            "ctrl+c": "q / ctrl+c",
        }
        for binding in NdbtopApp.BINDINGS:
            if binding.action.startswith("refused"):
                continue  # the live keys, answered with a notification in a replay
            key = labels.get(binding.key, binding.key)
            assert key in documented, f"{binding.key} is not in the help"
        await t.press("escape")
        await t.until(lambda: not isinstance(t.app.screen, HelpScreen), "the help to close")


def test_the_readme_numbers_every_view_as_its_key() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    numbered = re.findall(r"^\| \*\*(\d) (\w+)\*\* \|", readme, re.MULTILINE)
    assert numbered == [(str(n % 10), cls.title) for n, (_, cls) in enumerate(VIEWS, start=1)]
    assert "Keys: `1`–`9` and `0` views" in readme and len(VIEWS) == 10


def test_a_block_list_too_long_for_the_screen_is_cut_with_an_ellipsis() -> None:
    assert fit("DBTC DBDIH", 20) == "DBTC DBDIH"
    assert fit("DBTC DBDIH DBDICT", 10) == "DBTC DBDI…"
    assert len(fit("x" * 50, 12)) == 12


async def test_a_stopped_node_shows_no_live_figures(tui):
    async with tui("threads") as t:
        await t.until(lambda: t.cell("#nodes", "3", "tx") not in ("", "-"), "node 3's tx/s")
        assert t.cell("#nodes", "3", "uptime") not in ("", "-")
        t.sim.cluster.stop_nodes((3,))
        await t.until(
            lambda: t.node_status(3) in ("NOT_STARTED", "NO_CONTACT"), "node 3 stopped on screen"
        )
        for column in ("uptime", "memory", "tx"):
            assert t.cell("#nodes", "3", column) == "-", column
        assert t.cell("#nodes", "2", "uptime") not in ("", "-")


async def test_a_note_written_behind_another_view_is_not_wrapped_at_78_columns(tui):

    from rich.text import Text

    from ndbtop.tui.views.events import EventsView

    async with tui("threads") as t:
        await t.view("1")
        note = "ndbtop   2 RESTART: " + "a reply of the management server, " * 2 + "end"
        assert len(note) > 78
        t.app.query_one(EventsView).add_note(t.hub.clock.wall(), Text(note))
        await t.view("4")
        log = t.app.query_one("#log", RichLog)
        await t.until(lambda: any(note in s.text for s in log.lines), "the note on one line")


async def test_the_event_log_stays_where_the_user_scrolled(tui):
    # Redo-log progress every minute (StartupStatusReportFrequency=60) keeps events coming.
    cluster = build_scenario("initial-start", ScenarioOptions(report_frequency=60))
    async with tui(cluster, manual=True) as t:
        await in_phase_4(t, minutes=12)
        await t.view("4")
        log = t.app.query_one("#log", RichLog)
        await t.until(lambda: log.max_scroll_y > 5, "more events than the log shows")
        log.focus()
        await t.press("home")
        await t.until(lambda: log.scroll_y == 0, "scrolled back to the top")
        lines = len(log.lines)
        await in_phase_4_minute(t)
        await t.until(lambda: len(log.lines) >= lines + 2, "new events")
        lines = len(log.lines)
        # The log scrolls after a refresh: by the next lines, a snap back would be done.
        await in_phase_4_minute(t)
        await t.until(lambda: len(log.lines) > lines, "more events")
        await t.pilot.pause()
        assert log.scroll_y == 0
        log.scroll_end(animate=False)
        await t.until(lambda: log.scroll_y == log.max_scroll_y, "at the end again")
        lines = len(log.lines)
        await in_phase_4_minute(t)
        await t.until(lambda: len(log.lines) > lines + 1, "more events")
        await t.until(lambda: log.scroll_y == log.max_scroll_y, "the end followed")
