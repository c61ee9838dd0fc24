"""``ndbtop export`` as a process: quiet in the journal, clean on SIGTERM, clear on bad input."""

from __future__ import annotations

import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from export_helpers import fetch

from ndbtop.cli import main
from ndbtop.cli.export import parse_listen
from ndbtop.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 20.0


class Lines:
    """The stderr lines of a process, read in a thread."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self.queue: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self.queue.put(line.rstrip("\n"))

    def drain(self) -> list[str]:
        while True:
            try:
                self.seen.append(self.queue.get_nowait())
            except queue.Empty:
                return self.seen

    def wait_for(self, part: str) -> str:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for line in self.drain():
                if part in line:
                    return line
            time.sleep(0.02)
        raise AssertionError(f"no line with {part!r} in {self.seen}")


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port held by a socket that does not listen: connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_quiet_while_scraped_and_clean_exit_on_sigterm(refused_port: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ndbtop", "export", "-c", f"127.0.0.1:{refused_port}",
         "--no-sql", "--no-host", "--listen", "127.0.0.1:0", "--interval", "0.2"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = Lines(proc.stderr)
        serving = lines.wait_for("serving http://127.0.0.1:")
        url = serving.split()[3]
        lines.wait_for("mgm retrying")
        before = list(lines.drain())
        for _ in range(30):
            status, _, body = fetch(url)
            assert status == 200
            assert b'ndbtop_source_up{source="mgm"} 0.0' in body
        # The management server is still refused: no new state, no new line.
        assert lines.drain() == before
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(DEADLINE) == 0
        assert lines.wait_for("stopped") == "ndbtop export: stopped"
        assert not [line for line in lines.drain() if "Traceback" in line]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_listen_forms() -> None:
    assert parse_listen("127.0.0.1:11186") == ("127.0.0.1", 11186)
    assert parse_listen("[::1]:9000") == ("::1", 9000)
    assert parse_listen(":9000") == ("", 9000)
    assert parse_listen("9000") == ("127.0.0.1", 9000)
    for bad in ("host:port", "::1:9000", "1.2.3.4:70000", ""):
        with pytest.raises(UsageError):
            parse_listen(bad)


def test_a_taken_port_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                               refused_port: int) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        taken = s.getsockname()[1]
        code = main(["export", "-c", f"127.0.0.1:{refused_port}", "--no-sql", "--no-host",
                     "--listen", f"127.0.0.1:{taken}"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"ndbtop: error: cannot listen on 127.0.0.1:{taken}: Address already in use\n"


def test_export_speaks_tls_to_a_management_server_that_requires_it(tmp_path: Path) -> None:
    directory = tmp_path / "ndb-tls"
    sim = subprocess.Popen(
        [sys.executable, "-m", "ndbtop", "sim", "--scenario", "threads", "--no-sql",
         "--require-tls", "--tls-dir", str(directory)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc = None
    try:
        assert sim.stdout is not None
        command = next((line.split() for line in sim.stdout
                        if line.strip().startswith("ndbtop -c ")), None)
        assert command is not None
        proc = subprocess.Popen(
            [sys.executable, "-m", "ndbtop", "export", *command[1:], "--no-host",
             "--listen", "127.0.0.1:0"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines = Lines(proc.stderr)
        url = lines.wait_for("serving http://127.0.0.1:").split()[3]
        lines.wait_for("mgm connected")
        deadline = time.monotonic() + DEADLINE
        started = b'node_type="NDB",status="STARTED"} 1.0'
        while started not in (body := fetch(url)[2]):
            assert time.monotonic() < deadline, body
            time.sleep(0.05)
        assert body.count(started) == 2
        assert "--ndb-mgm-tls" in command and "strict" in command
    finally:
        for p in (proc, sim):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(10)
