"""The Nodes view of a data node that was down before ndbtop started (the node-down
scenario: its simulated host holds its error log, its DataDir is full, nothing runs)."""

from __future__ import annotations

from ndbtop.tui.views.down_node import short_time


async def test_the_summary_names_the_error_and_the_detail_shows_the_whole_entry(tui) -> None:
    async with tui("node-down") as t:
        line = ("node 3 NO_CONTACT · error 2810 The file system is full (File system full) · "
                "2026-11-26 23:41:56 · ndb_3_trace.log.2_t4 · no ndbmtd · DataDir FULL")
        # The summary wraps the line at the screen's width.
        await t.until(lambda: line in " ".join(t.text().split()), repr(line))
        for _ in range(5):
            if t.app.current_view.selected_node() == 3:
                break
            await t.press("down")
        assert t.app.current_view.selected_node() == 3
        await t.until_shown("Trace file path: /var/lib/mysql-cluster/3/ndb_3_trace.log.2 "
                            "[t1..t9]")
        text = t.text()
        assert "Error data: DBLQH: File system write failed. OS errno: 28" in text
        assert "Pid: 20300 thr: 4" in text
        assert "no ndbmtd/ndbd runs for it" in " ".join(text.split())


def test_the_time_is_shortened_only_when_it_reads_as_errorreporter_writes_it() -> None:
    assert short_time("Thursday 26 November 2026 - 23:41:56") == "2026-11-26 23:41:56"
    assert short_time("sometime") == "sometime"
    assert short_time(None) == "time unknown"
