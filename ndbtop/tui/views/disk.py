"""Disk: every data node host's disks as iostat shows them (busiest host first), and per data
node its writes and page buffer."""

from __future__ import annotations

from textual.app import ComposeResult

from ndbtop.host.rates import DiskRates
from ndbtop.model.hosts import HostReport
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.alarm import ALARM, LOW, mark, marked
from ndbtop.tui.format import bar, number, pct, rate_bytes, sparkline, stale_mark
from ndbtop.tui.safe import Plain, Text
from ndbtop.tui.views.base import View
from ndbtop.tui.widgets.keyed_table import KeyedTable

HOST_COLUMNS = (
    ("disk", "disk"),
    ("r_s", "r/s"),
    ("w_s", "w/s"),
    ("rkb", "rkB/s"),
    ("wkb", "wkB/s"),
    ("wareq", "wareq-kB"),
    ("await", "await ms"),
    ("util", "%util"),
    ("wtrend", "w/s trend"),
    ("utrend", "util trend"),
)
NODE_COLUMNS = (
    ("node", "node"),
    ("redo", "redo write"),
    ("lcp", "LCP+backup write"),
    ("redo_used", "redo log used"),
    ("hit", "hit since start"),
    ("hit_int", "hit last interval"),
    ("hit_trend", "hit trend"),
    ("req", "page req/s"),
)

HIT_WARN = 99.0
HIT_BAD = 95.0


def hit_text(value: float | None) -> Text:
    """A hit ratio coloured: red below 95 %, yellow below 99 %."""
    if value is None:
        return Text("-", style="dim")
    style = "bold red" if value < HIT_BAD else "yellow" if value < HIT_WARN else "green"
    return marked(f"{value:.2f}%", LOW if value < HIT_WARN else None, style)


def _host_title(h: HostReport) -> Text:
    nodes = ",".join(str(i) for i in h.node_ids) or "-"
    title = Text(h.host, style="bold")
    title.append(f" nodes {nodes}")
    if h.state != "ok":
        title.append(f" {h.state}", style="bold red" if h.state == "error" else "yellow")
    elif h.view is not None and h.view.hidden_disks:
        title.append(f" (+{h.view.hidden_disks} devices not shown)", style="dim")
    return title


def _host_cpu(h: HostReport) -> tuple[Text, Text]:
    """The host's CPU, in the two trend columns of its title row."""
    c = h.view.cpu if h.view is not None and h.state == "ok" else None
    if c is None:
        return Text(h.via, style="dim"), Text("")
    wa = mark(Text(f"wa {pct(c.iowait)}", style="bold red" if (c.iowait or 0) >= 10 else ""),
              ALARM if (c.iowait or 0) >= 10 else None)
    wa.append(" ")
    wa.append(f"id {pct(c.idle)}")
    return Text(f"us {pct(c.user)} sy {pct(c.system)}"), wa


def _host_problems(hosts: list[HostReport], now: float) -> Text:
    out = Text()
    for h in hosts:
        if h.state == "ok":
            continue
        out.append(f"  {h.host}: ", style="bold")
        out.append(h.error or h.state, style="red" if h.state == "error" else "yellow")
        age = h.age(now)
        if age is not None:
            out.append(f" (data {age:.0f}s old)", style="dim")
    return out


def _disk_cells(snap: ClusterSnapshot, d: DiskRates, key: str) -> tuple[object, ...]:
    util = Text(f"{d.util_pct:5.1f} " if d.util_pct is not None else "    - ")
    util.append_text(bar(d.util_pct, 8))
    return (
        Text("  " + d.name),
        number(d.r_s, 1),
        number(d.w_s, 1),
        number(d.rkb_s, 1),
        number(d.wkb_s, 1),
        number(d.wareq_kb, 1),
        marked(number(d.await_ms, 1), ALARM if (d.await_ms or 0) > 20 else None,
               "bold red" if (d.await_ms or 0) > 20 else ""),
        util,
        sparkline(snap.series(f"disk.w_s.{key}"), 16),
        sparkline(snap.series(f"disk.util.{key}"), 16, hi=100.0),
    )


