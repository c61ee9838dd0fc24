"""Driving the live view: the real app, hub and simulator, a headless 120x40 terminal.

``tui(...)`` starts a scenario's simulator (management server and SQL node on
loopback ports), the demo's hub and :class:`NdbtopApp` under Textual's pilot.
Simulated time either runs by itself (``speed``) or moves only when the test
calls :meth:`Tui.advance` (``manual=True``). Tests wait for what the screen
shows with :meth:`Tui.until`, never for a fixed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Checkbox, TabbedContent

from ndbtop.actions.audit import AuditLog
from ndbtop.collect.hub import Hub
from ndbtop.demo.hub import demo_hub
from ndbtop.sim.clock import SimClock
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.app import VIEWS, NdbtopApp
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.source import SnapshotSource
from ndbtop.tui.widgets.keyed_table import KeyedTable

SIZE = (120, 40)
"""Terminal size of every test and screenshot."""

WAIT = 30.0
"""Real seconds a test waits for something it expects on screen before failing: a bound
for a hang, never a target (a test waits only as long as the screen takes; on two cores
shared with other work a redraw can take seconds)."""

INTERVAL = 0.25
"""Refresh interval of the live tests (real seconds)."""

VIEW_KEYS = {str(key % 10): name for key, (name, _) in enumerate(VIEWS, start=1)}


async def wait_until(predicate: Callable[[], object], what: str, timeout: float = WAIT) -> None:
    """Wait, letting the app under test run, until ``predicate()`` is true (for tests that
    drive ``App.run_test`` themselves)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.025)


async def _yield_to_the_loop(min_sleep: float = 0.0, max_sleep: float = 0.0) -> None:
    for _ in range(3):
        await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def no_idle_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Key presses wait for the app's queues, not for the process to look idle.

    Textual's pilot waits after every key until the process spends no CPU for
    a moment (at most a second). With the simulator and its SQL node in the
    same process that moment rarely comes, so every key would cost a second;
    tests wait for what they expect on screen instead.
    """
    import textual.app
    import textual.pilot

    monkeypatch.setattr(textual.app, "wait_for_idle", _yield_to_the_loop)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", _yield_to_the_loop)


@pytest.fixture(autouse=True)
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Times in UTC; the app's console as wide as the terminal (it wraps the event log)."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("COLUMNS", str(SIZE[0]))
    monkeypatch.setenv("LINES", str(SIZE[1]))
    monkeypatch.delenv("NO_COLOR", raising=False)
    time.tzset()


def plain(cell: object) -> str:
    """A table cell's text without its style."""
    return cell.plain if isinstance(cell, Text) else str(cell)


