"""Running ``ndbtop.pyz`` as a user would, for ``packaging/check_pyz.py`` and the start-up bench.

Standard library only, and Python 3.9 and later: it runs under the interpreter under test's
neighbour, never inside the file it checks.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)"
                  rb"|\x1b[()][0-9A-B]|\x1b[=>]")
FIRST_SCREEN = b"Nodes"
"""Text of the first screen the live view draws (the first view's tab)."""


def plain(output: bytes) -> bytes:
    """``output`` without its escape sequences."""
    return ANSI.sub(b"", output)


def isolated_env(home: Path, extra: dict | None = None) -> dict:
    """An environment with nothing of the caller's but a minimal PATH and the empty ``home``."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TERM": "xterm-256color",
           "LANG": "C.UTF-8", "COLUMNS": "120", "LINES": "40"}
    env.update(extra or {})
    return env


class Terminal:
    """A program in a pseudo-terminal of 120x40, its output kept."""

    def __init__(self, argv: Sequence[str], env: dict) -> None:
        self.started = time.monotonic()
        self.output = b""
        pid, fd = pty.fork()
        if pid == 0:  # the child
            try:
                os.execve(argv[0], list(argv), env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.status: int | None = None

    def read_for(self, seconds: float) -> None:
        """Keep what the program writes during ``seconds`` (less if it exits)."""
        end = time.monotonic() + seconds
        while self.status is None:
            left = end - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    self._reap(block=True)
                    return
                self.output += chunk
            self._reap(block=False)

    def until(self, text: bytes, timeout: float) -> float | None:
        """Seconds from the start until ``text`` is on the screen, or None if it never was."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.status is None:
            if text in plain(self.output):
                return time.monotonic() - self.started
            self.read_for(0.05)
        return time.monotonic() - self.started if text in plain(self.output) else None

    def press(self, keys: bytes) -> None:
        """Type ``keys``."""
        os.write(self.fd, keys)

    def wait(self, timeout: float) -> int | None:
        """The exit status, reading output meanwhile; None if still running after ``timeout``."""
        end = time.monotonic() + timeout
        while self.status is None and time.monotonic() < end:
            self.read_for(min(0.5, max(end - time.monotonic(), 0.01)))
        return self.status

    def kill(self) -> None:
        """End the program if it still runs."""
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            self._reap(block=True)
        os.close(self.fd)

    def _reap(self, block: bool) -> None:
        pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        if pid:
            self.status = os.waitstatus_to_exitcode(status)


def start_sim(argv: Sequence[str], env: dict, timeout: float = 60) -> tuple:
    """Start ``argv`` (``... sim``) and return (process, connectstring, sql options)."""
    proc = subprocess.Popen(list(argv), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    end = time.monotonic() + timeout
    lines = []
    assert proc.stdout is not None
    while time.monotonic() < end:
        line = proc.stdout.readline().decode(errors="replace")
        if not line:
            break
        lines.append(line)
        if line.strip().startswith("ndbtop -c "):
            words = line.split()
            return proc, words[2], words[3:]
    proc.kill()
    proc.wait()
    raise RuntimeError("the simulator did not say how to connect: " + "".join(lines)[-500:])
