"""What every benchmark runs on: the simulator in its own process, and ndbtop in a
pseudo-terminal whose CPU, memory and output are measured."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import socket
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
if sys.path[1:2] != [str(ROOT)]:
    # What is measured in this process is the tree the benchmark sits in, as what runs in
    # a terminal is (``python -m ndbtop`` from ROOT), not whichever ndbtop is installed.
    sys.path.insert(1, str(ROOT))

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SimProcess:
    """``ndbtop sim`` in its own process."""

    def __init__(self, scenario: str, speed: float = 1.0, extra: tuple[str, ...] = ()) -> None:
        self.mgm_port = free_port()
        self.sql_port = free_port()
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "ndbtop", "sim", "--scenario", scenario, "--speed", str(speed),
             "--mgm-port", str(self.mgm_port), "--sql-port", str(self.sql_port), *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith("Ctrl-C"):
                return
        raise RuntimeError("the simulator did not start")

    @property
    def args(self) -> list[str]:
        return ["-c", f"127.0.0.1:{self.mgm_port}", "--mysql-host", "127.0.0.1",
                "--mysql-port", str(self.sql_port), "--mysql-user", "root", "--no-host"]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Terminal:
    """ndbtop in a 120x40 pseudo-terminal: its CPU, memory and every byte it draws."""

    def __init__(self, argv: list[str], cols: int = 120, rows: int = 40,
                 state_home: str = "/tmp/ndbtop-bench-state") -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows),
                   XDG_STATE_HOME=state_home)
        self.started = time.monotonic()
        self.proc = subprocess.Popen([PYTHON, "-m", "ndbtop", *argv], cwd=ROOT, stdin=slave,
                                     stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.ps = psutil.Process(self.proc.pid)
        self.output = bytearray()
        self.total_bytes = 0

    def pump(self, seconds: float) -> None:
        """Read what the program draws for ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], min(left, 0.1))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                self.total_bytes += len(chunk)
                self.output += chunk
                if len(self.output) > 2_000_000:
                    del self.output[:1_000_000]

    def wait_for(self, marker: bytes, timeout: float) -> float | None:
        """Seconds from start until ``marker`` was drawn (None on timeout)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.02)
            if marker in self.output:
                return time.monotonic() - self.started
        return None

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def cpu_seconds(self) -> float:
        t = self.ps.cpu_times()
        return t.user + t.system

    def rss_mb(self) -> float:
        return self.ps.memory_info().rss / 1024 / 1024

    def stop(self) -> None:
        self.press("q")
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.master)
