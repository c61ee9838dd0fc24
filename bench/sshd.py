"""Private sshd instances on loopback addresses, with keys made for the run.

``Sshds(hosts, directory)`` serves every address of ``hosts`` (all in 127.0.0.0/8) on one
port the kernel picks, with as many sshd processes as needed (one listens on at most 16
addresses), and writes an ssh_config (``.config``) that reaches them with the run's key
and checks their host key. ``connected()`` tells which addresses have a session open,
as sshd sees it.

Run alone (``python bench/sshd.py --hosts 2``), it serves that many addresses until
Ctrl-C and prints the ssh_config with which ``ndbtop demo --ssh`` reads them.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

PER_SSHD = 16
"""Addresses one sshd listens on at most (sshd's MAX_LISTEN_SOCKS)."""


def loopback_hosts(count: int, prefix: str = "127.0.2.") -> tuple[str, ...]:
    """``count`` addresses ``127.0.2.1``, ``127.0.2.2``, ... (at most 254)."""
    if not 0 < count < 255:
        raise ValueError(f"{count} addresses do not fit in {prefix}1-254")
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


def _keygen(path: Path) -> list[str]:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path.with_suffix(".pub").read_text().split()


class Sshds:
    """sshd processes serving ``hosts`` from ``directory`` (keys, configs, pid files)."""

    def __init__(self, hosts: tuple[str, ...], directory: Path) -> None:
        for h in hosts:
            if not ipaddress.ip_address(h).is_loopback:
                raise ValueError(f"{h} is not a loopback address")
        self.hosts = hosts
        self.dir = directory
        self.procs: list[subprocess.Popen[bytes]] = []
        self.port = 0
        self.config = directory / "ssh_config"

    def start(self, timeout: float = 10.0) -> Path:
        """Start the sshds; the ssh_config once every address accepts connections."""
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", exist_ok=True)
        tmp = self.dir
        os.chmod(tmp, 0o700)
        # The sessions' HOME holds no shell start-up files: the login shell of the
        # account the bench runs as may read them over SSH (Debian's bash reads
        # ~/.bashrc), which on a shared machine costs every host's start as much as
        # the account makes it, not what a data node host costs.
        home = tmp / "home"
        home.mkdir()
        host = _keygen(tmp / "host_key")
        user = _keygen(tmp / "id_ed25519")
        (tmp / "authorized_keys").write_text(" ".join(user) + "\n")
        with socket.socket() as s:
            s.bind((self.hosts[0], 0))
            self.port = port = s.getsockname()[1]
        # Never start an sshd without a ListenAddress: it would listen on every address.
        for n in range(0, len(self.hosts), PER_SSHD):
            cfg = tmp / f"sshd_{n}"
            cfg.write_text("".join(f"ListenAddress {h}:{port}\n"
                                   for h in self.hosts[n:n + PER_SSHD])
                           + f"HostKey {tmp / 'host_key'}\n"
                           f"AuthorizedKeysFile {tmp / 'authorized_keys'}\n"
                           f"PidFile {tmp / f'pid{n}'}\nUsePAM no\nStrictModes no\n"
                           "PasswordAuthentication no\nMaxStartups 100\nMaxSessions 100\n"
                           f"SetEnv HOME={home}\n")
            self.procs.append(subprocess.Popen(["/usr/sbin/sshd", "-D", "-f", str(cfg)]))
        (tmp / "known_hosts").write_text(
            "".join(f"[{h}]:{port} {host[0]} {host[1]}\n" for h in self.hosts))
        self.config.write_text(
            f"Host *\n  Port {port}\n  User {getpass.getuser()}\n"
            f"  IdentityFile {tmp / 'id_ed25519'}\n  IdentitiesOnly yes\n"
            f"  UserKnownHostsFile {tmp / 'known_hosts'}\n"
            "  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n  ControlMaster no\n  LogLevel ERROR\n")
        waiting = list(self.hosts)
        end = time.monotonic() + timeout
        while waiting and time.monotonic() < end:
            try:
                socket.create_connection((waiting[-1], port), 0.2).close()
                waiting.pop()
            except OSError:
                time.sleep(0.1)
        if waiting:
            self.stop()
            raise RuntimeError(f"sshd does not listen on {waiting[-1]}:{port}")
        return self.config

    def connected(self) -> set[str]:
        """Addresses with an established connection to the sshds' port (sshd's side)."""
        hosts = set(self.hosts)
        return {c.laddr.ip for c in psutil.net_connections(kind="tcp4")
                if c.status == psutil.CONN_ESTABLISHED and c.laddr
                and c.laddr.port == self.port and c.laddr.ip in hosts}

    def stop(self) -> None:
        """Stop the sshds and the sessions they still serve."""
        sessions = []
        for p in self.procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                sessions += psutil.Process(p.pid).children(recursive=True)
            p.terminate()
        for k in sessions:
            with contextlib.suppress(psutil.NoSuchProcess):
                k.terminate()
        psutil.wait_procs(sessions, timeout=5)
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()

    def __enter__(self) -> Path:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve ``--hosts`` loopback addresses until Ctrl-C (or SIGTERM)."""
    parser = argparse.ArgumentParser(
        prog="bench/sshd.py",
        description="Private sshds on loopback addresses (127.0.2.1, 127.0.2.2, ...) with keys "
        "made for the run, until Ctrl-C; prints the ssh_config that reaches them, for "
        "ndbtop demo --data-node-hosts ... --ssh --ssh-config FILE. Needs openssh-server "
        "(/usr/sbin/sshd).",
    )
    parser.add_argument("--hosts", type=int, default=2, metavar="N",
                        help="serve 127.0.2.1 ... 127.0.2.N (1-254; default 2)")
    args = parser.parse_args(argv)
    if not 0 < args.hosts < 255:
        parser.error(f"--hosts {args.hosts}: 1 to 254 addresses")
    hosts = loopback_hosts(args.hosts)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with tempfile.TemporaryDirectory(prefix="ndbtop-sshd-") as tmp:
        sshds = Sshds(hosts, Path(tmp))
        try:
            config = sshds.start()
        except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
            print(f"bench/sshd.py: cannot start sshd: {exc}", file=sys.stderr)
            return 1
        try:
            print(f"sshd serves {', '.join(hosts)} on port {sshds.port}; Ctrl-C stops it")
            print(f"ndbtop demo --data-node-hosts {','.join(hosts)} --ssh --ssh-config {config}",
                  flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
        finally:
            sshds.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
