"""The header: which servers ndbtop talks to, how fresh each source is, and the badges."""

from __future__ import annotations

import datetime as dt
import re

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical

from ndbtop.compat import zip_strict
from ndbtop.model.locks_read import long_transaction
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import ON_DEMAND, SourceState, SourceStatus
from ndbtop.model.summary import single_user_text, summarize
from ndbtop.tui.context_label import ContextLabel, label_text
from ndbtop.tui.safe import Plain, Text

_LABELS = {"mgm": "mgm", "config": "config", "events": "events", "ndbinfo": "ndbinfo",
           "host": "host"}
_ADDRESS = re.compile(r"^\S+:\d+: ")
"""A leading ``host:port: `` of a management server's error."""


def source_text(src: SourceStatus, now: float, interval: float) -> Text:
    """``mgm 0s`` in green, ``ndbinfo stale 12s, retrying`` in red, ``host off`` dimmed."""
    label = _LABELS.get(src.name, src.name)
    if src.others:
        # Several SQL nodes: name the one read from, and how the others stand.
        host = src.target.rpartition("@")[2]
        label = f"{label} {host}" if host else label
        states = ", ".join(_other(o) for o in src.others)
        label = f"{label} ({states})"
    if src.state is SourceState.DISABLED:
        return Text(f"{label} off", style="dim")
    age = src.age(now)
    if src.state is SourceState.CONNECTED and src.name in ON_DEMAND:
        return Text(label, style="green")
    if src.state is SourceState.CONNECTED and not src.stale(now, interval):
        # Whole seconds: tenths would change the line, and redraw it, at every refresh.
        shown = f"{label} {age:.0f}s" if age is not None else label
        text = Text(shown, style="green")
        if src.unavailable:
            parts = ", ".join(part for part, _ in src.unavailable)
            text.append(f" (no {parts})", style="yellow")
        return text
    if src.state is SourceState.CONNECTED:
        # A source connected that never answered has no age: stale, without a figure.
        return Text(f"{label} stale" + (f" {age:.0f}s" if age is not None else ""),
                    style="yellow")
    if src.state is SourceState.CONNECTING:
        return Text(f"{label} connecting", style="yellow")
    if src.state is SourceState.UNAVAILABLE:
        stale = f" (data {age:.0f}s old)" if age is not None else ""
        return Text(f"{label} waiting: {src.error or 'unavailable'}{stale}", style="yellow")
    retry = ""
    if src.retry_at is not None:
        retry = f", retry in {max(src.retry_at - now, 0):.0f}s"
    stale = f" stale {age:.0f}s" if age is not None else ""
    return Text(f"{label}{stale} lost{retry}", style="bold red")


REASONED = ("mgm", "ndbinfo")
"""Sources whose failure the sources' line explains (the others fail with them)."""


def reasons_text(sources: list[SourceStatus]) -> Text:
    """`` · mgm: connection refused · ndbinfo: access denied for monitor@sql1:3306``: why
    each source the cluster is read through cannot be read, after the sources' states
    (the management server's address is the first line's)."""
    out = Text()
    for src in sources:
        if src.name not in REASONED or src.state is not SourceState.RETRYING:
            continue
        why = failure_reason(src)
        if src.name == "mgm":
            why = _ADDRESS.sub("", why, count=1)
        if why:
            out.append(" · ", style="dim")
            out.append(f"{_LABELS.get(src.name, src.name)}: {why}", style="bold red")
    return out


def failure_reason(src: SourceStatus) -> str:
    """Why a source cannot be read, short: ``access denied for monitor@sql1:3306``,
    ``127.0.0.1:1186: connection refused``, ``cannot resolve host``..."""
    error = (src.error or "").strip()
    if error.lower().startswith("access denied") and src.target:
        return f"access denied for {src.target}"
    return error.removeprefix("cannot connect to a management server: ")


def no_mgm_text(snap: ClusterSnapshot) -> Text:
    """``no management server: 10.0.0.1:1186: connection refused``: where ndbtop tried
    and why it got no answer (refused, cannot resolve, timed out, TLS refused)."""
    src = snap.source("mgm")
    why = failure_reason(src) if src is not None else ""
    if why:
        return Text(f"no management server: {why}", style="bold red")
    where = f" at {src.target}" if src is not None and src.target else ""
    return Text(f"no management server{where} yet", style="bold red")


def _other(text: str) -> str:
    """``sql1:3306 down`` from ``user@sql1:3306 down: <error>``."""
    target, _, rest = text.partition(" ")
    return f"{target.rpartition('@')[2]} {rest.split(':', 1)[0]}"


def _used(line: Text) -> int:
    """Columns a line needs (a badge's trailing space may be cut)."""
    return Text(line.plain.rstrip()).cell_len


HOST_SOURCE_PREFIX = "host "
"""Name prefix of the sources of data node hosts read over SSH (``host db1``)."""


def hosts_text(hosts: list[SourceStatus]) -> Text:
    """`` · ssh hosts 46/48 (db7 retrying, db9 retrying)``: hosts read, the failing named."""
    ok = sum(1 for h in hosts if h.state is SourceState.CONNECTED)
    failing = [h for h in hosts if h.state is not SourceState.CONNECTED]
    out = Text(" · ", style="dim")
    out.append(f"ssh hosts {ok}/{len(hosts)}", style="" if not failing else "yellow")
    if failing:
        named = ", ".join(f"{h.target} {h.state.value}" for h in failing[:2])
        more = f" +{len(failing) - 2}" if len(failing) > 2 else ""
        out.append(f" ({named}{more})", style="yellow")
    return out


