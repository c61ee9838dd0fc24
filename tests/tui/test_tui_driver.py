"""The live view's terminal driver: keys (a lone Escape too) reach the app, the input
thread sleeps while no key comes, and quitting ends the thread at once."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

from textual.drivers.linux_driver import LinuxDriver

from ndbtop.actions.audit import AuditLog
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.driver import QuietLinuxDriver

LIMIT = 30.0
"""Seconds a step may take before the test fails (a hang, not a target)."""
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


def test_keys_reach_the_app_and_the_input_thread_sleeps_without_them(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "ndbtop", "demo", "--scenario",
                                   "threads", "--audit-log", str(tmp_path / "audit")], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    shown = bytearray()

    def pump(until: float) -> None:
        while time.monotonic() < until:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                shown.extend(chunk)

    def wait(what: str, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + LIMIT
        while not done():
            assert time.monotonic() < deadline, f"no {what}"
            pump(time.monotonic() + 0.1)

    try:
        wait("first screen", lambda: b"Nodes" in shown)
        os.write(fd, b"?")
        wait("help", lambda: b"ndbtop keys" in shown)
        # A lone Escape is told apart from the start of a key's sequence and closes the help.
        del shown[:]
        os.write(fd, b"\x1b")
        wait("the help closed", lambda: b"1 Nodes" in shown)
        os.write(fd, b"2")
        wait("the Threads view", lambda: b"threads (one cell each" in shown)
        # Past the second after the last key, the thread waits for input without waking.
        pump(time.monotonic() + 1.5)
        task = _input_thread(pid)
        before = _wakeups(task)
        pump(time.monotonic() + QUIET_S)
        assert _wakeups(task) - before <= 2
        os.write(fd, b"q")
        deadline = time.monotonic() + LIMIT
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            assert time.monotonic() < deadline, "still running after q"
            pump(time.monotonic() + 0.1)
        pid = 0
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
