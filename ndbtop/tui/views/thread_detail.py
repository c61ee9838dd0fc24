"""The Threads view's detail rows: what each thread's row shows, worked out and drawn again
only when it changed since the last refresh."""

from __future__ import annotations

from typing import Any

from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.model.series import SeriesSet
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.alarm import HOT, marked
from ndbtop.tui.format import bar, spark_chars, split_bar
from ndbtop.tui.safe import Text

TREND_WIDTH = 12
"""Seconds of CPU history in a thread's sparkline (the column has this width from the
start, so that the table does not widen at each of the first refreshes)."""
BAR_WIDTH = 16
"""Cells of the exec|send|spin bar."""
OS_BAR_WIDTH = 8
"""Cells of the OS (user + system) bar."""


class DetailRows:
    """The rows of one node's threads, each kept with what it was drawn from."""

    def __init__(self) -> None:
        self._looks: dict[int, tuple[tuple[object, ...], tuple[Any, ...]]] = {}
        """What each thread of the detail showed, with what it was worked out from."""
        self._rows: dict[int, tuple[tuple[object, ...], tuple[object, ...]]] = {}
        """The detail's last rows by thread, with what they show as plain values."""

    def clear(self) -> None:
        """Forget every row (another node is shown)."""
        self._looks.clear()
        self._rows.clear()

    def drawn(self, thr_no: int) -> tuple[tuple[object, ...], tuple[object, ...]] | None:
        """The thread's last row and what it showed, if it was drawn."""
        return self._rows.get(thr_no)

    def looks(
        self,
        snap: ClusterSnapshot,
        node_id: int,
        threads: list[tuple[ThreadCpu, float]],
        hottest: int | None,
    ) -> list[tuple[Any, ...]]:
        # What each thread's row shows, as plain values: a row is drawn from these only
        # when they differ from the last refresh's.
        # The node's own host (local or over SSH): its threads by kernel tid.
        report = snap.host_of(node_id)
        view = report.view if report is not None and report.state == "ok" else snap.host
        host_cpu = {}
        if view is not None:
            host_cpu = {t.tid: t for t in view.threads if t.node_id == node_id}
        # A snapshot's series looked up one by one (cutting out only those shown), or
        # from a dict of them when the snapshot holds them as a tuple (a replay).
        series_of = snap.series if isinstance(snap.history, SeriesSet) else dict(
            snap.history).get
        prefix = f"thread.cpu.{node_id}."
        looks = []
        known = self._looks
        for t, pct in threads:
            on_host = host_cpu.get(t.os_tid) if t.os_tid else None
            host = on_host.cpu_pct if on_host is not None else None
            os_user, os_sys = t.os_user_pct, t.os_system_pct
            if os_user is None and on_host is not None:
                os_user, os_sys = on_host.user_pct, on_host.system_pct
            series = series_of(f"{prefix}{t.thr_no}") or ()
            is_top = t.thr_no == hottest
            source = (t, series, host, is_top, os_user, os_sys)
            drawn = known.get(t.thr_no)
            if drawn is not None and drawn[0] == source:
                looks.append(drawn[1])
                continue
            figures = " ".join(
                _p(v).rjust(4)
                for v in (os_user, os_sys, t.exec_pct, t.send_pct, t.spin_pct, host)
            )
            trend = spark_chars(series, TREND_WIDTH, hi=100.0)
            look = (
                t.thr_no, t.thread_name, is_top, f"{pct:.0f}%",
                t.exec_pct, t.send_pct, t.spin_pct,
                (os_user or 0) + (os_sys or 0),
                figures, trend.rjust(TREND_WIDTH), " ".join(t.blocks),
            )
            known[t.thr_no] = (source, look)
            looks.append(look)
        return looks

    def row(self, look: tuple[Any, ...]) -> tuple[object, ...]:
        # Cells whose part of the look is unchanged are the very objects of the last
        # refresh: the table skips them without comparing or drawing them again.
        thr_no = look[0]
        drawn = self._rows.get(thr_no)
        if drawn is not None and drawn[0] == look:
            return drawn[1]
        was, old = drawn if drawn is not None else ((None,) * len(look), (None,) * 7)
        _, name, is_top, cpu, exec_pct, send_pct, spin_pct, os_busy, figures, trend, blocks = look
        hot = "bold red" if is_top else ""
        name_cell = old[1] if was[1:3] == look[1:3] else Text(name, style=hot)
        cpu_cell = old[2] if was[2:4] == look[2:4] else marked(cpu, HOT if is_top else None, hot)
        stacked = old[3]
        if was[4:8] != look[4:8]:
            stacked = split_bar(
                [(exec_pct, "green"), (send_pct, "blue"), (spin_pct, "magenta")], BAR_WIDTH
            )
            stacked.append(" ")
            stacked.append_text(bar(os_busy, OS_BAR_WIDTH))
        cells = (str(thr_no), name_cell, cpu_cell, stacked, figures, trend, blocks)
        self._rows[thr_no] = (look, cells)
        return cells


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
