"""Config: each data node's configuration, defaults marked, and who still runs an older one."""

from __future__ import annotations

import io

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from textual import events

from ndbtop.compat import zip_strict
from ndbtop.model.config import (
    ClusterConfig,
    DataNodeConfig,
    config_differences,
    pending_restarts,
)
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import Text, safe
from ndbtop.tui.views.base import PanelsView


def size(n: int) -> str:
    """``12.0G``-style size (binary units), as config.ini writes them."""
    for unit, scale in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f}{unit}" if value == int(value) else f"{value:.1f}{unit}"
    return str(n)


def _cell(node: DataNodeConfig, name: str, text: str) -> Text:
    """A value, dimmed with ``(default)`` when ConfigInfo's default applies."""
    if name in node.defaulted:
        return Text(f"{text} (default)", style="dim")
    return Text(text)


def _threads(node: DataNodeConfig) -> Text:
    if node.thread_config:
        return Text(f"ThreadConfig {node.thread_config}")
    if node.max_execution_threads:
        return Text(f"MaxNoOfExecutionThreads {node.max_execution_threads}")
    return Text("(default)", style="dim")


def _table(*columns: tuple[str, str]) -> Table:
    table = Table(box=None, padding=(0, 2), header_style="bold", expand=False)
    for name, justify in columns:
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    return table


def config_tables(config: ClusterConfig, pending: dict[int, bool | None],
                  running: dict[int, int], wanted: set[int] | None = None,
                  *, narrow: bool = False) -> Table:
    """Two tables, one row per data node in each: where it is and what it holds (group,
    host, DataDir, memory, the generation it runs, whether a restart is due), then how it
    starts (redo log, progress reports, threads, arbitration rank). ``narrow`` (an 80-column
    terminal) splits each in two, so that no column is cut away."""
    place_columns = [("node", "right"), ("group", "right"), ("host", "left"),
                     ("DataDir", "left")]
    hold_columns = [("DataMemory", "right"), ("DiskPageBuffer", "right"),
                    ("runs gen", "right"), ("restart", "left")]
    redo_columns = [("redo log", "left"), ("StartupStatusReportFrequency", "left")]
    thread_columns = [("threads", "left"), ("ArbitrationRank", "right")]
    if narrow:
        tables = [_table(*place_columns), _table(("node", "right"), *hold_columns),
                  _table(("node", "right"), *redo_columns),
                  _table(("node", "right"), *thread_columns)]
    else:
        tables = [_table(*place_columns, *hold_columns),
                  _table(("node", "right"), *redo_columns, *thread_columns)]
    for d in config.data_nodes:
        if wanted is not None and d.node_id not in wanted:
            continue
        group = Text("none", style="yellow") if not d.in_node_group else Text(str(d.node_group))
        due = pending.get(d.node_id)
        restart = (Text("?", style="dim") if due is None
                   else Text("needed", style="bold yellow") if due else Text("no", style="green"))
        place = [str(d.node_id), group, d.host or "any host", d.data_dir]
        hold = [
            _cell(d, "DataMemory", size(d.data_memory)),
            _cell(d, "DiskPageBufferMemory", size(d.disk_page_buffer_memory)),
            str(running[d.node_id]) if d.node_id in running else "-",
            restart,
        ]
        redo = (f"{d.fragment_log_parts}x{d.fragment_log_files}x"
                f"{size(d.fragment_log_file_size)} = {size(d.redo_log_bytes)}")
        redo_defaults = {"NoOfFragmentLogFiles", "FragmentLogFileSize", "NoOfFragmentLogParts"}
        report = ("0 (no progress reports)" if d.startup_status_report_frequency == 0
                  else f"{d.startup_status_report_frequency} s")
        starts = [
            Text(f"{redo} (default)", style="dim") if redo_defaults <= d.defaulted
            else Text(redo),
            _cell(d, "StartupStatusReportFrequency", report),
        ]
        threads = [_threads(d), _cell(d, "ArbitrationRank", str(d.arbitration_rank))]
        if narrow:
            rows = [place, [str(d.node_id), *hold], [str(d.node_id), *starts],
                    [str(d.node_id), *threads]]
        else:
            rows = [place + hold, [str(d.node_id), *starts, *threads]]
        for table, row in zip_strict(tables, rows):
            table.add_row(*row)
    grid = Table.grid()
    for i, table in enumerate(tables):
        if i:
            grid.add_row("")
        grid.add_row(table)
    grid.add_row(Text("redo log: NoOfFragmentLogParts x NoOfFragmentLogFiles x "
                      "FragmentLogFileSize; (default): ConfigInfo's default value", style="dim"))
    return grid


def fits(grid: Table, width: int) -> bool:
    """Whether every table of the grid shows whole in ``width`` columns.

    The grid is measured as it is shown, made safe (:func:`~ndbtop.tui.safe.safe`): a
    DataDir or a HostName is text, never markup, even to know its width.
    """
    console = Console(file=io.StringIO(), width=10_000)
    return all(Measurement.get(console, console.options, table).maximum <= width
               for row in safe(grid).columns[0].cells if isinstance(table := row, Table))


class ConfigView(PanelsView):
    """The configuration the management server holds, per data node."""

    title = "Config"
    short_title = "Conf"

    panels = ("config_head", "config_nodes")

    def on_resize(self, event: events.Resize) -> None:
        """The tables are laid out for the width (four narrow ones below about 110 columns)."""
        if self.snapshot is not None:
            self.redraw(self.snapshot.wall)

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        config = snap.config
        src = snap.source("config")
        if config is None:
            why = src.error if src is not None and src.error else "not read yet"
            self.put("#config_head", Text(f"No configuration: {why}", style="yellow"))
            self.put("#config_nodes", Text(""))
            return
        sample = snap.live_ndbinfo()
        pending = pending_restarts(config, sample)
        running = {n.node_id: n.config_generation for n in sample.nodes} if sample else {}
        behind = sorted(n for n, due in pending.items() if due)
        head = Text(f"Configuration generation {config.generation}", style="bold")
        head.append(f" · {config.name or 'unnamed'} · NoOfReplicas {config.no_of_replicas}"
                    f" · {len(config.data_nodes)} data nodes · from {snap.mgm_address or '?'}")
        if src is not None and src.error:
            head.append(f"\n⚠ last read failed: {src.error}", style="yellow")
        if behind:
            which = (f"node {behind[0]} still runs" if len(behind) == 1 else
                     f"nodes {', '.join(map(str, behind))} still run")
            head.append(f"\n⚠ {which} an older configuration: a rolling restart brings "
                        f"{'it' if len(behind) == 1 else 'them'} onto generation "
                        f"{config.generation}", style="bold yellow")
            for node_id, names in sorted(config_differences(config, sample).items()):
                if names and node_id in behind:
                    head.append(f"\n  node {node_id} runs with other {', '.join(names)} "
                                "(ndbinfo.config_values)", style="yellow")
        elif sample is None:
            head.append("\nWhich nodes run an older configuration needs a SQL node "
                        "(ndbinfo.nodes)", style="dim")
        self.put("#config_head", head)
        key = (id(config), tuple(sorted(pending.items())), tuple(sorted(running.items())),
               self.filter_text, self.size.width)

        def tables() -> Table:
            wanted = {d.node_id for d in config.data_nodes if self.matches(d.node_id, d.host)}
            # Static pads one column on each side; the scroll bar takes two more.
            width = self.size.width
            narrow = width > 0 and not fits(config_tables(config, pending, running, wanted),
                                            width - 4)
            return config_tables(config, pending, running, wanted, narrow=narrow)

        self.put_keyed("#config_nodes", key, tables)