class Tui:
    """The running app and what a test needs around it."""

    def __init__(
        self,
        app: NdbtopApp,
        pilot: Pilot[int],
        sim: Simulator | None,
        audit: AuditLog,
        manual: Any,
        notes: list[tuple[str, str]],
    ) -> None:
        self.app = app
        self.pilot = pilot
        self.sim = sim
        self.audit = audit
        self.manual = manual
        self.notes = notes
        """Every notification shown: (message, severity)."""

    @property
    def hub(self) -> Hub:
        """The demo hub the app reads."""
        assert isinstance(self.app.hub, Hub)
        return self.app.hub

    def text(self) -> str:
        """The whole screen as plain text."""
        return screen_text(self.app)

    def header(self) -> str:
        """The two header lines."""
        return "\n".join(self.text().splitlines()[:2])

    async def footer(self) -> str:
        """The footer's keys, once it drew them."""
        await self.until(lambda: "q Quit" in self.text().splitlines()[-1], "the footer")
        return self.text().splitlines()[-1]

    async def until(
        self, predicate: Callable[[], object], what: str, timeout: float = WAIT
    ) -> None:
        """Wait (letting the app run) until ``predicate()`` is true."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(
                    f"timed out after {timeout} s waiting for {what}; screen:\n{self.text()}"
                )
            await asyncio.sleep(0.025)

    async def until_shown(self, fragment: str, timeout: float = WAIT) -> None:
        """Wait until ``fragment`` is on screen."""
        await self.until(lambda: fragment in self.text(), repr(fragment), timeout)

    async def press(self, *keys: str) -> None:
        """Press keys one by one, each handled by the app before the next."""
        for key in keys:
            await self.pilot.press(key)
            await self.pilot.pause()

    async def tick(self, selector: str) -> None:
        """Toggle a checkbox of the screen on top as a click does (it takes the focus, then
        toggles), from the keyboard: a click lands where the box was drawn, and a dialog
        that grows by a line on a refresh moves it."""
        box = self.app.screen.query_one(selector, Checkbox)
        box.focus()
        await self.until(lambda: box.has_focus, f"{selector} focused")
        await self.press("space")

    async def view(self, key: str) -> None:
        """Press a view's number and wait until the view shows and has the keyboard.

        A switch travels through a few messages (the view draws, its table takes
        the focus, its pane tells the tabs); the next key comes after them, as it
        would from a person at a terminal.
        """
        name = VIEW_KEYS[key]
        await self.press(key)
        tabs = self.app.query_one("#tabs", TabbedContent)
        pane = self.app.query_one(f"#{name}")

        def settled() -> bool:
            focused = self.app.focused
            return (
                tabs.active == name
                and self.app.current_view.snapshot is not None
                and (focused is None or pane in focused.ancestors_with_self)
            )

        await self.until(settled, f"the {name} view")

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass (manual time only) and poll at once."""
        assert self.manual is not None, "the simulation runs by itself"
        self.manual.advance(seconds)
        self.sim.sync()
        self.hub.refresh_now()

    def table(self, selector: str) -> KeyedTable:
        """A table of the visible view (``#nodes``, ``#detail``...)."""
        return self.app.current_view.query_one(selector, KeyedTable)

    def cell(self, selector: str, row: str, column: str) -> str:
        """The text of one cell of a table of the visible view."""
        table = self.table(selector)
        return plain(table.get_cell(row, column))

    def row_keys(self, selector: str) -> list[str]:
        """The row keys of a table, in display order."""
        return [str(row.key.value) for row in self.table(selector).ordered_rows]

    def node_status(self, node_id: int) -> str:
        """The status the Nodes table shows for a node."""
        return (
            self.app.query_one("#view-nodes")
            .query_one("#nodes", KeyedTable)
            .get_cell(str(node_id), "status")
            .plain
        )

    def cluster_state(self, node_id: int) -> str:
        """The simulated data node's state as ``get status`` would report it."""
        return self.sim.cluster.data_nodes[node_id].state

    async def collected(self, snapshots: int = 2) -> None:
        """Wait until the hub has read status and ndbinfo ``snapshots`` more times."""

        def marks() -> tuple[float, float]:
            snap = self.hub.snapshot()
            return tuple(  # type: ignore[return-value]
                (s.last_ok or 0.0) if (s := snap.source(name)) else 0.0
                for name in ("mgm", "ndbinfo")
            )

        start = marks()
        seen = [start]

        def moved() -> bool:
            now = marks()
            if now != seen[-1]:
                seen.append(now)
            return len({m[0] for m in seen}) > snapshots and len({m[1] for m in seen}) > snapshots

        await self.until(moved, f"{snapshots} more readings")


@pytest.fixture
def screen() -> Callable[[App[Any]], str]:
    """:func:`screen_text`: the screen of a running app as plain text."""
    return screen_text


@pytest.fixture
def tui(
    tmp_path: Path, manual_time: Any
) -> Callable[..., contextlib.AbstractAsyncContextManager[Tui]]:
    """Run the live view on a simulated scenario: ``async with tui("threads", ...) as t``.

    ``speed`` runs simulated time by itself (after the event listener is
    connected, as the demo does); ``manual=True`` moves it only with
    :meth:`Tui.advance`. ``ready`` tells when the first picture is the one the test
    starts from. ``make_hub`` builds the hub from the running simulator and the
    interval (the demo's hub by default). ``scenario`` may also be a cluster built
    by the test.
    """

    @contextlib.asynccontextmanager
    async def run(
        scenario: str | SimCluster = "threads",
        *,
        speed: float = 50.0,
        manual: bool = False,
        interval: float = INTERVAL,
        read_only: bool = False,
        ready: Callable[[NdbtopApp], bool] | None = None,
        make_hub: Callable[[Simulator, float], Hub] = demo_hub,
        size: tuple[int, int] = SIZE,
    ) -> AsyncIterator[Tui]:
        if isinstance(scenario, SimCluster):
            cluster, scenario = scenario, scenario.config.name
        else:
            cluster = build_scenario(scenario, ScenarioOptions(seed=1))
        time_source = manual_time if manual else None
        if time_source is not None:
            clock = SimClock(speed=1.0, real=time_source, start_at=cluster.now)
        else:
            clock = SimClock(speed=1.0, start_at=cluster.now)
        sim = Simulator(cluster, clock)
        audit = AuditLog(tmp_path / "audit.log")

        async def start() -> Hub:
            await sim.start(sql_port=0)
            hub = make_hub(sim, interval)
            if time_source is None and hub.events is not None:
                events = hub.events
                sim.speed_up_when(lambda: events.listening_levels is not None, speed)
            return hub

        app = NdbtopApp(start, stop=sim.close, read_only=read_only, audit=audit, simulated=scenario)
        notes = record_notifications(app)
        try:
            async with app.run_test(size=size) as pilot:
                t = Tui(app, pilot, sim, audit, time_source, notes)
                await t.until(
                    lambda: (
                        app.hub is not None
                        and app.current_view.snapshot is not None
                        and app.current_view.snapshot.nodes
                        and (ready is None or ready(app))
                    ),
                    "the first status reading on screen",
                )
                yield t
        finally:
            await sim.close()

    return run


