"""A private sshd on loopback aliases, keys made for the run, and stand-in data nodes.

sshd listens on 127.0.0.2, 127.0.0.3 and 127.0.0.4 (Linux routes all of 127/8 to lo)
at one port the kernel picked; the client's configuration (``-F``) trusts the real host
key for .2 and .3 and a different key for .4 (a host-key mismatch). 127.0.0.5 has no
sshd. The client never reads ~/.ssh: its config, identity and known_hosts are in the
run's temporary directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ndbtop.host.remote import SshOptions
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario

HERE = Path(__file__).parent
GOOD_HOSTS = ("127.0.0.2", "127.0.0.3")
MISMATCH_HOST = "127.0.0.4"
NO_SSHD_HOST = "127.0.0.5"
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


@dataclass(frozen=True)
class PrivateSshd:
    """The running sshd and the client options that reach it."""

    port: int
    config: Path
    options: SshOptions
    tmp: Path
    log: list[str]


def _free_port() -> int:
    """A port free on every alias (Linux routes all of 127/8 to lo: no alias to set up)."""
    try:
        with socket.socket() as s:
            s.bind((GOOD_HOSTS[0], 0))
            port = s.getsockname()[1]
        for host in (*GOOD_HOSTS[1:], MISMATCH_HOST):
            with socket.socket() as s:
                s.bind((host, port))
    except OSError as exc:
        pytest.fail(f"cannot bind the loopback aliases {GOOD_HOSTS} ({exc}): this system "
                    "does not route 127.0.0.0/8 to lo")
    return port


def _keygen(path: Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path.with_suffix(".pub").read_text().strip()


@pytest.fixture(autouse=True)
def alone_on_this_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test here has the machine's stand-in data nodes to itself.

    Every alias is this machine: a stand-in ``ndbmtd`` that a test in another xdist worker
    runs is a data node process on every host these tests read over ssh (a node 10 started
    a second ago). The tests here take one lock shared by the run's workers, so a test sees
    only the stand-ins it started.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with open(shared / "ssh-tests.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateSshd]:
    """A private sshd for the session (as root it needs sshd's privilege-separation dir)."""
    if not os.path.exists(SSHD):
        pytest.fail("sshd not installed: .ci/run installs openssh-server")
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    tmp = tmp_path_factory.mktemp("sshd")
    os.chmod(tmp, 0o700)
    host_pub = _keygen(tmp / "host_key")
    wrong_pub = _keygen(tmp / "other_host_key")
    user_pub = _keygen(tmp / "id_ed25519")
    (tmp / "authorized_keys").write_text(user_pub + "\n")
    os.chmod(tmp / "authorized_keys", 0o600)
    port = _free_port()
    listen = "".join(f"ListenAddress {h}:{port}\n" for h in (*GOOD_HOSTS, MISMATCH_HOST))
    (tmp / "sshd_config").write_text(
        listen
        + f"HostKey {tmp / 'host_key'}\n"
        f"AuthorizedKeysFile {tmp / 'authorized_keys'}\n"
        f"PidFile {tmp / 'sshd.pid'}\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "PermitRootLogin prohibit-password\nStrictModes no\nLogLevel INFO\n"
        "AllowTcpForwarding no\nX11Forwarding no\nPrintMotd no\n"
    )
    known = "".join(f"[{h}]:{port} {host_pub.split(' ', 2)[0]} {host_pub.split()[1]}\n"
                    for h in GOOD_HOSTS)
    known += f"[{MISMATCH_HOST}]:{port} {wrong_pub.split()[0]} {wrong_pub.split()[1]}\n"
    (tmp / "known_hosts").write_text(known)
    config = tmp / "ssh_config"
    config.write_text(
        "Host *\n"
        f"  Port {port}\n"
        f"  User {getpass.getuser()}\n"
        f"  IdentityFile {tmp / 'id_ed25519'}\n"
        "  IdentitiesOnly yes\n"
        "  IdentityAgent none\n"
        f"  UserKnownHostsFile {tmp / 'known_hosts'}\n"
        "  GlobalKnownHostsFile /dev/null\n"
        "  StrictHostKeyChecking yes\n"
        "  ControlMaster no\n"
        "  ControlPath none\n"
        "  LogLevel ERROR\n"
    )
    proc = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(tmp / "sshd_config")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("Server listening on") and str(port) in line:
            listening = sum("Server listening" in s for s in seen)
            if listening == 3:
                break
    else:
        pytest.fail("sshd did not start: " + "".join(seen))
    # sshd keeps logging to stderr: drain it so it never blocks on a full pipe (kept for
    # a failing test's message).
    log: list[str] = seen
    threading.Thread(target=lambda: log.extend(proc.stderr or ()), daemon=True).start()
    opts = SshOptions(config=str(config), options=("ConnectTimeout=3",))
    try:
        yield PrivateSshd(port, config, opts, tmp, log)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


class StandIn:
    """A stand-in ``ndbmtd`` (see standin.py) driven through its stdin."""

    def __init__(self, node_id: int, datadir: Path, angel: bool = False) -> None:
        args = [sys.executable, str(HERE / "standin.py"), str(node_id), str(datadir)]
        args.append("--angel" if angel else f"--ndb-nodeid={node_id}")
        self.node_id = node_id
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline().split()
        assert ready[:1] == ["ok"]
        self.tids = tuple(int(t) for t in ready[1:])
        """The kernel ids of its two working threads (all its threads' comm is ndbmtd)."""

    def send(self, command: str) -> None:
        """Run one command and wait for its ``ok``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "ok"

    def stop(self) -> None:
        """End the stand-in and its child."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(10)


@pytest.fixture
def standins(tmp_path: Path) -> Iterator[list[StandIn]]:
    """Stand-in data nodes started by a test, stopped after it."""
    started: list[StandIn] = []
    yield started
    for s in started:
        s.stop()


def s1_with_node_10_creating_its_redo_log(
    threaded_sim: Any, standins: list[StandIn], tmp_path: Path
) -> Any:
    """S1 at 600 s, served: nodes 10 and 11 STARTING an initial start with the default
    StartupStatusReportFrequency=0 (no progress reports), their hosts at GOOD_HOSTS. A
    stand-in node 10 on this machine has its FragLog files open; node 11's host has no
    such process."""
    node = StandIn(10, tmp_path)
    standins.append(node)
    for part, file_no in ((0, 5), (1, 4), (2, 5), (3, 3)):
        # Each part created its files in order: its first, S0, is the oldest.
        node.send(f"redo {part} 0")
        node.send(f"redo {part} {file_no}")
    cluster = build_scenario("initial-start", ScenarioOptions(data_node_hosts=GOOD_HOSTS))
    cluster.advance_to(600.0)
    return threaded_sim(cluster, speed=1.0)