class DiskView(View):
    """Host iostat and the data nodes' disk activity."""

    title = "Disk"

    DEFAULT_CSS = """
    DiskView .caption { height: 1; padding: 0 1; }
    DiskView #host { height: auto; max-height: 24; }
    DiskView #nodes { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Plain(classes="caption", id="host_caption")
        yield KeyedTable(HOST_COLUMNS, id="host", drop=("utrend", "wtrend", "rkb", "r_s"))
        yield Plain(classes="caption", id="node_caption")
        yield KeyedTable(NODE_COLUMNS, id="nodes",
                         drop=("hit_trend", "req", "redo_used", "lcp"))

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        hosts = sorted(snap.hosts, key=lambda h: -(h.util_pct or 0.0))
        caption = Text("Host disks", style="bold")
        if not hosts:
            src = snap.source("host")
            caption.append(f": {src.error if src and src.error else 'not read'}", style="dim")
        else:
            caption.append(f"  {len(hosts)} host(s), busiest disk first", style="dim")
            caption.append_text(_host_problems(hosts, now))
        self.put("#host_caption", stale_mark(snap, "host") + caption, layout=False)
        rows: list[tuple[str, tuple[object, ...]]] = []
        blank = ("",) * (len(HOST_COLUMNS) - 3)
        for h in hosts:
            rows.append((f"h:{h.host}", (_host_title(h), *blank, *_host_cpu(h))))
            for d in h.view.disks if h.view is not None and h.state == "ok" else ():
                if not self.matches(d.name) and not self.matches(h.host):
                    continue
                # The hub's own host source keeps its series under the disk name alone.
                key = f"{h.host}/{d.name}"
                if not snap.series(f"disk.w_s.{key}"):
                    key = d.name
                rows.append((f"d:{h.host}/{d.name}", _disk_cells(snap, d, key)))
        self.query_one("#host", KeyedTable).sync(rows)

        ni = snap.ndbinfo
        node_caption = Text("Data nodes", style="bold")
        if ni is None:
            src = snap.source("ndbinfo")
            why = src.error if src and src.error else "not read yet"
            node_caption.append(f": no ndbinfo ({why})", style="dim")
        else:
            for panel, why in ni.unavailable:
                if panel in ("disk_page_buffer", "disk_write_speed", "log_spaces"):
                    node_caption.append(f"  {panel}: {why}", style="yellow")
        self.put("#node_caption", stale_mark(snap, "ndbinfo") + node_caption, layout=False)
        speeds = {w.node_id: w for w in ni.disk_write_speed} if ni else {}
        redo: dict[int, float] = {}
        for r in ni.log_spaces if ni else ():
            if r.log_type == "REDO" and r.used_pct is not None:
                redo[r.node_id] = max(redo.get(r.node_id, 0.0), r.used_pct)
        hits = {h.node_id: h for h in snap.hit_ratios}
        node_ids = sorted(set(speeds) | set(redo) | set(hits))
        node_rows = []
        for node_id in node_ids:
            if not self.matches(node_id):
                continue
            w = speeds.get(node_id)
            h = hits.get(node_id)
            used = Text(f"{redo[node_id]:4.0f}% " if node_id in redo else "   - ")
            used.append_text(bar(redo.get(node_id), 8, warn=60, crit=80))
            node_rows.append(
                (
                    str(node_id),
                    (
                        Text(str(node_id), style="bold"),
                        rate_bytes(w.redo_last_sec if w else None),
                        rate_bytes(w.backup_lcp_last_sec if w else None),
                        used,
                        hit_text(h.since_start_pct if h else None),
                        hit_text(h.interval_pct if h else None),
                        sparkline(snap.series(f"hit.interval.{node_id}"), 16, lo=90.0, hi=100.0),
                        number(h.requests_per_s if h else None),
                    ),
                )
            )
        self.query_one("#nodes", KeyedTable).sync(node_rows)

    def selected_node(self) -> int | None:
        key = self.query_one("#nodes", KeyedTable).selected_key
        return None if key is None else int(key)