def long_transaction_text(snap: ClusterSnapshot, *, details: bool = True) -> Text:
    """``  txn idle 612 s (read 3 s ago)``: the oldest transaction of the last read of
    ``cluster_transactions`` when it passed ndbtop's 60 s; the table is read only while the
    Locks view shows (or ``--once``), never for the header, so the read's age is said."""
    found = long_transaction(snap)
    if found is None:
        return Text()
    txn, age = found
    out = Text("  ")
    out.append(f"txn idle {txn.inactive_s} s", style="bold yellow")
    where = f"node {txn.node_id}, api {txn.api_node}; " if details else ""
    out.append(f" ({where}read {age:.0f} s ago)", style="yellow")
    return out


class StatusHeader(Vertical):
    """Two lines: the cluster and its sources; badges for PAUSED, READ-ONLY, SIMULATED.

    ``replay`` is the replay's position and speed (a REPLAY badge), ``recording`` the
    file the flight recorder writes to (a ● REC badge); None when there is none.

    Each line is its own widget and is drawn again only when it changed: the first
    changes every second (the clock), the sources' line seldom.
    """

    DEFAULT_CSS = """
    StatusHeader { height: 2; background: $boost; padding: 0 1; }
    StatusHeader > Plain { height: 1; }
    """

    def __init__(self, *, read_only: bool, simulated: str | None = None,
                 context: ContextLabel | None = None) -> None:
        super().__init__()
        self.context = context
        """The context the view is of: its name in its colour begins the first line."""
        self.read_only = read_only
        self.simulated = simulated
        self.paused = False
        self.replay: str | None = None
        self.recording: str | None = None
        self._shown: tuple[ClusterSnapshot, float] | None = None
        self._lines: list[Text | None] = [None, None]
        self._widgets = (Plain(id="header-cluster"), Plain(id="header-sources"))

    def compose(self) -> ComposeResult:
        yield from self._widgets

    def on_resize(self, event: events.Resize) -> None:
        """Fit the lines to the new width."""
        if self._shown is not None:
            self.show(*self._shown)

    def show(self, snap: ClusterSnapshot, now: float) -> None:
        """Render the header for ``snap`` with ages measured at ``now`` (monotonic)."""
        self._shown = (snap, now)
        top = self._top(snap, details=True)
        # One line each: a wrapped first line would push the sources' health out of sight.
        width = self.size.width
        if width > 0 and _used(top) > width:
            top = self._top(snap, details=False)
        if width > 0 and _used(top) > width:
            top.truncate(width, overflow="ellipsis")
        bottom = Text()
        # Data node hosts read over SSH are counted together: there may be dozens.
        hosts = [src for src in snap.sources if src.name.startswith(HOST_SOURCE_PREFIX)]
        for i, src in enumerate(s for s in snap.sources if s not in hosts):
            if i:
                bottom.append(" · ", style="dim")
            bottom.append_text(source_text(src, now, snap.interval))
        if hosts:
            bottom.append_text(hosts_text(hosts))
        bottom.append_text(reasons_text(list(snap.sources)))
        bottom.append(f"   refresh {snap.interval:g}s", style="dim")
        if width > 0 and _used(bottom) > width:
            bottom.truncate(width, overflow="ellipsis")
        # Lines of a fixed height: no layout pass of the whole screen is needed.
        for i, (line, widget) in enumerate(zip_strict((top, bottom), self._widgets)):
            if line != self._lines[i]:
                self._lines[i] = line
                widget.update(line, layout=False)

    def _top(self, snap: ClusterSnapshot, *, details: bool) -> Text:
        """The cluster, its version and generation, the time and the badges (the simulator's
        last); without ``details`` (a narrow terminal) only the management server, the
        generation and the badges, so that the badges show."""
        top = Text()
        if self.context is not None:
            top.append_text(label_text(self.context))
            top.append("  ")
        elif details:
            top.append("ndbtop", style="bold")
            top.append("  ")
        if snap.mgm_address:
            mgmds = [n for n in snap.nodes if n.type == "MGM"]
            top.append(f"{snap.mgm_address}", style="bold")
            if len(mgmds) > 1:
                up = sum(1 for n in mgmds if n.status == "CONNECTED")
                top.append(f" ({up}/{len(mgmds)} mgmd up)")
            if details:
                top.append(f"  NDB {snap.mgm_version or '?'}")
            if snap.config is not None:
                top.append(f"  {'config ' if details else ''}gen {snap.config.generation}")
        else:
            top.append_text(no_mgm_text(snap))
        if details:
            when = dt.datetime.fromtimestamp(snap.wall).strftime("%H:%M:%S")
            top.append(f"  {when}")
        top.append_text(long_transaction_text(snap, details=details))
        single = single_user_text(summarize(snap.nodes))
        for badge, on, style in (
            (f" {single} ", single is not None, "bold white on dark_magenta"),
            (" PAUSED ", self.paused, "bold black on yellow"),
            (" READ-ONLY ", self.read_only, "bold white on blue"),
            (f" REPLAY {self.replay} ", self.replay is not None, "bold white on magenta"),
            (f" ● REC {self.recording} ", self.recording is not None, "bold white on red"),
            (f" SIM {self.simulated} ", self.simulated is not None, "bold black on cyan"),
        ):
            if on:
                top.append("  ")
                top.append(badge, style=style)
        return top
