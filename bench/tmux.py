"""A program in a tmux pane of its own tmux server: its CPU, memory and the bytes it writes to
the terminal, and its screen as tmux holds it (``capture-pane``), read through a control-mode
client so that a key and the screen it brings are timed without starting a process each.

The server is private (``tmux -L``): other tmux sessions on the machine are never touched.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import psutil

COLS, ROWS = 120, 40


class TmuxPane:
    """``argv`` running alone in a 120x40 pane of a private tmux server."""

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                 cwd: Path | None = None, name: str = "bench") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ndbtop-bench-tmux-"))
        self.socket = f"ndbtop-bench-{os.getpid()}-{name}"
        self.out = self.dir / "pane.out"
        self.out.touch()
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        command = f"exec env {exports} {shlex.join(argv)}"
        # The pane is sized before the program starts: it never sees a resize.
        self._tmux("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", str(COLS),
                   "-y", str(ROWS), "sleep 3600", ";", "set", "-g", "status", "off", ";",
                   "set", "-g", "window-size", "manual", ";", "set", "-sg", "escape-time", "0",
                   ";", "resize-window", "-t", name, "-x", str(COLS), "-y", str(ROWS))
        self._tmux("respawn-pane", "-k", "-t", name, "-c", str(cwd or Path.cwd()), command)
        self.target = name
        # Every byte the program writes to the pane is also appended to pane.out.
        self._tmux("pipe-pane", "-o", "-t", name, f"cat >> {shlex.quote(str(self.out))}")
        pid = int(self._tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip())
        self.process = psutil.Process(pid)
        self._control: subprocess.Popen[bytes] | None = None

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                              text=True, check=True)
        return done.stdout

    # What the program costs

    def cpu_seconds(self) -> float:
        """User and system CPU seconds of the program and its live children."""
        total = 0.0
        for p in [self.process, *self.process.children(recursive=True)]:
            try:
                t = p.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += t.user + t.system
        return total

    def rss_mb(self) -> float:
        """Resident memory of the program, in MiB."""
        return self.process.memory_info().rss / 1024 / 1024

    def bytes_written(self) -> int:
        """Bytes the program has written to the terminal since the pipe was opened."""
        return self.out.stat().st_size

    # Its screen

    def screen(self) -> str:
        """The pane's text as tmux shows it now."""
        if self._control is None:
            return self._tmux("capture-pane", "-p", "-t", self.target)
        return "\n".join(self.command(f"capture-pane -p -t {self.target}"))

    def wait_for(self, marker: str, timeout: float) -> bool:
        """Whether ``marker`` appeared on the screen within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if marker in self.screen():
                return True
            time.sleep(0.1)
        return False

    def send_keys(self, *keys: str) -> None:
        """Type ``keys`` (tmux key names) into the pane."""
        if self._control is None:
            self._tmux("send-keys", "-t", self.target, *keys)
        else:
            self.command(f"send-keys -t {self.target} {' '.join(keys)}")

    def control(self) -> None:
        """Attach a control-mode client (it sees no output and never resizes the pane)."""
        self._control = subprocess.Popen(
            ["tmux", "-L", self.socket, "-C", "attach-session", "-f", "no-output",
             "-t", self.target], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        # The client first answers for its own attach-session: skip to the mark's answer.
        self._send("display-message -p ndbtop-bench-ready")
        while self._reply() != ["ndbtop-bench-ready"]:
            pass

    def command(self, line: str) -> list[str]:
        """Run one tmux command through the control client; the lines it printed."""
        self._send(line)
        return self._reply()

    def _send(self, line: str) -> None:
        control = self._control
        assert control is not None and control.stdin is not None
        control.stdin.write(line.encode() + b"\n")
        control.stdin.flush()

    def _reply(self) -> list[str]:
        control = self._control
        assert control is not None and control.stdout is not None
        out: list[str] = []
        inside = False
        while True:
            raw = control.stdout.readline()
            if not raw:
                raise RuntimeError("the tmux control client went away")
            text = raw.decode(errors="replace").rstrip("\n")
            if not inside:
                inside = text.startswith("%begin ")
                continue
            if text.startswith(("%end ", "%error ")):
                return out
            out.append(text)

    def stop(self) -> None:
        """Kill the server (and the program in it)."""
        if self._control is not None:
            self._control.kill()
            self._control.wait()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       check=False)
        with contextlib.suppress(psutil.NoSuchProcess, psutil.TimeoutExpired):
            self.process.wait(10)