def record_notifications(app: NdbtopApp) -> list[tuple[str, str]]:
    """Keep every notification the app shows, as (message, severity)."""
    notes: list[tuple[str, str]] = []
    notify = app.notify

    def recorded(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append((message, str(kwargs.get("severity", "information"))))
        notify(message, *args, **kwargs)

    app.notify = recorded  # type: ignore[method-assign]
    return notes


@pytest.fixture
def tui_on(tmp_path: Path) -> Callable[..., contextlib.AbstractAsyncContextManager[Tui]]:
    """Run the live view on a given source: ``async with tui_on(FrozenSource(...)) as t``.

    No simulator runs (``t.sim`` is None); ``replay=True`` opens the view as
    ``ndbtop replay`` does, for a :class:`~ndbtop.record.replay.ReplaySource`;
    ``fleet=True`` as a cluster of the fleet overview (``F`` goes there).
    """

    @contextlib.asynccontextmanager
    async def run(
        source: SnapshotSource, *, replay: bool = False, size: tuple[int, int] = SIZE,
        fleet: bool = False,
    ) -> AsyncIterator[Tui]:
        async def start() -> SnapshotSource:
            return source

        audit = AuditLog(tmp_path / "audit.log")
        app = NdbtopApp(start, audit=audit, replay=replay, fleet=fleet)
        notes = record_notifications(app)
        async with app.run_test(size=size) as pilot:
            t = Tui(app, pilot, None, audit, None, notes)
            await t.until(
                lambda: app.hub is not None and app.current_view.snapshot is not None,
                "the first snapshot on screen",
            )
            yield t

    return run


PTY_LIMIT = 30.0
"""Seconds a step of a program in a pseudo-terminal may take before the test fails (a hang,
not a target)."""


class PtyProgram:
    """``python -m ndbtop ARGS`` in a 120x40 pseudo-terminal, and what it has drawn."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child
            os.execve(sys.executable, [sys.executable, "-m", "ndbtop", *args], env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.pid = pid
        self.fd = fd
        self.shown = bytearray()

    def write(self, keys: bytes) -> None:
        """Type ``keys``."""
        os.write(self.fd, keys)

    def hang_up(self) -> None:
        """Close the terminal, as a dropped SSH session does."""
        os.close(self.fd)
        self.fd = -1

    def pump(self, until: float) -> None:
        """Read what the program draws until the monotonic time ``until``."""
        if self.fd < 0:
            time.sleep(max(until - time.monotonic(), 0))
            return
        while time.monotonic() < until:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.shown.extend(chunk)

    def settle(self, quiet: float = 0.3) -> None:
        """Read until the program has drawn nothing for ``quiet`` seconds (the rest of a
        screen it was sending)."""
        deadline = time.monotonic() + PTY_LIMIT
        while True:
            before = len(self.shown)
            self.pump(time.monotonic() + quiet)
            if len(self.shown) == before:
                return
            assert time.monotonic() < deadline, "the program never stopped drawing"

    def wait(self, what: str, done: Callable[[], bool]) -> None:
        """Read until ``done()`` holds; fail naming ``what`` after :data:`PTY_LIMIT`."""
        deadline = time.monotonic() + PTY_LIMIT
        while not done():
            assert time.monotonic() < deadline, f"no {what}"
            self.pump(time.monotonic() + 0.1)

    def exit_code(self, after: str) -> int:
        """The program's exit status, once it has ended (``after`` names what ends it)."""
        deadline = time.monotonic() + PTY_LIMIT
        while True:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.pid = 0
                return os.waitstatus_to_exitcode(status)
            assert time.monotonic() < deadline, f"still running after {after}"
            self.pump(time.monotonic() + 0.1)

    def close(self) -> None:
        """Kill the program if it still runs."""
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.fd >= 0:
            os.close(self.fd)


@pytest.fixture
def pty_program(tmp_path: Path) -> Iterator[Callable[[list[str]], PtyProgram]]:
    """Start ndbtop in a pseudo-terminal, with its home and state under ``tmp_path``."""
    started: list[PtyProgram] = []
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("NO_COLOR", None)

    def start(args: list[str]) -> PtyProgram:
        started.append(PtyProgram(args, env))
        return started[-1]

    yield start
    for program in started:
        program.close()
