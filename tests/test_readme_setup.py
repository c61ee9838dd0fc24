"""The README's first command works as root (no sudo on the machine) and as a user with
sudo: its install step runs apt-get directly, or through sudo when there is one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _install_step() -> str:
    """The README's first indented command, up to its first ``;`` (the apt-get step)."""
    line = next(x for x in README.read_text().splitlines() if x.startswith("    "))
    return line.strip().split(";")[0]


def _stub(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _run(step: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", step], capture_output=True, text=True,
                          env={**os.environ, "PATH": str(path)}, timeout=30, check=False)


def test_the_install_step_names_no_sudo_it_may_not_find() -> None:
    step = _install_step()
    assert step.endswith("apt-get install -y python3-venv")
    assert not step.startswith("sudo ")


def test_without_sudo_apt_get_runs_directly(tmp_path: Path) -> None:
    _stub(tmp_path, "apt-get", 'echo "apt-get $*"')
    done = _run(_install_step(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "apt-get install -y python3-venv\n"


def test_with_sudo_apt_get_runs_through_it(tmp_path: Path) -> None:
    _stub(tmp_path, "apt-get", 'echo "apt-get $*"')
    _stub(tmp_path, "sudo", 'echo "sudo:"; exec "$@"')
    done = _run(_install_step(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "sudo:\napt-get install -y python3-venv\n"
