"""``bench/sshd.py`` run alone: ``--help`` prints its usage, a bad count is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SSHD = Path(__file__).resolve().parents[1] / "bench" / "sshd.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SSHD), *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_help_prints_the_usage() -> None:
    done = _run("--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: bench/sshd.py [-h] [--hosts N]")
    assert "--ssh-config FILE" in done.stdout and "--hosts N" in done.stdout


def test_a_count_out_of_range_is_refused_in_one_line() -> None:
    done = _run("--hosts", "300")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == "bench/sshd.py: error: --hosts 300: 1 to 254 addresses"
    assert "Traceback" not in done.stderr
