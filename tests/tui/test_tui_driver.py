"""The live view's terminal driver: keys (a lone Escape too) reach the app, the input
thread sleeps while no key comes, and quitting ends the thread at once."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from textual.drivers.linux_driver import LinuxDriver

from ndbtop.actions.audit import AuditLog
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.driver import QuietLinuxDriver
from tests.tui.conftest import PtyProgram

QUIET_S = 2.0
"""The window in which the input thread, left without keys, must not wake."""


def test_the_app_runs_on_the_quiet_driver_where_textual_picks_its_linux_driver(
        tmp_path: Path) -> None:
    async def start() -> None:
        raise AssertionError("not started")

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"))  # type: ignore[arg-type]
    assert app.driver_class is QuietLinuxDriver
    assert issubclass(QuietLinuxDriver, LinuxDriver)


def _input_thread(pid: int) -> Path:
    """The input thread of ``pid``: the one thread waiting in select() (the event loop
    waits in epoll, the other threads on locks)."""
    found = [task for task in Path(f"/proc/{pid}/task").iterdir()
             if any(w in (task / "wchan").read_text() for w in ("poll_schedule", "do_select"))]
    assert len(found) == 1, [(t.name, (t / "wchan").read_text()) for t in found]
    return found[0]


def _wakeups(task: Path) -> int:
    """Voluntary context switches of a thread so far."""
    for line in (task / "status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


def test_keys_reach_the_app_and_the_input_thread_sleeps_without_them(
        tmp_path: Path, pty_program: Callable[[list[str]], PtyProgram]) -> None:
    demo = pty_program(["demo", "--scenario", "threads", "--audit-log", str(tmp_path / "a")])
    demo.wait("first screen", lambda: b"Nodes" in demo.shown)
    demo.write(b"?")
    demo.wait("help", lambda: b"ndbtop keys" in demo.shown)
    # A lone Escape is told apart from the start of a key's sequence and closes the help
    # (the tabs are drawn again when it closes, not while it is open).
    demo.settle()
    del demo.shown[:]
    demo.write(b"\x1b")
    demo.wait("the help closed", lambda: b"1 Nodes" in demo.shown)
    demo.write(b"2")
    demo.wait("the Threads view", lambda: b"threads (one cell each" in demo.shown)
    # Past the second after the last key, the thread waits for input without waking.
    demo.pump(time.monotonic() + 1.5)
    task = _input_thread(demo.pid)
    before = _wakeups(task)
    demo.pump(time.monotonic() + QUIET_S)
    assert _wakeups(task) - before <= 2
    demo.write(b"q")
    assert demo.exit_code("q") == 0


def test_the_view_ends_when_its_terminal_goes_away_with_sighup_and_sigcont(
        tmp_path: Path, pty_program: Callable[[list[str]], PtyProgram]) -> None:
    # When a terminal goes away the kernel sends SIGHUP, and SIGCONT to a process group it
    # orphans: a SIGCONT that follows no suspension must not start the terminal's threads
    # again, which would keep the process alive after the view ended.
    demo = pty_program(["demo", "--scenario", "threads", "--audit-log", str(tmp_path / "a")])
    demo.wait("first screen", lambda: b"Nodes" in demo.shown)
    demo.hang_up()
    os.kill(demo.pid, signal.SIGCONT)
    assert demo.exit_code("the terminal went away") == 128 + signal.SIGHUP
