"""Where the live view's CPU goes: py-spy samples ndbtop in a 120x40 tmux pane.

py-spy is installed in the throwaway virtual environment of the peer (never a
dependency of ndbtop). It samples every thread of the running program at 200 Hz for
the window (Nodes view, then Threads), leaving out idle samples and those of a thread
blocked in a wait; the stacks are summed per function into the share of the busy
samples spent in the function itself (self) and, for ndbtop's own functions, in it and
below it (total). Run alone: ``.venv/bin/python bench/cpu_profile.py max``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from harness import SimProcess
from peer import PEER_VENV, SETTLE_S, ndbtop_pane, peer_python

from ndbtop.compat import zip_strict

RATE_HZ = 200
_OWN = re.compile(r"[ (/]ndbtop/(?!.*site-packages)")
"""The path of ndbtop's own modules: the total shares are given for its functions."""
_ENTRY = ("<module>", "main ", "_dispatch ", "run_monitor ", "run_tui ", "_run ")
_WAITS = ("select ", "EpollSelector.select ", "SelectSelector.select ", "Condition.wait ",
          "Event.wait ", "_wait_for_tstate_lock ", "SocketIO.readinto ")
"""Leaf functions of a thread blocked in a system call (a wait for input or for the SQL
node's answer) that py-spy does not count as idle."""


def py_spy() -> Path:
    """py-spy in the peer's virtual environment (installed on first use)."""
    path = PEER_VENV / "bin" / "py-spy"
    if not path.exists():
        subprocess.run([str(peer_python()), "-m", "pip", "install", "-q", "py-spy"], check=True)
    return path


def profile(scenario: str, seconds: float = 30.0, top: int = 15) -> dict[str, Any]:
    """The ``top`` functions by self and by total share of ndbtop's busy samples."""
    spy = py_spy()
    sim = SimProcess(scenario)
    pane = ndbtop_pane(sim, f"profile-{scenario}")
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "stacks.txt"
        try:
            time.sleep(SETTLE_S)
            spy_run = subprocess.Popen(
                [str(spy), "record", "--pid", str(pane.process.pid), "--rate", str(RATE_HZ),
                 "--duration", str(int(seconds)), "--format", "raw", "--output", str(raw),
                 "--nonblocking"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(seconds / 2)
            pane.send_keys("2")
            spy_run.wait(seconds + 60)
        finally:
            pane.stop()
            sim.stop()
        return summarise(raw.read_text(), top)


def summarise(collapsed: str, top: int) -> dict[str, Any]:
    """Self and total shares per function from py-spy's collapsed stacks."""
    own: Counter[str] = Counter()
    below: Counter[str] = Counter()
    total = 0
    for line in collapsed.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        raw = stack.split(";")
        frames = [_short(f) for f in raw]
        if frames[-1].startswith(_WAITS):
            continue  # a thread blocked in a wait that py-spy did not see as idle
        total += count
        own[frames[-1]] += count
        for frame in {short for short, f in zip_strict(frames, raw) if _OWN.search(f)}:
            below[frame] += count
    return {
        "samples": total,
        "self": [(f, 100 * n / total) for f, n in own.most_common(top)],
        "total": [(f, 100 * n / total) for f, n in below.most_common(top + 8)
                  if not f.startswith(_ENTRY)][:top],
    }


def _short(frame: str) -> str:
    # "name (path/to/module.py:123)" -> "name (module.py)"; the line number would split
    # one function into several entries.
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    parts = Path(path).parts
    kept = "/".join(parts[-2:]) if parts else path
    return f"{name} ({kept})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenario", nargs="?", default="max")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    result = profile(args.scenario, args.seconds, args.top)
    print(f"{result['samples']} busy samples at {RATE_HZ} Hz")
    for kind in ("self", "total"):
        print(f"\n{kind}:")
        for name, pct in result[kind]:
            print(f"  {pct:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
