"""Check ``dist/ndbtop.pyz`` as a customer's jump host runs it (run by ``packaging/check-pyz``).

With every CPython from 3.9 to 3.13 found on the machine, in isolated mode (``-I``),
with no network (a new network namespace: ``unshare -rn``) and an empty ``HOME``:

- ``--version`` exits 0 and names that interpreter (not another one PEX chose instead),
  and ``./ndbtop.pyz --version`` runs through its ``#!/usr/bin/env python3`` line;
- ``demo`` in a pseudo-terminal draws its first screen, runs 5 s and exits 0 on ``q``;
- ``sim`` runs, and ``--once --json`` against it exits 0 with a JSON report.

Every version is named in the output: checked, not found on the machine, or not one the
file is made for (``requires-python``). Exit 0 only when every interpreter found that the
file is made for passed every check.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pyzrun import FIRST_SCREEN, Terminal, isolated_env, plain, start_sim

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
DEMO_SECONDS = 5.0


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` (its real path): pyenv's, else on PATH."""
    roots = [os.environ.get("PYENV_ROOT") or "", os.path.expanduser("~/.pyenv"), "/root/.pyenv"]
    candidates = []
    for root in filter(None, roots):
        candidates += sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin",
                                                    f"python{version}")), reverse=True)
    candidates += filter(None, [shutil.which(f"python{version}")])
    for candidate in candidates:
        try:
            done = subprocess.run([candidate, "-I", "-c", "import sys; print(sys.executable)"],
                                  capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    return None


def made_for(pyz: Path) -> list[str]:
    """The CPython versions the file has wheels for (from its PEX-INFO)."""
    import zipfile

    with zipfile.ZipFile(pyz) as z:
        info = json.loads(z.read("PEX-INFO"))
    tags = set()
    for wheel in info["distributions"]:
        for abi in wheel[:-4].split("-")[-2].split("."):
            if abi.startswith("cp3") and abi[3:].isdigit():
                tags.add(f"3.{abi[3:]}")
    return sorted(tags, key=lambda v: int(v.split(".")[1]))


def loopback_up() -> None:
    """Bring up ``lo`` in this (new) network namespace: SIOCSIFFLAGS with IFF_UP."""
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH", fcntl.ioctl(s, siocgifflags,
                                                  struct.pack("16sH", b"lo", 0)))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH", b"lo", flags | iff_up))


def without_network() -> bool:
    """Run this script again in a new network namespace with only loopback (``unshare -rn``);
    False, said, when this machine cannot make one."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        os.execv(unshare, [unshare, "-rn", sys.executable, __file__, "--no-network",
                           *sys.argv[1:]])
    print("check-pyz: no network namespace here (unshare -rn failed): checked WITH network")
    return False


def check(python: str, version: str, pyz: Path) -> list[str]:
    """The failures of ``pyz`` under ``python``; empty when every check passed."""
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ndbtop-pyz-home-") as home:
        env = isolated_env(Path(home))
        base = [python, "-I", str(pyz)]

        done = subprocess.run([*base, "--version"], env=env, capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0 or f"Python {version}." not in done.stdout:
            failures.append(f"--version: exit {done.returncode}: "
                            f"{(done.stdout + done.stderr).strip()[-300:]}")
        cache = Path(home, ".cache", "ndbtop")
        if not cache.is_dir() or (cache.stat().st_mode & 0o777) != 0o700:
            failures.append(f"cache {cache}: not a directory of mode 700")

        term = Terminal([*base, "demo"], env)
        try:
            if term.until(FIRST_SCREEN, 60) is None:
                failures.append("demo: no first screen within 60 s: "
                                f"{plain(term.output)[-300:]!r}")
            else:
                term.read_for(DEMO_SECONDS)
                term.press(b"q")
                status = term.wait(30)
                if status != 0:
                    failures.append(f"demo: exit {status} after q")
        finally:
            term.kill()

        try:
            proc, connect, _ = start_sim([*base, "sim", "--no-sql"], env)
        except RuntimeError as exc:
            failures.append(f"sim: {exc}")
            return failures
        try:
            done = subprocess.run([*base, "-c", connect, "--no-sql", "--no-host", "--once",
                                   "--json"], env=env, capture_output=True, text=True,
                                  timeout=120)
            if done.returncode != 0:
                failures.append(f"--once --json: exit {done.returncode}: "
                                f"{done.stderr.strip()[-300:]}")
            else:
                try:
                    json.loads(done.stdout)
                except ValueError as exc:
                    failures.append(f"--once --json: not JSON ({exc})")
        finally:
            proc.terminate()
            proc.wait(30)
    return failures


def check_direct(pyz: Path) -> bool:
    """``./ndbtop.pyz --version`` (its ``#!/usr/bin/env python3`` line) runs; said either way."""
    with tempfile.TemporaryDirectory(prefix="ndbtop-pyz-home-") as home:
        done = subprocess.run([str(pyz), "--version"], env=isolated_env(Path(home)),
                              capture_output=True, text=True, timeout=120)
    first = (done.stdout.splitlines() or [""])[0]
    if done.returncode == 0 and first.startswith("ndbtop "):
        print(f"check-pyz: ./{pyz.name} --version: ok ({first})")
        return True
    print(f"check-pyz: ./{pyz.name} --version: FAILED: exit {done.returncode}: "
          f"{(done.stdout + done.stderr).strip()[-300:]}")
    return False


def main() -> int:
    """Check the file with every interpreter; name each version and what became of it."""
    args = sys.argv[1:]
    isolated = bool(args) and args[0] == "--no-network"
    if isolated:
        args = args[1:]
        loopback_up()
    else:
        without_network()
    pyz = Path(args[0]).resolve() if args else ROOT / "dist" / "ndbtop.pyz"
    inside = made_for(pyz)
    bad = 0 if check_direct(pyz) else 1
    for version in VERSIONS:
        python = find_python(version)
        if python is None:
            print(f"check-pyz: CPython {version}: NOT CHECKED: no interpreter on this machine")
            continue
        if version not in inside:
            print(f"check-pyz: CPython {version} ({python}): NOT CHECKED: the file has no "
                  f"wheels for it (made for {', '.join(inside)}; pyproject.toml requires-python)")
            continue
        failures = check(python, version, pyz)
        if failures:
            bad += 1
            for f in failures:
                print(f"check-pyz: CPython {version} ({python}): FAILED: {f}")
        else:
            print(f"check-pyz: CPython {version} ({python}): ok (--version, demo 5 s and q, "
                  f"sim and --once --json; -I, empty HOME{', no network' if isolated else ''})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
