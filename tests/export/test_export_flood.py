"""``ndbtop export`` as a process under the attack that exhausted it: 250 connections that
send one byte, then more with four descriptors left to it. A scrape answers in time
throughout, the descriptors it holds stay bounded, and it does not spin.

Every wait polls a condition, with a deadline."""

from __future__ import annotations

import os
import resource
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from export_helpers import fetch
from test_export_process import DEADLINE, ROOT, Lines

from ndbtop.export.http import DEFAULT_LIMITS


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port held by a socket that does not listen: connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def fds_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def slow_connections(port: int, count: int) -> list[socket.socket]:
    out = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        s.sendall(b"G")
        out.append(s)
    return out


def closed(sock: socket.socket) -> bool:
    """Whether the exporter has closed the connection (without waiting)."""
    while select.select([sock], [], [], 0)[0]:
        try:
            if not sock.recv(65536):
                return True
        except ConnectionError:
            return True
    return False


def scrape_in_time(url: str) -> None:
    start = time.monotonic()
    status, _, body = fetch(url)
    assert status == 200 and b"ndbtop_source_up" in body
    assert time.monotonic() - start < 4


def test_slow_connections_and_no_descriptors_left(refused_port: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ndbtop", "export", "-c", f"127.0.0.1:{refused_port}",
         "--no-sql", "--no-host", "--listen", "127.0.0.1:0"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    held: list[socket.socket] = []
    try:
        lines = Lines(proc.stderr)
        url = lines.wait_for("serving http://127.0.0.1:").split()[3]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        scrape_in_time(url)
        before = fds_of(proc.pid)
        held += slow_connections(port, 250)
        scrape_in_time(url)
        assert fds_of(proc.pid) <= before + DEFAULT_LIMITS.connections
        # The slow ones are closed at their header deadline.
        waited = time.monotonic()
        while fds_of(proc.pid) > before:
            assert time.monotonic() - waited < DEFAULT_LIMITS.header_timeout + DEADLINE
            time.sleep(0.05)
        # Four descriptors left: a new connection takes the place of a slow one.
        used = {int(fd) for fd in os.listdir(f"/proc/{proc.pid}/fd")}
        free = [n for n in range(max(used) + 6) if n not in used]
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (free[4], hard))
        held += slow_connections(port, 100)
        lines.wait_for("ndbtop export: cannot accept a connection (Too many open files")
        scrape_in_time(url)
        # Until the last slow ones reach their header deadline the exporter has nothing to
        # do: accepting in a loop would take all that time.
        cpu, start = cpu_seconds(proc.pid), time.monotonic()
        while not all(closed(s) for s in held):
            assert time.monotonic() - start < DEFAULT_LIMITS.header_timeout + DEADLINE
            time.sleep(0.05)
        assert cpu_seconds(proc.pid) - cpu < 0.2 * (time.monotonic() - start)
        scrape_in_time(url)
        assert len([line for line in lines.drain() if "cannot accept" in line]) == 1
        assert not [line for line in lines.drain() if "Traceback" in line]
    finally:
        for s in held:
            s.close()
        proc.terminate()
        proc.wait(DEADLINE)
